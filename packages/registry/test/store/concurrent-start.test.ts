/**
 * Registry processes started together on one new database file, as the docs allow (several processes may share a
 * file): every one starts, the migrations run once, the schema is the one a single start makes, and exactly one
 * of them shows an admin token, which is the one stored. Whether they meet each other's locks depends on timing;
 * db/sqlite-open.test.ts holds the lock on purpose for the one they raced on (the switch of the new file to WAL).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createRegistry } from '../../src/registry.js';
import { hashToken } from '../../src/store/tokens.js';
import { tempDir } from '../fixtures.js';

const child = fileURLToPath(new URL('./concurrent-start-child.ts', import.meta.url));
const PROCESSES = 3;
const ROUNDS = 2;

interface StartResult {
  adminToken?: string | null;
  error?: string;
  code?: string;
  stack?: string;
}

/** Starts `count` registry processes on `databasePath` at the same moment; their answers in start order. */
async function startTogether(databasePath: string, count: number): Promise<StartResult[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', child, databasePath], {
      env: { ...process.env, AGENTRY_ADMIN_TOKEN: '' },
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const lines = children.map((proc) => createInterface({ input: proc.stdout! })[Symbol.asyncIterator]());
  // Each has loaded the registry and waits: the slow part (loading modules) is over before any opens the file.
  for (const line of lines) assert.equal((await line.next()).value, 'ready');
  for (const proc of children) proc.stdin!.write('go\n');
  const answers = await Promise.all(
    lines.map(async (line) => JSON.parse(String((await line.next()).value)) as StartResult),
  );
  await Promise.all(children.map((proc) => (proc.exitCode === null ? once(proc, 'exit') : undefined)));
  return answers;
}

/** The tables, indexes and triggers of a database file, as SQLite stores their definitions. */
function schemaOf(databasePath: string): Array<{ type: string; name: string; sql: string | null }> {
  const db = new Database(databasePath, { readonly: true });
  try {
    return db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all() as Array<{
      type: string;
      name: string;
      sql: string | null;
    }>;
  } finally {
    db.close();
  }
}

test(`${PROCESSES} registry processes started at once on a new file all start, with one schema and one admin token`, async () => {
  const dir = tempDir();
  try {
    const alonePath = join(dir.path, 'alone.db');
    await (
      await createRegistry({ databasePath: alonePath, embeddings: 'none', backgroundEmbedding: false })
    ).close();
    const expectedSchema = schemaOf(alonePath);

    for (let round = 0; round < ROUNDS; round++) {
      const databasePath = join(dir.path, `shared-${round}.db`);
      const answers = await startTogether(databasePath, PROCESSES);
      assert.deepEqual(
        answers.filter((answer) => answer.error !== undefined),
        [],
        'every process starts',
      );
      const shown = answers.flatMap((answer) => (answer.adminToken ? [answer.adminToken] : []));
      assert.equal(shown.length, 1, `exactly one start shows an admin token: ${JSON.stringify(answers)}`);

      assert.deepEqual(schemaOf(databasePath), expectedSchema, 'the schema a single start makes');
      const db = new Database(databasePath, { readonly: true });
      try {
        const applied = db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as Array<{
          name: string;
        }>;
        assert.equal(new Set(applied.map((row) => row.name)).size, applied.length, 'each migration once');
        const admins = db.prepare("SELECT token_hash FROM tokens WHERE role = 'admin'").all() as Array<{
          token_hash: string;
        }>;
        assert.deepEqual(
          admins.map((row) => row.token_hash),
          [hashToken(shown[0]!)],
          'the token shown is the one admin token stored',
        );
      } finally {
        db.close();
      }
    }
  } finally {
    dir.remove();
  }
});
