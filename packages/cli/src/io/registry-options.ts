/**
 * The registry options `serve` and `crawl` share: the environment's settings (`settingsFromEnv`), the database
 * (`--database <url>` / DATABASE_URL, or the `--db <file>` SQLite file) and the `--embeddings` flag, which picks a provider and takes that provider's settings from the environment.
 */
import {
  DatabaseUnavailableError,
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProviderKind,
  type EnvSettings,
  embeddingOptionsFor,
  limitOrNone,
  MigrationError,
  type RegistryOptions,
  settingsFromEnv,
  UnsupportedDatabaseError,
} from '@agentry/registry';
import type { Command } from 'commander';
import { UsageError } from './errors.js';

export function environmentSettings(): EnvSettings {
  try {
    return settingsFromEnv(process.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The crawler's per-origin limits, as `agentry crawl` and `agentry serve` take them. */
export interface CrawlLimitFlags {
  maxAgentsPerOrigin?: string;
  maxDocumentsPerOrigin?: string;
}

/** `--max-agents-per-origin` and `--max-documents-per-origin`: flags and description. */
export const CRAWL_LIMIT_OPTIONS = {
  agents: [
    '--max-agents-per-origin <n>',
    'agents kept per crawled origin, the rest dropped and reported (default: AGENTRY_MAX_AGENTS_PER_ORIGIN, else 1000; none for no limit)',
  ],
  documents: [
    '--max-documents-per-origin <n>',
    'linked documents followed per crawled origin (default: AGENTRY_MAX_DOCUMENTS_PER_ORIGIN, else 64; none for no limit)',
  ],
} as const;

export function addCrawlLimitOptions(command: Command): Command {
  return command.option(...CRAWL_LIMIT_OPTIONS.agents).option(...CRAWL_LIMIT_OPTIONS.documents);
}

/** `--database <url>`: flag and description, for the commands that open the registry's database. */
export const DATABASE_OPTION = [
  '--database <url>',
  'the registry database: postgres://user@host:5432/name, or a SQLite file path or sqlite: URL (default: DATABASE_URL, else --db)',
] as const;

/**
 * The database a command opens: `--database`, else `--db`, else DATABASE_URL, else AGENTRY_DB, else ./agentry.db.
 * A `postgres://` URL is PostgreSQL; a `sqlite:` URL (of `--database` or DATABASE_URL) is given as its file path,
 * which is what the registry and the commands that look at the file take; anything else is a SQLite file.
 */
export function databaseFrom(env: EnvSettings, flags: { db?: string; database?: string }): string {
  if (flags.database !== undefined && flags.db !== undefined) {
    throw new UsageError('pass --database or --db, not both');
  }
  if (flags.database !== undefined) return databaseUrlTarget(flags.database, '--database');
  if (flags.db !== undefined) return flags.db;
  // The environment's (settingsFromEnv): DATABASE_URL (a URL or a file), else AGENTRY_DB (a file).
  const fromEnv = env.options.databasePath;
  if (fromEnv === undefined) return 'agentry.db';
  return process.env['DATABASE_URL']?.trim() ? databaseUrlTarget(fromEnv, 'DATABASE_URL') : fromEnv;
}

/**
 * A database URL as the registry opens it: a PostgreSQL URL or a path as it is, a `sqlite:` URL as its path
 * (`sqlite:///var/lib/agentry.db`, `sqlite:registry.db`). Another scheme (mysql://…) is a usage error naming
 * `source`, rather than a file of that name the registry would try to create.
 */
function databaseUrlTarget(value: string, source: string): string {
  // Two letters at least, so that a Windows drive (C:\…) is a path.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'postgres' || scheme === 'postgresql') return value;
  if (scheme === 'sqlite') {
    const rest = value.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path === '') throw new UsageError(`${source} ${value} names no file`);
    return path;
  }
  throw new UsageError(
    `${source} must be a postgres:// URL, a sqlite: URL or a SQLite file path, not a ${scheme}: URL`,
  );
}

/**
 * A database that cannot be opened (unreachable, missing, a refused login, a schema a newer agentry wrote, search
 * not available on it) is a usage error: one line, exit 2, no stack trace. Anything else is rethrown as it is.
 */
export function databaseUsageError(error: unknown): unknown {
  if (
    error instanceof DatabaseUnavailableError ||
    error instanceof UnsupportedDatabaseError ||
    error instanceof MigrationError
  ) {
    return new UsageError(error.message.replace(/\.$/, ''));
  }
  return error;
}

export function registryOptionsFrom(
  env: EnvSettings,
  flags: { db?: string; database?: string; embeddings?: string } & CrawlLimitFlags,
): RegistryOptions {
  const options: RegistryOptions = {
    ...env.options,
    databasePath: databaseFrom(env, flags),
  };
  for (const [flag, key, text] of [
    ['--max-agents-per-origin', 'maxAgentsPerOrigin', flags.maxAgentsPerOrigin],
    ['--max-documents-per-origin', 'maxDocumentsPerOrigin', flags.maxDocumentsPerOrigin],
  ] as const) {
    if (text === undefined) continue;
    let limit: number | null;
    try {
      limit = limitOrNone(flag, text);
    } catch (error) {
      throw new UsageError((error as Error).message.replace(/\.$/, ''));
    }
    options.crawl = { enabled: false, ...options.crawl, [key]: limit };
  }
  if (flags.embeddings === undefined) return options;
  if (!(EMBEDDING_PROVIDER_KINDS as readonly string[]).includes(flags.embeddings)) {
    throw new UsageError(
      `--embeddings must be ${EMBEDDING_PROVIDER_KINDS.join(', ')}; got "${flags.embeddings}"`,
    );
  }
  const kind = flags.embeddings as EmbeddingProviderKind;
  options.embeddings = kind;
  let chosen: ReturnType<typeof embeddingOptionsFor>;
  try {
    chosen = embeddingOptionsFor(kind, env.providers);
  } catch {
    throw new UsageError('--embeddings openai needs AGENTRY_OPENAI_BASE_URL and AGENTRY_OPENAI_MODEL');
  }
  if (chosen === undefined) delete options.embeddingOptions;
  else options.embeddingOptions = chosen;
  return options;
}
