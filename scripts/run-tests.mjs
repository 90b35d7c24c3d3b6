#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test with Node's test runner (TypeScript through tsx).
// Extra arguments are passed to `node --test` (e.g. --test-name-pattern=woa). fixed-seed.mjs gives every fast-check
// property one seed.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const fileArgs = args.filter((arg) => arg.endsWith('.test.ts'));
const flagArgs = args.filter((arg) => !arg.endsWith('.test.ts'));
const files =
  fileArgs.length > 0
    ? fileArgs
    : readdirSync('packages').flatMap((pkg) => {
        const testDir = join('packages', pkg, 'test');
        try {
          return findTests(testDir);
        } catch {
          return [];
        }
      });
files.sort();
// Two test files at a time: most tests wait on loopback servers, child processes and SQLite rather than the CPU,
// so a second file overlaps those waits (Node's default, one fewer than the cores, is one on a 2-core machine).
// TEST_CONCURRENCY overrides it.
const concurrency = process.env['TEST_CONCURRENCY'] ?? '2';
const hasConcurrency = flagArgs.some((arg) => arg.startsWith('--test-concurrency'));
const concurrencyArgs = hasConcurrency ? [] : [`--test-concurrency=${concurrency}`];
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './scripts/fixed-seed.mjs',
    '--test',
    ...concurrencyArgs,
    ...flagArgs,
    ...files,
  ],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
