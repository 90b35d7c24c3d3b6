#!/usr/bin/env node
// Runs the tests: every *.test.ts under packages/*/test (or the files given) with Node's test runner.
//
// Tests run as JavaScript, not through a TypeScript loader. On Node 20 any loader hook (tsx, or even one that does
// nothing) runs off-thread and costs each test process about a second of CPU to load the registry's modules, which
// across ~190 files was a quarter of the suite's time. So, first:
//   1. `tsc -b` brings every package's dist/ up to date (a no-op when nothing changed; AGENTRY_TEST_BUILD=0 skips it
//      when the caller has just built);
//   2. scripts/bundle-cli.mjs bundles the CLI that the CLI tests run as `agentry`;
//   3. test-mirror.mjs transpiles each package's test/ into dist-test/, a mirror at the same depth whose imports of
//      ../src/ point at the built ../dist/ (so tests exercise the code users run, one module instance per package).
// Test files that import TypeScript outside the packages (examples/, scripts/, bench/) run in a second pass with tsx.
// Extra arguments are what `node --test` takes (e.g. --test-name-pattern=woa, --test-reporter=spec; see below, the
// files run through scripts/test-driver.mjs) and node's own flags. fixed-seed.mjs gives every fast-check property
// one seed.
//
// Files start longest first, by the seconds scripts/test-durations.json recorded for them (files it does not know
// start before those it does): two files run at a time, and a long file started last would otherwise run alone at
// the end (sorted by path, the 50-second store-postgres and web-page tests came last). AGENTRY_TEST_DURATIONS=write
// records the files run this time into it (scripts/test-timing.mjs; best from a whole run, on a quiet machine).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { mirrorTests } from './test-mirror.mjs';

const root = resolve(import.meta.dirname, '..');

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
const files = (
  fileArgs.length > 0
    ? fileArgs
    : readdirSync(join(root, 'packages')).flatMap((pkg) => {
        const testDir = join(root, 'packages', pkg, 'test');
        try {
          return findTests(testDir);
        } catch {
          return [];
        }
      })
)
  .map((file) => resolve(file))
  .sort();

if (process.env['AGENTRY_TEST_BUILD'] !== '0') {
  const build = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b'], {
    cwd: root,
    stdio: 'inherit',
  });
  // tsc emits despite type errors, so the tests still run the current code; `npm run typecheck` fails on them.
  if (build.status !== 0)
    process.stderr.write('run-tests: tsc -b reported errors (above); running the tests anyway\n');
}

