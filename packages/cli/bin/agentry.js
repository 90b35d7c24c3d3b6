#!/usr/bin/env node
// The installed `agentry` command. It exists before the first build (npm links bins at install time) and runs the
// built CLI: the bundle `npm run build` makes (dist/bundle/, which starts in a third of the time; see
// scripts/bundle-cli.mjs), or the compiled modules when only `tsc -b` has run.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/bundle/agentry.js', import.meta.url);
await import(existsSync(bundle) ? bundle.href : new URL('../dist/bin.js', import.meta.url).href);
