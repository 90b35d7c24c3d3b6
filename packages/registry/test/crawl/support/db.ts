/**
 * A real SQLite file in a temporary directory with the crawl migrations applied, and a sink over the same file:
 * the tests' stand-in for the registry's store, recording every sink call so tests can check what the crawler said.
 * On PostgreSQL (`crawlDatabases('postgres')`), the crawl's tables are in a fresh database of the local server,
 * migrated as the registry migrates it and dropped at the end, and the sink keeps its SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, type Migration, type MigrationProvider, Migrator, SqliteDialect } from 'kysely';
import { crawlMigrations } from '../../../src/crawl/migrations.js';
import type { CrawledAgent, CrawlSink, LivenessResult } from '../../../src/crawl/types.js';
import type { Database as RegistryDatabase } from '../../../src/db/database.js';
import type { DialectName } from '../../../src/db/dialect.js';
import { openDatabase } from '../../../src/db/open.js';
import { countingDatabase } from '../../../src/db/statement-cache.js';
import { freshPostgresDatabase } from '../../db/postgres-fixture.js';

export interface TestDatabase {
  path: string;
  db: Kysely<RegistryDatabase>;
  sqlite: Database.Database;
  sink: SqliteSink;
  close(): Promise<void>;
  /** Closes and deletes the directory. */
  remove(): Promise<void>;
}

