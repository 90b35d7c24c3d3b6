/**
 * The two places where SQLite refuses a lock at once ("database is locked") instead of waiting for it
 * (busy_timeout), on real files with a real second process: a read that must become a write while another
 * connection writes. Waiting there could deadlock (two readers each waiting for the other), so SQLite leaves it to
 * the caller; the registry's SQLite dialect (db/sqlite.ts, db/statement-cache.ts) makes both wait.
 * - Switching a new file to WAL reads its header, then writes it. Registry processes started together on a new file
 *   (store/concurrent-start.test.ts) met this when one switched the file while another read its header.
 * - A transaction that reads, then writes after another connection wrote since its read: the registry's
 *   transactions begin IMMEDIATE, taking the write lock before their first read.
 * The other process holds the lock on purpose, far longer than the microseconds in which a refusal comes, so that
 * the outcome does not depend on which process the machine runs first.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { openSqlite } from '../../src/db/sqlite.js';
import { tempDir } from '../fixtures.js';

/** Long beside the moment a refusal takes, short beside the busy timeout: how long the other process has to act. */
const HOLD_MS = 1500;
const BUSY_TIMEOUT_MS = 60_000;

/** Another process running `script` (CommonJS, `Database` is better-sqlite3, `path` the file), its output by line. */
function otherProcess(
  path: string,
  script: string,
): { child: ChildProcess; line(): Promise<string | undefined>; exited: Promise<unknown> } {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require(process.argv[1]); const path = process.argv[2];\n${script}`,
      createRequire(import.meta.url).resolve('better-sqlite3'),
      path,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, line: async () => (await lines.next()).value, exited: once(child, 'exit') };
}

describe('SQLite locks busy_timeout does not cover', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('a new file whose write lock another process holds: the open waits for it, then switches the file to WAL', async () => {
    const path = join(dir.path, 'held.db');
    // It creates the file and takes the write lock while the file is still in its first journal mode.
    const holder = otherProcess(
      path,
      `const db = new Database(path);
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('locked\\n');
       setTimeout(() => {
         db.exec('CREATE TABLE held (x)');
         db.exec('COMMIT');
         db.close();
       }, ${HOLD_MS});`,
    );
    try {
      assert.equal(await holder.line(), 'locked');
      const { db } = openSqlite({ path, busyTimeoutMs: BUSY_TIMEOUT_MS });
      try {
        const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
        assert.equal(mode.rows[0]?.journal_mode, 'wal');
        // The other process's commit came first: its table is there.
        const tables = await sql<{ name: string }>`select name from sqlite_master`.execute(db);
        assert.deepEqual(tables.rows, [{ name: 'held' }]);
      } finally {
        await db.destroy();
      }
    } finally {
      if (holder.child.exitCode === null) holder.child.kill();
      await holder.exited;
    }
  });

  test('a transaction that reads, then writes: another process writing meanwhile waits for it, and neither fails', async () => {
    const path = join(dir.path, 'marks.db');
    const { db } = openSqlite({ path, busyTimeoutMs: BUSY_TIMEOUT_MS });
    const writer = otherProcess(
      path,
      `const db = new Database(path);
       db.pragma('busy_timeout = ${BUSY_TIMEOUT_MS}');
       process.stdout.write('ready\\n');
       process.stdin.once('data', () => {
         db.prepare("insert into marks (who) values ('other')").run();
         process.stdout.write('wrote\\n');
         db.close();
         process.exit(0);
       });`,
    );
    try {
      await sql`create table marks (who text not null)`.execute(db);
      assert.equal(await writer.line(), 'ready');
      let wrote: Promise<string | undefined> | undefined;
      await db.transaction().execute(async (trx) => {
        await sql`select count(*) from marks`.execute(trx);
        writer.child.stdin!.write('write\n');
        wrote = writer.line();
        // Time for the other process to write, if it can: a transaction that took no lock at its start leaves it
        // free to, and then may not write itself (its read is no longer the newest).
        await Promise.race([wrote, delay(HOLD_MS)]);
        await sql`insert into marks (who) values ('own')`.execute(trx);
      });
      assert.equal(await wrote, 'wrote');
      const marks = await sql<{ who: string }>`select who from marks order by rowid`.execute(db);
      assert.deepEqual(
        marks.rows.map((row) => row.who),
        ['own', 'other'],
        'the other process waited for the transaction',
      );
    } finally {
      if (writer.child.exitCode === null) writer.child.kill();
      await writer.exited;
      await db.destroy();
    }
  });
});
