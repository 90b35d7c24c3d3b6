/**
 * The registry's migrations, in one ordered list, and the runner that applies them. Each part keeps its own
 * migrations beside its tables (store/, search/, crawl/, federation/); this list alone says in which order they
 * run. A migration's name is what a database records once it has run it (`kysely_migration`), so names never
 * change and a new migration is appended at the end of the list, whatever its name says. The names carry dates
 * because they were once sorted to find the order; the list is that order, written out.
 */
import { AgentryError, type AgentryErrorCode } from '@agentry/core';
import type { Kysely, Migration } from 'kysely';
import { crawlMigrations } from '../crawl/migrations.js';
import { federationMigrations } from '../federation/migrations.js';
import { searchMigrationsFor } from '../search/migrations.js';
import { storeMigrations } from '../store/migrations.js';
import type { Database } from './database.js';
import type { DatabaseDialect } from './dialect.js';

/** Every migration, in the order a new database runs them (the order every existing database ran them in). */
export const MIGRATION_ORDER: readonly string[] = [
  '2026-11-21-001-agents',
  '2026-11-21-002-history',
  '2026-11-21-003-access',
  '2026-11-21-100-search-lexical',
  '2026-11-21-100-search-vectors',
  '2026-11-21-200-crawl-queue',
  '2026-11-21-201-crawl-due-order',
  '2026-11-21-202-crawl-bodies',
  '2026-11-21-203-crawl-revalidated',
  '2026-11-22-001-agents-restricted',
  '2026-11-22-100-search-demotions',
  '2026-11-22-101-search-changes',
  '2026-11-22-204-federation-sources',
  '2026-11-27-001-verified-provenance',
  '2026-11-27-002-status-words',
  '2026-11-27-010-agent-identity',
  '2026-11-27-100-search-lexical-restricted',
  '2026-11-28-100-search-lexical-postgres',
  '2026-11-28-010-agent-transports-auth',
  '2026-11-28-011-agent-sources-facet-indexes',
  '2026-11-28-101-search-lexical-postings',
  '2026-11-28-012-agent-changes',
];

export interface NamedMigration extends Migration {
  readonly name: string;
}

/**
 * The registry's migrations for `dialect`, in `MIGRATION_ORDER`. Throws when a part has a migration the list does
 * not place, or the list names one no part has: a new migration is added to both, never to one.
 */
export function registryMigrations(dialect: DatabaseDialect): NamedMigration[] {
  const parts: Array<Record<string, Migration>> = [
    storeMigrations(dialect),
    searchMigrationsFor(dialect),
    crawlMigrations,
    federationMigrations,
  ];
  const byName = new Map<string, Migration>();
  for (const part of parts) {
    for (const [name, migration] of Object.entries(part)) {
      if (byName.has(name)) throw new Error(`Two parts of the registry have a migration named ${name}`);
      byName.set(name, migration);
    }
  }
  const unplaced = [...byName.keys()].filter((name) => !MIGRATION_ORDER.includes(name));
  if (unplaced.length > 0) throw new Error(`Migrations missing from MIGRATION_ORDER: ${unplaced.join(', ')}`);
  return MIGRATION_ORDER.map((name) => {
    const migration = byName.get(name);
    if (migration === undefined) throw new Error(`MIGRATION_ORDER names ${name}, which no part has`);
    return { ...migration, name };
  });
}

/**
 * The tables the runner keeps its record in: Kysely's `Migrator` made them (every existing database has them),
 * and they are made the same way here, so that a file has one shape whichever version created it.
 */
type MigrationTables = {
  kysely_migration: { name: string; timestamp: string };
  kysely_migration_lock: { id: string; is_locked: number };
};

/**
 * How long a process waits for another one's migrations: processes started together on a new (or older) file
 * take turns, and the one that comes second finds them applied. A long data migration of a large file is minutes.
 */
const MIGRATION_WAIT_MS = 10 * 60_000;

/**
 * Runs the pending `migrations`, in the list's order, under the database's write lock and as one transaction:
 * whoever starts first applies them; the others wait, then find them applied. A failed migration leaves the
 * database as it was. Returns the names of the migrations this call ran (none when the database was up to date).
 *
 * Refuses a database that has run a migration the list does not hold (a newer registry wrote it), or that lacks
 * one listed before the last it has run (its history is not this list's).
 */
export async function migrate(
  _database: Kysely<Database>,
  dialect: DatabaseDialect,
  migrations: readonly NamedMigration[],
  now: () => string = () => new Date().toISOString(),
): Promise<string[]> {
  try {
    return await dialect.exclusively(async (trx) => {
      const db = trx.withTables<MigrationTables>();
      await db.schema
        .createTable('kysely_migration')
        .ifNotExists()
        .addColumn('name', 'varchar(255)', (col) => col.notNull().primaryKey())
        .addColumn('timestamp', 'varchar(255)', (col) => col.notNull())
        .execute();
      await db.schema
        .createTable('kysely_migration_lock')
        .ifNotExists()
        .addColumn('id', 'varchar(255)', (col) => col.notNull().primaryKey())
        .addColumn('is_locked', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db
        .insertInto('kysely_migration_lock')
        .values({ id: 'migration_lock', is_locked: 0 })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();

      const applied = new Set(
        (await db.selectFrom('kysely_migration').select('name').execute()).map((row) => row.name),
      );
      const known = new Set(migrations.map((migration) => migration.name));
      const unknown = [...applied].filter((name) => !known.has(name));
      if (unknown.length > 0) {
        throw new MigrationError(
          undefined,
          `it has run migrations this registry does not know (${unknown.join(', ')}): a newer version wrote it`,
        );
      }
      const lastApplied = migrations.findLastIndex((migration) => applied.has(migration.name));
      const skipped = migrations
        .slice(0, Math.max(0, lastApplied))
        .find((migration) => !applied.has(migration.name));
      if (skipped !== undefined) {
        throw new MigrationError(skipped.name, 'it has run later migrations without this one');
      }

      const ran: string[] = [];
      for (const migration of migrations.slice(lastApplied + 1)) {
        try {
          await migration.up(db);
        } catch (error) {
          throw new MigrationError(migration.name, error);
        }
        await db.insertInto('kysely_migration').values({ name: migration.name, timestamp: now() }).execute();
        ran.push(migration.name);
      }
      return ran;
    }, MIGRATION_WAIT_MS);
  } catch (error) {
    if (error instanceof MigrationError) throw error;
    throw new MigrationError(undefined, error);
  }
}

/** The database could not be brought to this registry's schema; it is left as it was. */
export class MigrationError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InternalError';

  constructor(migration: string | undefined, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `The registry database could not be migrated${migration === undefined ? '' : ` (${migration})`}: ${reason}`,
      { cause },
    );
  }
}
