// Runs test files with Node's test runner in the order given (run-tests.mjs orders them longest first): `node --test`
// sorts the files it is given by path, node:test's run() keeps their order. run-tests.mjs starts it as
// `node <node flags> scripts/test-driver.mjs <options JSON>`; each test file's process inherits those node flags
// (fixed-seed.mjs, tsx, --enable-source-maps), as under `node --test`. The options are the files, the concurrency and
// what run-tests.mjs read from the `--test-*` flags it was given: name patterns, --test-only, --test-timeout and the
// reporters with their destinations (spec on a terminal, else tap, as `node --test` chooses).
import { createWriteStream } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { run } from 'node:test';
import { dot, junit, lcov, spec, tap } from 'node:test/reporters';
import { pathToFileURL } from 'node:url';

const options = JSON.parse(process.argv[2] ?? '{}');

const builtinReporters = new Map([
  ['dot', dot],
  ['junit', junit],
  ['lcov', lcov],
  ['spec', spec],
  ['tap', tap],
]);

async function reporterOf(name) {
  const builtin = builtinReporters.get(name);
  if (builtin !== undefined) return builtin;
  const specifier = name.startsWith('.') || isAbsolute(name) ? pathToFileURL(resolve(name)).href : name;
  const loaded = await import(specifier);
  return loaded.default ?? loaded;
}

const reporters =
  options.reporters.length > 0
    ? options.reporters
    : [{ name: process.stdout.isTTY ? 'spec' : 'tap', destination: 'stdout' }];

const stream = run({
  files: options.files,
  concurrency: options.concurrency,
  ...(options.testNamePatterns.length > 0 ? { testNamePatterns: options.testNamePatterns } : {}),
  ...(options.only ? { only: true } : {}),
  ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
});
// A failing `todo` test does not fail the run, as under `node --test`.
stream.on('test:fail', (event) => {
  if (!event.todo) process.exitCode = 1;
});
for (const { name, destination } of reporters) {
  const reporter = await reporterOf(name);
  const out =
    destination === 'stdout'
      ? process.stdout
      : destination === 'stderr'
        ? process.stderr
        : createWriteStream(destination);
  // A reporter is a class of Transform stream (spec) or an async generator function of the events (tap, dot, custom
  // ones); Node tells them apart by a prototype with a constructor of its own.
  const isClass = reporter?.prototype !== undefined && Object.hasOwn(reporter.prototype, 'constructor');
  stream.compose(isClass ? new reporter() : reporter).pipe(out);
}
