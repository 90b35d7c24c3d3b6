/** The `agentry` command: one subcommand per module under commands/. */
import { Command } from 'commander';
import { registerConvert } from './commands/convert.js';
import { registerCrawl } from './commands/crawl.js';
import { registerHost } from './commands/host.js';
import { registerImport } from './commands/import.js';
import { registerInvoke } from './commands/invoke.js';
import { registerRegister } from './commands/register.js';
import { registerResolve } from './commands/resolve.js';
import { registerSearch } from './commands/search.js';
import { registerServe } from './commands/serve.js';
import { registerToken } from './commands/token.js';
import { registerValidate } from './commands/validate.js';

export const VERSION = '0.1.0';

export function createProgram(): Command {
  const program = new Command('agentry')
    .description(
      'One web of AI agents: validate, convert, resolve and invoke agents across WoA, AWP, A2A, agent://, WoT TD, AIDIP and MCP.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    // Program options only before the subcommand, so `resolve --version 1.2` is the agent version.
    .enablePositionalOptions()
    .configureHelp({ sortSubcommands: true })
    .addHelpText(
      'after',
      '\nEach command has its own --help, with examples.\n\nExamples:\n  agentry serve --demo\n  agentry search "book a flight to Paris"\n  agentry host examples/summarizer/agent.ts --port 8080',
    )
    // Throw instead of exiting, so bin.ts maps usage errors to exit 2; subcommands inherit this when added after.
    .exitOverride();
  registerValidate(program);
  registerConvert(program);
  registerResolve(program);
  registerInvoke(program);
  registerHost(program);
  registerServe(program);
  registerRegister(program);
  registerSearch(program);
  registerCrawl(program);
  registerImport(program);
  registerToken(program);
  return program;
}
