/**
 * The crawler's migrations over a database that already holds crawls: bodies stored in document rows by the first
 * schema move to their own table, and come back on the way down; hosts gain (and lose) the column their
 * revalidations are kept in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, type MigrationProvider, Migrator, SqliteDialect, sql } from 'kysely';
import { crawlMigrations } from '../../src/crawl/migrations.js';

test('bodies move out of the document rows and back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-crawl-migrations-'));
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database: new Database(join(dir, 'crawl.db')) }),
  });
  try {
    const provider: MigrationProvider = { getMigrations: async () => crawlMigrations };
    const migrator = new Migrator({ db, provider });
    assert.equal((await migrator.migrateTo('2026-11-21-201-crawl-due-order')).error, undefined);
    await sql`insert into crawl_documents (origin, url, status, fetched_at, expires_at, source, body)
      values ('https://a.example', 'https://a.example/.well-known/woa.json', 'ok', 'x', 'y', 'native', '{"woa_version":"1"}'),
             ('https://a.example', 'https://a.example/agent.json', 'missing', 'x', 'y', 'native', null)`.execute(
      db,
    );

    assert.equal((await migrator.migrateToLatest()).error, undefined);
    const bodies = await sql<{ url: string; body: string }>`select url, body from crawl_bodies`.execute(db);
    assert.deepEqual(bodies.rows, [
      { url: 'https://a.example/.well-known/woa.json', body: '{"woa_version":"1"}' },
    ]);
    const documents = await sql<Record<string, unknown>>`select * from crawl_documents order by url`.execute(
      db,
    );
    assert.ok(documents.rows.every((row) => !('body' in row) && row['digest'] === null));
    const hostColumns = await sql<{
      name: string;
    }>`select name from pragma_table_info('crawl_hosts')`.execute(db);
    assert.ok(
      hostColumns.rows.some((column) => column.name === 'revalidated'),
      'hosts keep their revalidations',
    );

    assert.equal((await migrator.migrateTo('2026-11-21-201-crawl-due-order')).error, undefined);
    const restored = await sql<{ url: string; body: string | null }>`select url, body from crawl_documents
      order by url`.execute(db);
    assert.deepEqual(restored.rows, [
      { url: 'https://a.example/.well-known/woa.json', body: '{"woa_version":"1"}' },
      { url: 'https://a.example/agent.json', body: null },
    ]);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});
