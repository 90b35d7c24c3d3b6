/**
 * `agentry token`: mints an API token offline, straight into a registry's database file — a new admin token when
 * the one shown at the first start is lost, or a publisher's or client's token without calling the API. The token
 * is printed once; the file keeps only its hash. A registry running on the file accepts it at once.
 */
import { existsSync, statSync } from 'node:fs';
import {
  ACCESS_NAME,
  isPostgresDatabase,
  isRegistryDatabase,
  openRegistryStore,
  type TokenInfo,
} from '@agentry/registry';
import type { Command } from 'commander';
import { printableDatabase } from '../io/database-hint.js';
import { EXIT, UsageError } from '../io/errors.js';
import {
  DATABASE_OPTION,
  databaseFrom,
  databaseUsageError,
  environmentSettings,
} from '../io/registry-options.js';

interface TokenCommandOptions {
  db?: string;
  database?: string;
  role: string;
  publisher?: string;
  groups?: string;
  json?: boolean;
}

const ROLES = ['admin', 'publisher', 'client'] as const;
type Role = (typeof ROLES)[number];

/** Who the audit log says made the token. */
const ACTOR = 'agentry token';

export function registerToken(program: Command): void {
  program
    .command('token')
    .description(
      "mint an API token offline on a registry's database file (a lost admin token, a publisher's, a client's)",
    )
    .requiredOption('--role <role>', 'admin (replaces the admin token), publisher or client')
    .option('--db <file>', 'the registry database file (default: AGENTRY_DB, else ./agentry.db)')
    .option(...DATABASE_OPTION)
    .option('--publisher <name>', 'with --role publisher: the publisher its agents are owned by')
    .option(
      '--groups <list>',
      'access groups of a publisher or client token (comma-separated): it sees agents restricted to them',
    )
    .option('--json', 'print the token and what it is as JSON (for scripts)')
    .addHelpText(
      'after',
      '\nThe token is printed once; the database keeps only its hash. A registry running on the file accepts it at\nonce. A new admin token replaces the old one, which stops working (a registry started with\nAGENTRY_ADMIN_TOKEN puts that one back when it starts).\n\nExit status: 0 minted, 2 usage error (no such database file, a wrong role).\n\nExamples:\n  agentry token --db registry.db --role admin\n  agentry token --db registry.db --role publisher --publisher acme\n  agentry token --db registry.db --role client --groups team-a,team-b --json\n  agentry token --database postgres://postgres@127.0.0.1:5432/agentry --role admin',
    )
    .action(async (options: TokenCommandOptions) => {
      const role = roleOf(options.role);
      const spec = tokenSpec(role, options);
      const databasePath = databaseFrom(environmentSettings(), options);
      const postgres = isPostgresDatabase(databasePath);
      // Opening a missing file would create an empty registry, whose token would open nothing. (A PostgreSQL
      // database must exist; opening it says when it does not, and migrates one that is empty.)
      if (!postgres && (!existsSync(databasePath) || !statSync(databasePath).isFile())) {
        throw new UsageError(
          `no registry database at ${databasePath}: pass --db with the file agentry serve uses (its first line names it)`,
        );
      }
      if (!isRegistryDatabase(databasePath)) {
        throw new UsageError(
          `${printableDatabase(databasePath)} is not a registry database: pass --db with the file agentry serve uses (its first line names it)`,
        );
      }
      let store: Awaited<ReturnType<typeof openRegistryStore>>;
      try {
        store = await openRegistryStore(databasePath);
      } catch (error) {
        if (postgres) throw databaseUsageError(error);
        throw new UsageError(
          `${databasePath} is not a registry database this agentry can open: ${(error as Error).message}`,
        );
      }
      let minted: { token: string; info: TokenInfo };
      try {
        minted =
          role === 'admin' ? await store.tokens.replaceAdmin(ACTOR) : await store.tokens.create(spec, ACTOR);
      } finally {
        await store.close();
      }
      const { token, info } = minted;
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({
            id: info.id,
            token,
            role: info.role,
            publisher: role === 'admin' ? null : (info.publisher ?? null),
            groups: info.groups,
            created_at: info.createdAt,
            database: printableDatabase(databasePath),
          })}\n`,
        );
      } else {
        const what =
          role === 'admin'
            ? 'admin token'
            : role === 'publisher'
              ? `publisher token for ${info.publisher}`
              : 'client token';
        const groups = info.groups.length > 0 ? ` (groups ${info.groups.join(', ')})` : '';
        process.stdout.write(
          `agentry: ${what}${groups} in ${printableDatabase(databasePath)} (shown once; keep it): ${token}\n`,
        );
        if (role === 'admin') process.stdout.write('  the previous admin token no longer works\n');
        else process.stdout.write(`  id ${info.id} (revoke with DELETE /admin/tokens/${info.id})\n`);
      }
      process.exitCode = EXIT.ok;
    });
}

function roleOf(text: string): Role {
  if (!(ROLES as readonly string[]).includes(text))
    throw new UsageError(`--role must be admin, publisher or client, not "${text}"`);
  return text as Role;
}

function tokenSpec(
  role: Role,
  options: TokenCommandOptions,
): { role: 'publisher' | 'client'; publisher?: string; groups: string[] } {
  if (role !== 'publisher' && options.publisher !== undefined)
    throw new UsageError(`--publisher is for --role publisher, not --role ${role}`);
  if (role === 'admin' && options.groups !== undefined)
    throw new UsageError('--groups is for publisher and client tokens; the admin sees every agent');
  const groups = (options.groups ?? '')
    .split(',')
    .map((group) => group.trim())
    .filter((group) => group !== '');
  for (const group of groups) {
    if (!ACCESS_NAME.test(group))
      throw new UsageError(
        `--groups: "${group}" is not a group name (1 to 64 letters, digits and . _ : @ -, starting with a letter or digit)`,
      );
  }
  if (role !== 'publisher') return { role: 'client', groups };
  if (options.publisher === undefined)
    throw new UsageError('--role publisher needs --publisher <name>: the publisher its agents are owned by');
  if (!ACCESS_NAME.test(options.publisher) || options.publisher === 'admin')
    throw new UsageError(
      `--publisher "${options.publisher}" is not a publisher name (1 to 64 letters, digits and . _ : @ -, and not "admin")`,
    );
  return { role: 'publisher', publisher: options.publisher, groups };
}
