/**
 * `run.ts --lexical postgres`: lexical-only ranking quality of the two lexical indexes side by side, SQLite's FTS5
 * (`lexical/sqlite.ts`) and PostgreSQL's (`lexical/postgres.ts`), on the same development sets. Each set's agents
 * are indexed as the registry indexes them (their search documents' lexical fields) into a temp SQLite file and a
 * temp PostgreSQL database (created on the server `AGENTRY_BENCH_POSTGRES` names, default the local one, and
 * dropped at the end), every query is parsed as the registry parses it and asked of both for its top 10. The
 * registry's other ranking steps (fusion, demotion) are left out, so the two columns differ by the engine alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, type Migration, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { MAX_QUERY_CHARS } from '../../packages/registry/src/api/queries.js';
import { lexicalFields } from '../../packages/registry/src/search/document-text.js';
import { searchMigrations } from '../../packages/registry/src/search/index.js';
import {
  createPostgresLexicalIndex,
  postgresLexicalMigrations,
} from '../../packages/registry/src/search/lexical/postgres.js';
import { parseLexicalQuery } from '../../packages/registry/src/search/lexical/query.js';
import { createSqliteLexicalIndex } from '../../packages/registry/src/search/lexical/sqlite.js';
import type { Executor, LexicalIndex } from '../../packages/registry/src/search/lexical/types.js';
import { type Dataset, searchDocumentOfAgent } from './datasets.js';
import { gainsOf, meanScores, scoreRanking } from './metrics.js';

type Tables = Executor extends Kysely<infer D> ? D : never;

export interface EngineScores {
  dataset: string;
  documents: number;
  queries: number;
  /** NDCG@10 (0–1) of lexical-only search, per engine. */
  sqlite: number;
  postgres: number;
}

export async function compareLexicalEngines(dataset: Dataset): Promise<EngineScores> {
  const server = process.env['AGENTRY_BENCH_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `agentry_bench_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(server, `CREATE DATABASE ${name}`);
  const dir = mkdtempSync(join(tmpdir(), 'agentry-lexical-bench-'));
  const sqliteDb = new Kysely<Tables>({
    dialect: new SqliteDialect({ database: new Database(join(dir, 'search.db')) }),
  });
  const postgresDb = new Kysely<Tables>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: `${server}/${name}`, max: 2 }) }),
  });
  try {
    await migrated(sqliteDb, searchMigrations);
    await migrated(postgresDb, { ...postgresLexicalMigrations });
    const engines: Array<[Kysely<Tables>, LexicalIndex]> = [
      [sqliteDb, createSqliteLexicalIndex()],
      [postgresDb, createPostgresLexicalIndex()],
    ];
    const entries = dataset.agents.map((agent) => ({
      id: agent.id,
      fields: lexicalFields(searchDocumentOfAgent(agent)),
    }));
    for (const [db, index] of engines) {
      await db.transaction().execute((trx) => index.write(trx, entries));
    }
    const scores = await Promise.all(
      engines.map(async ([db, index]) => {
        const perQuery = [];
        for (const query of dataset.queries) {
          const parsed = parseLexicalQuery(query.text.slice(0, MAX_QUERY_CHARS));
          const hits = await index.search(db, parsed, { limit: 10 });
          perQuery.push(
            scoreRanking(
              hits.map((hit) => hit.id),
              gainsOf(query.relevant, query.grades),
            ),
          );
        }
        return meanScores(perQuery).ndcg10;
      }),
    );
    return {
      dataset: dataset.name,
      documents: dataset.agents.length,
      queries: dataset.queries.length,
      sqlite: scores[0]!,
      postgres: scores[1]!,
    };
  } finally {
    await sqliteDb.destroy();
    await postgresDb.destroy();
    rmSync(dir, { recursive: true, force: true });
    await adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function migrated(db: Kysely<Tables>, migrations: Record<string, Migration>): Promise<void> {
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  }).migrateToLatest();
  if (error) throw error;
}

async function adminQuery(server: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${server}/postgres` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
