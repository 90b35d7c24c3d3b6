/**
 * The registry's one migration list on real SQLite files: a new database gets the schema the registry had when
 * the order was still found by sorting names (registry-schema.json, written from a database that code created);
 * a database that code migrated runs nothing again; one it left part-way runs the rest in order; one a newer
 * registry migrated is refused. And the locations `openDatabase` reads.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { type Migration, Migrator } from 'kysely';
import { crawlMigrations } from '../../src/crawl/migrations.js';
import {
  DatabaseUnavailableError,
  databaseTarget,
  MIGRATION_ORDER,
  MigrationError,
  openDatabase,
  UnsupportedDatabaseError,
} from '../../src/db/index.js';
import { openSqlite } from '../../src/db/sqlite.js';
import { federationMigrations } from '../../src/federation/migrations.js';
import { searchMigrations } from '../../src/search/migrations.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { tempDir } from '../fixtures.js';

interface SchemaEntry {
  type: string;
  name: string;
  tableName: string;
  sql: string | null;
}

const expected = JSON.parse(readFileSync(new URL('./registry-schema.json', import.meta.url), 'utf8')) as {
  migrations: string[];
  schema: SchemaEntry[];
};

function schemaOf(path: string): SchemaEntry[] {
  const database = new Database(path, { readonly: true });
  try {
    return database
      .prepare('SELECT type, name, tbl_name AS tableName, sql FROM sqlite_master ORDER BY type, name')
      .all() as SchemaEntry[];
  } finally {
    database.close();
  }
}

/** The runner's record in the order it ran them (rows are inserted as each one finishes; two may share a millisecond). */
function migrationRows(path: string): Array<{ name: string; timestamp: string }> {
  const database = new Database(path, { readonly: true });
  try {
    return database.prepare('SELECT name, timestamp FROM kysely_migration ORDER BY rowid').all() as Array<{
      name: string;
      timestamp: string;
    }>;
  } finally {
    database.close();
  }
}

/**
 * Migrates `path` as the registry did before the list: every part's migrations in one record, run by Kysely's
 * `Migrator`, which sorts their names (up to `through`, when given).
 */
async function migrateByNameOrder(path: string, through?: string): Promise<void> {
  const { db, dialect } = openSqlite({ path });
  try {
    const migrations: Record<string, Migration> = {
      ...storeMigrations(dialect),
      ...searchMigrations,
      ...crawlMigrations,
      ...federationMigrations,
    };
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error } =
      through === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(through);
    assert.equal(error, undefined);
  } finally {
    await db.destroy();
  }
}

describe('the migration list', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('is the order the names sorted in, each name once', () => {
    assert.deepEqual(MIGRATION_ORDER, expected.migrations);
    assert.equal(new Set(MIGRATION_ORDER).size, MIGRATION_ORDER.length);
  });

  test('gives a new database every migration, in order, and the schema the registry had', async () => {
    const path = join(dir.path, 'new.db');
    const opened = await openDatabase({ path });
    await opened.close();
    assert.deepEqual(opened.migrated, expected.migrations);
    assert.deepEqual(
      migrationRows(path).map((row) => row.name),
      expected.migrations,
    );
    assert.deepEqual(schemaOf(path), expected.schema);
  });

  test('runs nothing again on a database migrated by name order', async () => {
    const path = join(dir.path, 'sorted.db');
    await migrateByNameOrder(path);
    const raw = new Database(path);
    raw
      .prepare(
        `INSERT INTO tokens (id, token_hash, role, publisher, groups, created_at)
         VALUES ('tok-1', 'hash-1', 'publisher', 'acme', '[]', '2026-11-27T00:00:00.000Z')`,
      )
      .run();
    raw.close();
    const before = migrationRows(path);

    const opened = await openDatabase({ path });
    const tokens = await opened.db.selectFrom('tokens').select(['id', 'publisher']).execute();
    await opened.close();
    assert.deepEqual(opened.migrated, []);
    assert.deepEqual(migrationRows(path), before);
    assert.deepEqual(schemaOf(path), expected.schema);
    assert.deepEqual(tokens, [{ id: 'tok-1', publisher: 'acme' }]);

    const again = await openDatabase({ path });
    await again.close();
    assert.deepEqual(again.migrated, []);
  });

  test('runs the rest, in order, on a database an earlier registry left part-way', async () => {
    const path = join(dir.path, 'earlier.db');
    await migrateByNameOrder(path, '2026-11-22-204-federation-sources');
    const opened = await openDatabase({ path });
    await opened.close();
    const at = MIGRATION_ORDER.indexOf('2026-11-22-204-federation-sources');
    assert.deepEqual(opened.migrated, MIGRATION_ORDER.slice(at + 1));
    assert.deepEqual(schemaOf(path), expected.schema);
  });

  test("fills the transport and auth facets' tables for the agents a database already holds", async () => {
    const path = join(dir.path, 'facets.db');
    await migrateByNameOrder(path, '2026-11-27-100-search-lexical-restricted');
    const raw = new Database(path);
    const insert = raw.prepare(
      `INSERT INTO agents (id, owner, name, canonical, metadata, source_format, status, revision, flags, quality,
         latency_samples, created_at, updated_at)
       VALUES (?, 'acme', ?, ?, '{}', 'aidip', 'active', 1, '[]', '{}', '[]', '2026-11-27T00:00:00.000Z',
         '2026-11-27T00:00:00.000Z')`,
    );
    insert.run(
      'keyed',
      'Keyed',
      JSON.stringify({
        id: 'keyed',
        name: 'Keyed',
        bindings: [
          { kind: 'a2a', url: 'https://a.example/a2a' },
          { kind: 'mcp', server: 'https://a.example/mcp' },
        ],
        auth: { schemes: [{ id: 'key', type: 'apiKey', in: 'header', name: 'X-Key' }] },
        operations: [],
      }),
    );
    insert.run('open', 'Open', JSON.stringify({ id: 'open', name: 'Open', bindings: [], operations: [] }));
    raw.close();
    const opened = await openDatabase({ path });
    const rows = async (table: 'agent_transports' | 'agent_auth_kinds') =>
      (
        await opened.db
          .selectFrom(table)
          .select(['agent_id', 'value'])
          .orderBy('agent_id')
          .orderBy('value')
          .execute()
      ).map((row) => `${row.agent_id}:${row.value}`);
    assert.deepEqual(await rows('agent_transports'), ['keyed:a2a', 'keyed:mcp']);
    assert.deepEqual(await rows('agent_auth_kinds'), ['keyed:apikey', 'open:none']);
    await opened.close();
    assert.ok(opened.migrated.includes('2026-11-28-010-agent-transports-auth'));
  });

  test('refuses a database a newer registry migrated, and leaves it as it was', async () => {
    const path = join(dir.path, 'newer.db');
    await (await openDatabase({ path })).close();
    const raw = new Database(path);
    raw
      .prepare(`INSERT INTO kysely_migration (name, timestamp) VALUES ('2099-01-01-001-future', ?)`)
      .run(new Date().toISOString());
    raw.close();
    const before = migrationRows(path);
    await assert.rejects(openDatabase({ path }), (error: unknown) => {
      assert.ok(error instanceof MigrationError);
      assert.match(error.message, /2099-01-01-001-future/);
      return true;
    });
    assert.deepEqual(migrationRows(path), before);
  });

  test('refuses a database that lacks a migration listed before ones it has run', async () => {
    const path = join(dir.path, 'gap.db');
    await (await openDatabase({ path })).close();
    const raw = new Database(path);
    raw.prepare(`DELETE FROM kysely_migration WHERE name = '2026-11-22-001-agents-restricted'`).run();
    raw.close();
    await assert.rejects(openDatabase({ path }), /2026-11-22-001-agents-restricted/);
  });
});

