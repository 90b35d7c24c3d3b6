#!/usr/bin/env node
import { CommanderError } from 'commander';
import { EXIT, UsageError } from './io/errors.js';
import { createProgram } from './program.js';

// Output piped into `head` closes early; that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

try {
  const program = await createProgram(process.argv.slice(2));
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; every other commander error is a usage error, already printed.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (error instanceof UsageError) {
    process.stderr.write(`agentry: ${error.message}\n`);
    process.exitCode = EXIT.usage;
  } else {
    process.stderr.write(
      `agentry: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 70;
  }
}
