/**
 * AIDIP's `status` is a free string: an agent registered as `maintenance` is `maintenance` everywhere the registry
 * shows or filters by status (GET, list summaries, search results, `?status=`, search filters, resolve's policy),
 * and a registry file written before such words were kept serves them after its migration.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseDialect } from '../../src/db/dialect.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { aidipAgent, asArray, asObject, startRegistry, type TestRegistry, tempDir } from '../support.js';

describe('every AIDIP status word, end to end', () => {
  let r: TestRegistry;
  let acme: string;

  before(async () => {
    r = await startRegistry();
    acme = (await r.token('publisher', { publisher: 'acme' })).token;
    for (const [id, status] of [
      ['tide-maintenance', 'maintenance'],
      ['tide-beta', 'Beta'],
      ['tide-active', undefined],
      ['tide-retired', 'retired'],
    ] as const) {
      const document = aidipAgent({
        id,
        name: `Tide tables ${id}`,
        description: 'Tide tables and harbour water levels for sailors.',
        ...(status === undefined ? {} : { status }),
      });
      const created = await r.request('/agents', { token: acme, body: document });
      assert.equal(created.status, 201, created.text);
    }
  });
  after(() => r.close());

  test('GET, list summaries and search results show the word the publisher chose', async () => {
    assert.equal(asObject((await r.request('/agents/tide-maintenance')).json)['status'], 'maintenance');
    const listed = asArray((await r.request('/agents?limit=100')).json);
    const statusOf = (items: Array<Record<string, unknown>>, id: string) =>
      items.find((item) => item['id'] === id)?.['status'];
    assert.equal(statusOf(listed, 'tide-maintenance'), 'maintenance');
    assert.equal(statusOf(listed, 'tide-beta'), 'beta', 'kept lower-cased, as filters compare it');
    assert.equal(asObject((await r.request('/agents/tide-beta')).json)['status'], 'beta', 'GET agrees');
    assert.equal(statusOf(listed, 'tide-active'), 'active');
    const found = asArray((await r.request('/agents?q=tide+tables')).json);
    assert.equal(statusOf(found, 'tide-maintenance'), 'maintenance');
  });

  test('status filters take any status word, in any case', async () => {
    const ids = (items: Array<Record<string, unknown>>) => items.map((item) => item['id']).sort();
    assert.deepEqual(ids(asArray((await r.request('/agents?status=maintenance')).json)), [
      'tide-maintenance',
    ]);
    assert.deepEqual(ids(asArray((await r.request('/agents?status=MAINTENANCE,beta')).json)), [
      'tide-beta',
      'tide-maintenance',
    ]);
    assert.deepEqual(ids(asArray((await r.request('/agents?q=tide&status=maintenance')).json)), [
      'tide-maintenance',
    ]);
    const searched = await r.request('/agents/search', {
      body: { query: 'tide tables', filters: { status: ['maintenance'] } },
    });
    assert.equal(searched.status, 200, searched.text);
    assert.deepEqual(ids(asArray(searched.json)), ['tide-maintenance']);
    assert.deepEqual(asArray((await r.request('/agents?status=sleeping')).json), [], 'a word no agent has');
  });

  test('resolve keeps every status but retired by default, and a policy may name any word', async () => {
    const resolve = async (policy: Record<string, unknown> = {}) => {
      const answer = await r.request('/resolve', {
        body: { intent: 'tide tables for sailors', policy, top: 10 },
      });
      assert.equal(answer.status, 200, answer.text);
      const body = asObject(answer.json);
      return asArray(body['candidates']).map((candidate) => [candidate['id'], candidate['status']]);
    };
    assert.deepEqual(
      (await resolve()).sort(),
      [
        ['tide-active', 'active'],
        ['tide-beta', 'beta'],
        ['tide-maintenance', 'maintenance'],
      ],
      'retired is left out, maintenance and beta are not',
    );
    assert.deepEqual(await resolve({ status: ['Maintenance'] }), [['tide-maintenance', 'maintenance']]);
    assert.deepEqual((await resolve({ status: ['active', 'retired'] })).map(([id]) => id).sort(), [
      'tide-active',
      'tide-retired',
    ]);
  });
});

test('a registry file that stored other words as active serves them after its migration', async () => {
  const dir = tempDir();
  const first = await startRegistry({}, { path: dir.path, remove: () => undefined });
  const acme = (await first.token('publisher', { publisher: 'acme' })).token;
  const created = await first.request('/agents', {
    token: acme,
    body: aidipAgent({ id: 'old-file', name: 'Old file agent', status: 'maintenance' }),
  });
  assert.equal(created.status, 201, created.text);
  await first.close();
  // As the registry stored it before: any word it did not know became `active`. The migration runs on that file.
  const database = new Database(first.dbPath);
  database.prepare(`UPDATE agents SET status = 'active' WHERE id = 'old-file'`).run();
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
  await storeMigrations({} as DatabaseDialect)['2026-11-27-002-status-words']!.up(db);
  await db.destroy();
  const second = await startRegistry({ databasePath: first.dbPath }, dir);
  try {
    const listed = asArray((await second.request('/agents?status=maintenance')).json);
    assert.deepEqual(
      listed.map((item) => [item['id'], item['status']]),
      [['old-file', 'maintenance']],
    );
  } finally {
    await second.close();
  }
});
