// Loaded before every test file when run-tests.mjs is told to record how long each file takes
// (AGENTRY_TEST_TIMES=<file>, see scripts/test-durations.json): at exit the process appends one line, its file and
// its lifetime in seconds (loading included), to that file. Each file runs in a process of its own, so the lines of
// files running side by side do not interleave within a line.
import { appendFileSync } from 'node:fs';

const log = process.env['AGENTRY_TEST_TIMES'];
// node:test's run() starts each test file with NODE_TEST_CONTEXT set; the driver that starts them has none.
if (log !== undefined && log !== '' && process.env['NODE_TEST_CONTEXT'] !== undefined) {
  process.once('exit', () => {
    const line = JSON.stringify({ file: process.argv[1] ?? '', seconds: process.uptime() });
    appendFileSync(log, `${line}\n`);
  });
}
