/**
 * Durability: a registry process killed with SIGKILL in the middle of concurrent registrations loses none that
 * it answered 201, and the database file is sound when it is opened again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { aidipAgent, asObject, send, startRegistry, tempDir } from '../support.js';

const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const ADMIN = 'crash-test-admin';

test('every agent that got a 201 survives kill -9, and the file passes integrity_check', async () => {
  const dir = tempDir();
  const databasePath = join(dir.path, 'crash.db');
  const proc = spawn(process.execPath, ['--import', 'tsx', child, databasePath], {
    env: { ...process.env, AGENTRY_ADMIN_TOKEN: ADMIN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Listened for from the start: the process may be gone before the test gets to wait for it.
  const exited = once(proc, 'exit');
  try {
    const [line] = (await Promise.race([
      once(createInterface({ input: proc.stdout! }), 'line'),
      exited.then(() => Promise.reject(new Error('the registry process exited before it listened'))),
    ])) as [string];
    const { url } = JSON.parse(line) as { url: string };
    const made = await send(url, '/admin/tokens', {
      token: ADMIN,
      body: { role: 'publisher', publisher: 'crash' },
    });
    assert.equal(made.status, 201, made.text);
    const token = String(asObject(made.json)['token']);

    const acknowledged: string[] = [];
    let sent = 0;
    let killed = false;
    const worker = async (lane: number): Promise<void> => {
      for (let index = 0; !killed && index < 500; index++) {
        const id = `crash-${lane}-${index}`;
        sent++;
        try {
          const answer = await send(url, '/agents', {
            token,
            body: aidipAgent({ id, name: `Crash ${lane} ${index}`, tags: ['crash'] }),
          });
          if (answer.status === 201) acknowledged.push(id);
          else assert.fail(`unexpected ${answer.status}: ${answer.text}`);
        } catch (error) {
          // Requests in flight when the process dies fail; only those are allowed to.
          if (!killed) throw error;
        }
        // Kill while the other lanes still have requests in flight.
        if (lane === 0 && acknowledged.length >= 60 && !killed) {
          killed = true;
          proc.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, lane) => worker(lane)));
    await exited;
    assert.ok(killed, 'the process was killed mid-way');
    assert.ok(
      acknowledged.length >= 60 && sent > acknowledged.length,
      `${acknowledged.length} acknowledged of ${sent}`,
    );

    const reopened = await startRegistry({ databasePath, adminToken: ADMIN }, dir);
    try {
      assert.deepEqual(await reopened.registry.store.integrityCheck(), ['ok']);
      for (const id of acknowledged) {
        const got = await reopened.request(`/agents/${id}`);
        assert.equal(got.status, 200, `${id} was acknowledged but is missing`);
      }
      // Each stored agent has its history and audit entries: they were written in the same transaction.
      for (const id of acknowledged.slice(0, 10)) {
        assert.equal((await reopened.registry.store.agents.history(id)).length, 1);
        assert.equal((await reopened.registry.store.audit.list({ limit: 5, target: id })).length, 1);
      }
    } finally {
      await reopened.close();
    }
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    dir.remove();
  }
});
