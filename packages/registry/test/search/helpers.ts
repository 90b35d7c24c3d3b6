/**
 * Test helpers for the search tests: a real SQLite file in a temp directory, migrated, and closed afterwards; and
 * (from the embedding tests) a loopback OpenAI-compatible embeddings server.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddingProvider } from '@agentry/embeddings';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Database as RegistryDatabase } from '../../src/db/database.js';
import type { DatabaseDialect } from '../../src/db/dialect.js';
import { openDatabase } from '../../src/db/open.js';
import {
  createSearchIndex as createIndex,
  type SearchDocument,
  type SearchIndex,
  type SearchIndexOptions,
  searchMigrations,
} from '../../src/search/index.js';
import type { LexicalFields } from '../../src/search/lexical/types.js';
import { type LeasedDatabase, leasePostgresDatabase } from '../db/postgres-pool.js';
import { testDialect } from '../test-dialect.js';

/** The embedding tests' loopback server, OpenAI-compatible stand-in model and cosine, shared with these tests. */
export {
  bagOfWordsEmbedding,
  cosine,
  embeddingsHandler,
  type LoopbackServer,
  seededUniform,
  startServer,
} from '../../../embeddings/test/helpers.js';

export interface TestDatabase {
  db: Kysely<RegistryDatabase>;
  path: string;
  /** Closes this connection (the file stays, for a restart). */
  close(): Promise<void>;
  /** Opens the same file again. */
  reopen(): Promise<TestDatabase>;
  /** Closes and deletes the directory. */
  dispose(): Promise<void>;
}

/** The dialects of the databases opened here (PostgreSQL's), for `createSearchIndex` below. */
const dialects = new WeakMap<Kysely<RegistryDatabase>, DatabaseDialect>();

/** Whether the indexes made here rank lexically in memory whatever their size (`rankLexicallyInMemory`). */
let lexicalInMemory = false;

/**
 * Makes every index of `createSearchIndex` below (that sets no threshold of its own) rank lexically in memory
 * (lexical/memory-mirror.ts) for the rest of this process: a suite's in-memory run calls it before importing the
 * suite's files, as test-dialect.ts's choice of database.
 */
export function rankLexicallyInMemory(): void {
  lexicalInMemory = true;
}

/**
 * Whether `rankLexicallyInMemory` was called in this process: a case that makes no index through
 * `createSearchIndex` below (a registry started whole) runs the same either way, so a suite's in-memory run leaves
 * it to the stored run instead of running it twice.
 */
export function rankingLexicallyInMemory(): boolean {
  return lexicalInMemory;
}

/**
 * The search index on a database of this file: on PostgreSQL with its dialect (its lexical engine and change
 * counter), as the registry makes it; on SQLite as it is.
 */
export function createSearchIndex(
  db: Kysely<RegistryDatabase>,
  provider: EmbeddingProvider | undefined,
  options: SearchIndexOptions = {},
): Promise<SearchIndex> {
  const dialect = dialects.get(db);
  return createIndex(db, provider, {
    ...(dialect === undefined ? {} : { dialect }),
    ...(lexicalInMemory ? { lexicalInMemoryFrom: 0 } : {}),
    ...options,
  });
}

/**
 * A search database on the dialect test-dialect.ts chose: a SQLite file in `dir` with the search tables, or a
 * migrated PostgreSQL database that holds nothing (given back by `dispose`, dropped at the end of the file).
 */
export async function openTestDatabase(
  dir = mkdtempSync(join(tmpdir(), 'agentry-search-test-')),
): Promise<TestDatabase> {
  if (testDialect() === 'postgres') {
    rmSync(dir, { recursive: true, force: true });
    return openPostgresTestDatabase(await leasePostgresDatabase());
  }
  const path = join(dir, 'registry.db');
  // A new file is a copy of one migrated once per process: migrating commits a transaction a migration, and each
  // commit waits for the disk (~0.2 s a file on a busy machine, a twentieth of it CPU), which tests that open a
  // database per case or per property run paid again and again. A file that exists (`reopen`) is opened as it is.
  if (!existsSync(path)) copyFileSync(await migratedTemplate(), path);
  const db = new Kysely<RegistryDatabase>({ dialect: new SqliteDialect({ database: new Database(path) }) });
  let closed = false;
  const close = async () => {
    if (!closed) await db.destroy();
    closed = true;
  };
  return {
    db,
    path,
    close,
    reopen: () => openTestDatabase(dir),
    async dispose() {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let template: Promise<string> | undefined;

/** A SQLite file with the search tables, migrated once per process and removed when it exits. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-search-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'registry.db');
    const db = new Kysely<RegistryDatabase>({ dialect: new SqliteDialect({ database: new Database(path) }) });
    try {
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: async () => searchMigrations },
      }).migrateToLatest();
      if (error) throw error;
    } finally {
      await db.destroy();
    }
    return path;
  })();
  return template;
}

export function doc(id: string, fields: Partial<Omit<SearchDocument, 'id'>> = {}): SearchDocument {
  return {
    id,
    name: fields.name ?? id,
    description: fields.description ?? '',
    tags: fields.tags ?? [],
    capabilities: fields.capabilities ?? [],
    operations: fields.operations ?? [],
  };
}

/** The lexical index's fields of one agent: those given, every other one empty. */
export function lexicalFieldsOf(given: Partial<LexicalFields> = {}): LexicalFields {
  return {
    name: '',
    description: '',
    tags: '',
    capabilities: '',
    operationNames: '',
    operationText: '',
    parameters: '',
    ...given,
  };
}

async function openPostgresTestDatabase(database: LeasedDatabase): Promise<TestDatabase> {
  const opened = await openDatabase({ url: database.url });
  dialects.set(opened.db, opened.dialect);
  let closed = false;
  const close = async () => {
    if (!closed) await opened.close();
    closed = true;
  };
  return {
    db: opened.db,
    path: database.url,
    close,
    reopen: () => openPostgresTestDatabase(database),
    async dispose() {
      await close();
      database.release();
    },
  };
}
