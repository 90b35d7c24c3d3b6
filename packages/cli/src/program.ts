/** The `agentry` command: one subcommand per module under commands/. */
import { Command } from 'commander';

export const VERSION = '0.1.0';

type Register = (program: Command) => void;

/**
 * Each command's module, loaded when it is asked for: a command imports only what it runs on (`search` the
 * registry's HTTP API, `validate` core and the fetcher), so `agentry validate` does not load the registry, the
 * host, SQLite and the MCP SDK before it reads a file. Listed in one place so that help lists them all.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  convert: async () => (await import('./commands/convert.js')).registerConvert,
  resolve: async () => (await import('./commands/resolve.js')).registerResolve,
  invoke: async () => (await import('./commands/invoke.js')).registerInvoke,
  host: async () => (await import('./commands/host.js')).registerHost,
  serve: async () => (await import('./commands/serve.js')).registerServe,
  token: async () => (await import('./commands/token.js')).registerToken,
  register: async () => (await import('./commands/register.js')).registerRegister,
  search: async () => (await import('./commands/search.js')).registerSearch,
  crawl: async () => (await import('./commands/crawl.js')).registerCrawl,
  import: async () => (await import('./commands/import.js')).registerImport,
  migrate: async () => (await import('./commands/migrate.js')).registerMigrate,
};

/**
 * The program for `args` (the words after `agentry`): with a known command first (program options take no
 * values, so the first word that is not an option is the command), only that command is loaded; otherwise every
 * command is, so that help, `agentry help <command>` and the suggestion for a mistyped command see them all.
 */
export async function createProgram(args: readonly string[] = process.argv.slice(2)): Promise<Command> {
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
  const first = args.find((arg) => !arg.startsWith('-'));
  const wanted = first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
  const registers = await Promise.all(wanted.map((name) => COMMANDS[name]!()));
  for (const register of registers) register(program);
  return program;
}
