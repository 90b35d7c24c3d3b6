/**
 * Two registry processes writing one database file at once, as `agentry crawl` beside `agentry serve` do: every
 * registration through either is answered 201 (none fails with "database is locked"), and every agent stored is
 * in the search index too.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { aidipAgent, send, tempDir } from '../support.js';

const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const ADMIN = 'two-processes-admin';
const PER_PROCESS = 120;
const LANES = 4;

/** A registry process on `databasePath`; resolves with its URL once it listens. */
async function startProcess(databasePath: string): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, databasePath], {
    env: { ...process.env, AGENTRY_ADMIN_TOKEN: ADMIN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(proc, 'exit');
  const [line] = (await Promise.race([
    once(createInterface({ input: proc.stdout! }), 'line'),
    exited.then(() => Promise.reject(new Error('the registry process exited before it listened'))),
  ])) as [string];
  return { url: (JSON.parse(line) as { url: string }).url, proc };
}

test('two registry processes on one file register side by side without losing a write', async () => {
  const dir = tempDir();
  const databasePath = join(dir.path, 'shared.db');
  // The first creates the file and its tables; the second then opens it as `agentry crawl` opens serve's.
  const first = await startProcess(databasePath);
  const second = await startProcess(databasePath);
  try {
    const statuses = new Map<number, number>();
    const register = async (url: string, name: string): Promise<void> => {
      const lanes = Array.from({ length: LANES }, async (_, lane) => {
        for (let index = lane; index < PER_PROCESS; index += LANES) {
          const id = `${name}-${index}`;
          const answer = await send(url, '/agents', {
            token: ADMIN,
            body: aidipAgent({
              id,
              name: `Shared ${name} ${index}`,
              description: `Writes ${id} beside another.`,
            }),
          });
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status !== 201) assert.fail(`${id}: ${answer.status} ${answer.text}`);
        }
      });
      await Promise.all(lanes);
    };
    await Promise.all([register(first.url, 'first'), register(second.url, 'second')]);
    assert.deepEqual([...statuses], [[201, 2 * PER_PROCESS]]);
  } finally {
    for (const { proc } of [first, second]) {
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      await exited;
    }
  }

  const db = new Database(databasePath, { readonly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).pluck().get() as number) ?? 0;
    assert.equal(count('SELECT count(*) FROM agents'), 2 * PER_PROCESS);
    // Indexed as well as stored: a lexical row and a vector row (pending, without a provider) per agent.
    assert.equal(count('SELECT count(*) FROM search_lexical_rows'), 2 * PER_PROCESS);
    assert.equal(count('SELECT count(*) FROM search_vectors'), 2 * PER_PROCESS);
  } finally {
    db.close();
    dir.remove();
  }
});
