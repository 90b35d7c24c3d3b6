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
      await migrate(db, { ...storeMigrations(dialect), ...options.extraMigrations });
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

async function migrate(db: Kysely<RegistryTables>, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({ db, provider: new InCodeMigrationProvider(migrations) });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The registry database could not be migrated${failed === undefined ? '' : ` (${failed})`}: ${reason}`,
      {
        cause: error,
      },
    );
  }
}