export async function openTestDatabase(existing?: string): Promise<TestDatabase> {
  const dir = existing ?? mkdtempSync(join(tmpdir(), 'agentry-crawl-'));
  const path = join(dir, 'registry.db');
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Statements kept prepared, as the registry's store keeps them (src/db/statement-cache.ts).
  const db = new Kysely<RegistryDatabase>({
    dialect: new SqliteDialect({ database: countingDatabase(sqlite) }),
  });
  await migrate(db);
  const sink = new SqliteSink(sqlite);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await db.destroy();
  };
  return {
    path,
    db,
    sqlite,
    sink,
    close,
    async remove() {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A database for each test of a suite, on one dialect; `close` ends them all (drops the PostgreSQL database). */
export interface CrawlDatabases {
  readonly dialect: DialectName;
  /** A database with empty crawl tables and a new sink. */
  fresh(): Promise<TestDatabase>;
  /** On PostgreSQL: `postgres://…` of the database, for other crawlers (replicas) to open. */
  readonly url?: string;
  close(): Promise<void>;
}

const CRAWL_TABLES = ['crawl_agents', 'crawl_bodies', 'crawl_documents', 'crawl_hosts'] as const;

export async function crawlDatabases(dialect: DialectName): Promise<CrawlDatabases> {
  if (dialect === 'sqlite') return { dialect, fresh: () => openTestDatabase(), close: async () => {} };
  const server = await freshPostgresDatabase();
  let opened: Awaited<ReturnType<typeof openDatabase>>;
  try {
    opened = await openDatabase({ url: server.url });
  } catch (error) {
    await server.drop();
    throw error;
  }
  const { db } = opened;
  return {
    dialect,
    url: server.url,
    async fresh() {
      // One database for the suite, emptied for each test: creating and migrating one per test costs more than
      // the tests themselves.
      for (const table of CRAWL_TABLES) await db.deleteFrom(table).execute();
      const sinkFile = await openTestDatabase();
      return { ...sinkFile, db };
    },
    async close() {
      await opened.close();
      await server.drop();
    },
  };
}

export async function migrate(db: Kysely<RegistryDatabase>): Promise<void> {
  const provider: MigrationProvider = {
    getMigrations: async (): Promise<Record<string, Migration>> => crawlMigrations,
  };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error !== undefined) throw error;
}

export interface SinkAgent {
  origin: string;
  agentId: string;
  state: 'active' | 'inactive' | 'tombstoned';
  crawled: CrawledAgent;
  upserts: number;
  liveness?: LivenessResult;
}

/** Agents keyed by (origin, agent id), as the crawler reported them, plus a log of every call. */
export class SqliteSink implements CrawlSink {
  readonly #statements = new Map<string, Database.Statement>();

  constructor(private readonly sqlite: Database.Database) {
    sqlite.exec(`
      CREATE TABLE IF NOT EXISTS sink_agents (
        origin TEXT NOT NULL, agent_id TEXT NOT NULL, state TEXT NOT NULL, crawled TEXT NOT NULL,
        upserts INTEGER NOT NULL, liveness TEXT, PRIMARY KEY (origin, agent_id));
      CREATE TABLE IF NOT EXISTS sink_calls (seq INTEGER PRIMARY KEY AUTOINCREMENT, call TEXT NOT NULL,
        origin TEXT NOT NULL, agent_id TEXT NOT NULL);
    `);
  }

  async upsertCrawled(origin: string, agents: readonly CrawledAgent[]): Promise<void> {
    const upsert = this.#prepare(`
      INSERT INTO sink_agents (origin, agent_id, state, crawled, upserts) VALUES (?, ?, 'active', ?, 1)
      ON CONFLICT (origin, agent_id) DO UPDATE SET state = 'active', crawled = excluded.crawled,
        upserts = upserts + 1`);
    this.sqlite.transaction(() => {
      for (const agent of agents) {
        upsert.run(origin, agent.id, JSON.stringify(agent));
        this.#log('upsert', origin, agent.id);
      }
    })();
  }

  async markInactive(origin: string, agentIds: readonly string[]): Promise<void> {
    this.#setState(origin, agentIds, 'inactive');
  }

  async tombstone(origin: string, agentIds: readonly string[]): Promise<void> {
    this.#setState(origin, agentIds, 'tombstoned');
  }

  async recordLiveness(origin: string, agentId: string, result: LivenessResult): Promise<void> {
    this.#prepare('UPDATE sink_agents SET liveness = ? WHERE origin = ? AND agent_id = ?').run(
      JSON.stringify(result),
      origin,
      agentId,
    );
    this.#log('liveness', origin, agentId);
  }

  agents(origin?: string): SinkAgent[] {
    const rows = (
      origin === undefined
        ? this.sqlite.prepare('SELECT * FROM sink_agents ORDER BY origin, agent_id').all()
        : this.sqlite.prepare('SELECT * FROM sink_agents WHERE origin = ? ORDER BY agent_id').all(origin)
    ) as Array<{
      origin: string;
      agent_id: string;
      state: SinkAgent['state'];
      crawled: string;
      upserts: number;
      liveness: string | null;
    }>;
    return rows.map((row) => ({
      origin: row.origin,
      agentId: row.agent_id,
      state: row.state,
      crawled: JSON.parse(row.crawled) as CrawledAgent,
      upserts: row.upserts,
      ...(row.liveness === null ? {} : { liveness: JSON.parse(row.liveness) as LivenessResult }),
    }));
  }

  agent(origin: string, agentId: string): SinkAgent | undefined {
    return this.agents(origin).find((agent) => agent.agentId === agentId);
  }

  calls(): Array<{ call: string; origin: string; agentId: string }> {
    const rows = this.sqlite
      .prepare('SELECT call, origin, agent_id FROM sink_calls ORDER BY seq')
      .all() as Array<{
      call: string;
      origin: string;
      agent_id: string;
    }>;
    return rows.map((row) => ({ call: row.call, origin: row.origin, agentId: row.agent_id }));
  }

  #setState(origin: string, agentIds: readonly string[], state: SinkAgent['state']): void {
    const update = this.#prepare('UPDATE sink_agents SET state = ? WHERE origin = ? AND agent_id = ?');
    this.sqlite.transaction(() => {
      for (const id of agentIds) {
        update.run(state, origin, id);
        this.#log(state === 'inactive' ? 'inactive' : 'tombstone', origin, id);
      }
    })();
  }

  #log(call: string, origin: string, agentId: string): void {
    this.#prepare('INSERT INTO sink_calls (call, origin, agent_id) VALUES (?, ?, ?)').run(
      call,
      origin,
      agentId,
    );
  }

  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