// The `agentry` command the CLI tests run is the bundle of the built CLI (scripts/bundle-cli.mjs); it is made
// again every time (about a second; unchanged files are not rewritten), so that it never lags dist/.
const bundle = spawnSync(process.execPath, [join(root, 'scripts/bundle-cli.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (bundle.status !== 0) {
  process.stderr.write('run-tests: bundling the CLI failed (scripts/bundle-cli.mjs)\n');
  process.exit(bundle.status ?? 1);
}

const mirrored = mirrorTests(root, files);

const durationsFile = join(root, 'scripts/test-durations.json');
const durations = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};

/** packages/<pkg>/test/….test.ts, the key of a file in test-durations.json, for a test file or its mirror. */
function durationKey(file) {
  const parts = relative(root, file).split(sep);
  if (parts[0] === 'packages' && parts[2] === 'dist-test') parts[2] = 'test';
  const path = parts.join('/');
  return path.endsWith('.js') ? `${path.slice(0, -3)}.ts` : path;
}

/** Files the durations do not know first (in path order), then the known ones longest first. */
function longestFirst(testFiles) {
  const seconds = (file) => durations[durationKey(file)] ?? Number.POSITIVE_INFINITY;
  return [...testFiles].sort((a, b) => seconds(b) - seconds(a) || (a < b ? -1 : a > b ? 1 : 0));
}

const plain = longestFirst(mirrored.plain);
const needsTsx = longestFirst(mirrored.needsTsx);

const recording = process.env['AGENTRY_TEST_DURATIONS'] === 'write';
const timesDir = recording ? mkdtempSync(join(tmpdir(), 'agentry-test-times-')) : undefined;
const timesLog = timesDir === undefined ? undefined : join(timesDir, 'times.jsonl');
const timingArgs = recording ? ['--import', './scripts/test-timing.mjs'] : [];

// Two test files at a time: most tests wait on loopback servers, child processes and SQLite rather than the CPU,
// so a second file overlaps those waits (Node's default, one fewer than the cores, is one on a 2-core machine).
// TEST_CONCURRENCY overrides it.
//
// The files run through scripts/test-driver.mjs (node:test's run()), which keeps their order: `node --test` sorts
// them by path. The `--test-*` flags `node --test` would read are read here and handed to it; other flags are
// node's own, given to the driver and inherited by every test file's process.
const driverOptions = {
  concurrency: Number(process.env['TEST_CONCURRENCY'] ?? '2'),
  testNamePatterns: [],
  only: false,
  timeout: undefined,
  reporters: [],
};
const nodeFlags = [];
const destinations = [];
for (let i = 0; i < flagArgs.length; i++) {
  const arg = flagArgs[i];
  const match = /^(--test-[a-z-]+)(?:=(.*))?$/.exec(arg);
  if (match === null) {
    nodeFlags.push(arg);
    continue;
  }
  const [, flag, inline] = match;
  if (flag === '--test-only') {
    driverOptions.only = true;
    continue;
  }
  const value = inline ?? flagArgs[++i];
  if (value === undefined) throw new Error(`run-tests: ${flag} needs a value`);
  if (flag === '--test-concurrency') driverOptions.concurrency = Number(value);
  else if (flag === '--test-name-pattern') driverOptions.testNamePatterns.push(value);
  else if (flag === '--test-timeout') driverOptions.timeout = Number(value);
  else if (flag === '--test-reporter') driverOptions.reporters.push({ name: value, destination: 'stdout' });
  else if (flag === '--test-reporter-destination') destinations.push(value);
  else throw new Error(`run-tests: ${flag} is not a test flag run-tests.mjs knows`);
}
// As with `node --test`: the n-th destination is the n-th reporter's (stdout for a lone reporter without one).
for (const [i, destination] of destinations.entries()) {
  const reporter = driverOptions.reporters[i];
  if (reporter === undefined)
    throw new Error('run-tests: more --test-reporter-destination than --test-reporter');
  reporter.destination = destination;
}

function runPass(name, testFiles, loaderArgs) {
  if (testFiles.length === 0) return 0;
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      ...loaderArgs,
      '--enable-source-maps',
      '--import',
      './scripts/fixed-seed.mjs',
      ...timingArgs,
      ...nodeFlags,
      'scripts/test-driver.mjs',
      JSON.stringify({ ...driverOptions, files: testFiles }),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: timesLog === undefined ? process.env : { ...process.env, AGENTRY_TEST_TIMES: timesLog },
    },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`run-tests: ${name} pass, ${testFiles.length} files in ${seconds} s\n`);
  return result.status ?? 1;
}

const plainStatus = runPass('main', plain, []);
const tsxStatus = runPass('tsx', needsTsx, ['--import', 'tsx']);

if (timesLog !== undefined && timesDir !== undefined) {
  const recorded = { ...durations };
  if (existsSync(timesLog)) {
    for (const line of readFileSync(timesLog, 'utf8').split('\n')) {
      if (line === '') continue;
      const { file, seconds } = JSON.parse(line);
      recorded[durationKey(file)] = Math.round(seconds * 10) / 10;
    }
  }
  // Files that are gone are forgotten; the rest are kept in path order, so that a new record reads as a diff.
  const kept = Object.keys(recorded)
    .filter((key) => existsSync(join(root, key)))
    .sort();
  writeFileSync(
    durationsFile,
    `${JSON.stringify(Object.fromEntries(kept.map((key) => [key, recorded[key]])), null, 2)}\n`,
  );
  rmSync(timesDir, { recursive: true, force: true });
}

process.exit(plainStatus !== 0 ? plainStatus : tsxStatus);
