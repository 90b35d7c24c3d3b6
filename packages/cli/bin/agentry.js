#!/usr/bin/env node
// The installed `agentry` command. It exists before the first build (npm links bins at install time) and runs the
// compiled CLI; run `npm run build` first in a checkout.
import '../dist/bin.js';
