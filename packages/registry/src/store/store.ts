/**
 * The registry's store: the agents, tokens, history, audit log and quality signals, with a repository per concern,
 * over the registry's one database (db/), opened and migrated to the latest schema (every part's tables) on open.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { DatabaseDialect } from '../db/dialect.js';
import { type DatabaseLocation, openDatabase } from '../db/open.js';
import { AgentRepository, type MetadataWriter } from './agents.js';
import { AuditLog } from './audit.js';
import { FacetIndex } from './facet-index.js';
import { QualityStore } from './quality.js';
import { TokenStore } from './tokens.js';

/** Where the database is (`path`: a SQLite file, created when missing, `:memory:` for a throwaway store; or `url`). */
export type StoreOptions = DatabaseLocation & {
  /** Writes the AIDIP metadata stored beside each canonical agent. */
  metadataOf: MetadataWriter;
  busyTimeoutMs?: number;
  /** The clock, ISO 8601 (tests pin it). */
  now?: () => string;
};

export class RegistryStore {
  /** The registry's database: every part's tables (the search index, the crawler and the federation keep theirs here). */
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
  readonly agents: AgentRepository;
  /**
   * Each agent's facet values in memory (facet-index.ts): GET /facets counts from it, and filtered lists and
   * search scopes answer from it once it is loaded. Nothing reads it until asked (the facets route warms it).
   */
  readonly facets: FacetIndex;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly quality: QualityStore;
  #closed = false;
  readonly #close: () => Promise<void>;

  private constructor(
    db: Kysely<Database>,
    dialect: DatabaseDialect,
    close: () => Promise<void>,
    options: StoreOptions,
  ) {
    const now = options.now ?? (() => new Date().toISOString());
    this.db = db;
    this.dialect = dialect;
    this.#close = close;
    this.facets = new FacetIndex(
      db,
      dialect.name,
      () => dialect.changeCount(),
      dialect.changeCountNow?.bind(dialect),
    );
    this.agents = new AgentRepository(db, dialect, options.metadataOf, now, this.facets);
    this.tokens = new TokenStore(db, now, () => dialect.changeCount());
    this.audit = new AuditLog(db);
    this.quality = new QualityStore(db, now);
  }

  /** Opens (creating when needed) and migrates the database. */
  static async open(options: StoreOptions): Promise<RegistryStore> {
    const { db, dialect, close } = await openDatabase(options);
    return new RegistryStore(db, dialect, close, options);
  }

  /** Changes whenever what the database holds may have changed (see `DatabaseDialect.changeCount`). */
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
    await this.#close();
  }
}