describe('database locations', () => {
  test('a path, or a sqlite: URL, is a SQLite file', () => {
    assert.deepEqual(databaseTarget({ path: 'agentry.db' }), { dialect: 'sqlite', path: 'agentry.db' });
    assert.deepEqual(databaseTarget({ url: 'agentry.db' }), { dialect: 'sqlite', path: 'agentry.db' });
    assert.deepEqual(databaseTarget({ url: 'sqlite:data/agentry.db' }), {
      dialect: 'sqlite',
      path: 'data/agentry.db',
    });
    assert.deepEqual(databaseTarget({ url: 'sqlite:///var/lib/agentry.db' }), {
      dialect: 'sqlite',
      path: '/var/lib/agentry.db',
    });
    assert.deepEqual(databaseTarget({ url: 'sqlite::memory:' }), { dialect: 'sqlite', path: ':memory:' });
    assert.deepEqual(databaseTarget({ url: 'C:\\data\\agentry.db' }), {
      dialect: 'sqlite',
      path: 'C:\\data\\agentry.db',
    });
  });

  test('postgres: and postgresql: URLs are PostgreSQL; unknown schemes are refused, with nothing created', async () => {
    assert.deepEqual(databaseTarget({ url: 'postgres://127.0.0.1/agentry' }), {
      dialect: 'postgres',
      url: 'postgres://127.0.0.1/agentry',
    });
    assert.deepEqual(databaseTarget({ url: 'postgresql://127.0.0.1/agentry' }), {
      dialect: 'postgres',
      url: 'postgresql://127.0.0.1/agentry',
    });
    assert.throws(() => databaseTarget({ url: 'mysql://127.0.0.1/agentry' }), UnsupportedDatabaseError);
    assert.throws(() => databaseTarget({ url: 'sqlite:' }), UnsupportedDatabaseError);
    await assert.rejects(openDatabase({ url: 'mysql://127.0.0.1/agentry' }), UnsupportedDatabaseError);
  });

  test('a SQLite file in a folder that does not exist, or that is not SQLite, is one line saying what fixes it', async () => {
    const dir = tempDir();
    try {
      const missingFolder = join(dir.path, 'no-such-folder', 'agentry.db');
      await assert.rejects(openDatabase({ path: missingFolder }), (error: Error) => {
        assert.ok(error instanceof DatabaseUnavailableError, String(error));
        assert.match(
          error.message,
          /^The folder of the SQLite database .*no-such-folder.agentry\.db does not exist: /,
        );
        assert.match(error.message, /mkdir -p .*no-such-folder\) or fix --db/);
        return true;
      });
      assert.equal(existsSync(join(dir.path, 'no-such-folder')), false, 'nothing is created');
      const notes = join(dir.path, 'notes.txt');
      writeFileSync(notes, `${'not a database, only words. '.repeat(20)}\n`);
      await assert.rejects(openDatabase({ path: notes }), (error: Error) => {
        assert.ok(error instanceof DatabaseUnavailableError, String(error));
        assert.match(error.message, /notes\.txt is not a SQLite database: fix --db/);
        return true;
      });
    } finally {
      dir.remove();
    }
  });
});
