/**
 * Test helpers for the search tests: a real SQLite file in a temp directory, migrated, and closed afterwards; and
 * (from the embedding tests) a loopback OpenAI-compatible embeddings server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Database as RegistryDatabase } from '../../src/db/database.js';
import { type SearchDocument, searchMigrations } from '../../src/search/index.js';

/** The embedding tests' loopback server, OpenAI-compatible stand-in model and cosine, shared with these tests. */
export {
  bagOfWordsEmbedding,
  cosine,
  embeddingsHandler,
  type LoopbackServer,
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

export async function openTestDatabase(
  dir = mkdtempSync(join(tmpdir(), 'agentry-search-test-')),
): Promise<TestDatabase> {
  const path = join(dir, 'registry.db');
  const db = new Kysely<RegistryDatabase>({ dialect: new SqliteDialect({ database: new Database(path) }) });
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => searchMigrations },
  }).migrateToLatest();
  if (error) throw error;
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
