/**
 * The registry's store: one database, migrated to the latest schema on open, with a repository per concern.
 * The search index keeps its tables in the same database; its migrations are passed in and run in name order
 * beside the store's.
 */
import type { Kysely } from 'kysely';
import { type Migration, Migrator } from 'kysely';
import { AgentRepository, type MetadataWriter } from './agents.js';
import { AuditLog } from './audit.js';
import type { StoreDialect } from './dialect.js';
import { InCodeMigrationProvider, storeMigrations } from './migrations.js';
import { QualityStore } from './quality.js';
import type { RegistryTables } from './schema.js';
import { openSqlite } from './sqlite.js';
import { TokenStore } from './tokens.js';

export interface StoreOptions {
  /** The SQLite file (created when missing); `:memory:` for a throwaway store. */
  path: string;
  /** Writes the AIDIP metadata stored beside each canonical agent. */
  metadataOf: MetadataWriter;
  /** Migrations of other parts sharing the database (the search index's). */
  extraMigrations?: Record<string, Migration>;
  busyTimeoutMs?: number;
  /** The clock, ISO 8601 (tests pin it). */
  now?: () => string;
}

export class RegistryStore {
  readonly db: Kysely<RegistryTables>;
  readonly dialect: StoreDialect;
  readonly agents: AgentRepository;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly quality: QualityStore;
  #closed = false;

  private constructor(db: Kysely<RegistryTables>, dialect: StoreDialect, options: StoreOptions) {
    const now = options.now ?? (() => new Date().toISOString());
    this.db = db;
    this.dialect = dialect;
    this.agents = new AgentRepository(db, options.metadataOf, now);
    this.tokens = new TokenStore(db, now, () => dialect.changeCount());
    this.audit = new AuditLog(db);
    this.quality = new QualityStore(db, now);
  }

  /** Opens (creating when needed) and migrates the database. */
  static async open(options: StoreOptions): Promise<RegistryStore> {
    const sqliteOptions = {
      path: options.path,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    };
    const { db, dialect } = openSqlite<RegistryTables>(sqliteOptions);
    try {
      await migrate(db, dialect, { ...storeMigrations(dialect), ...options.extraMigrations });
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return new RegistryStore(db, dialect, options);
  }

  /** Changes whenever what the database holds may have changed (see `StoreDialect.changeCount`). */
  changeCount(): number {
    return this.dialect.changeCount();
  }

  /** The database's own consistency check (`['ok']` when sound). */
  async integrityCheck(): Promise<string[]> {
    return this.dialect.integrityCheck();
  }

  /** Closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.db.destroy();
  }
}

/**
 * How long a process waits for another one's migrations: processes started together on a new (or older) file
 * take turns, and the one that comes second finds them applied. A long data migration of a large file is minutes.
 */
const MIGRATION_WAIT_MS = 10 * 60_000;

/**
 * Runs the pending migrations under the database's write lock, as one transaction: whoever starts first applies
 * them; the others wait, then find them applied (Kysely's own lock does nothing on SQLite, and its check of what is
 * applied ran outside any transaction, so processes started together on one new file each tried to create the
 * tables). A failed migration leaves the file as it was.
 */
async function migrate(
  db: Kysely<RegistryTables>,
  dialect: StoreDialect,
  migrations: Record<string, Migration>,
): Promise<void> {
  const migrator = new Migrator({ db, provider: new InCodeMigrationProvider(migrations) });
  try {
    await dialect.exclusively(async () => {
      const { error, results } = await migrator.migrateToLatest();
      if (error !== undefined) {
        const failed = results?.find((result) => result.status === 'Error')?.migrationName;
        throw new MigrationError(failed, error);
      }
    }, MIGRATION_WAIT_MS);
  } catch (error) {
    if (error instanceof MigrationError) throw error;
    throw new MigrationError(undefined, error);
  }
}

class MigrationError extends Error {
  constructor(migration: string | undefined, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `The registry database could not be migrated${migration === undefined ? '' : ` (${migration})`}: ${reason}`,
      { cause },
    );
  }
}
