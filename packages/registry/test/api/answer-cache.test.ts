/**
 * Reads answered from the answer cache are never older than the last write: through the API, through the store
 * in this process, and by another connection to the same file (as `agentry crawl` beside `agentry serve`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { type Answer, aidipAgent, asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

describe('answers kept between writes', () => {
  let registry: TestRegistry;
  let publisher: string;
  before(async () => {
    registry = await startRegistry();
    publisher = (await registry.token('publisher', { publisher: 'acme' })).token;
  });
  after(() => registry.close());

  const register = (document: Record<string, unknown>): Promise<Answer> =>
    registry.request('/agents', { token: publisher, body: document });
  const ids = (answer: Answer): unknown[] => asArray(answer.json).map((summary) => summary['id']);

  it('a listing shows an agent registered after it was answered, and stops showing a deleted one', async () => {
    await register(aidipAgent({ id: 'cache-a', name: 'Cache A', tags: ['cache-test'] }));
    const first = await registry.request('/agents?tags=cache-test');
    assert.deepEqual(ids(first), ['cache-a']);
    assert.deepEqual(ids(await registry.request('/agents?tags=cache-test')), ['cache-a']);

    await register(aidipAgent({ id: 'cache-b', name: 'Cache B', tags: ['cache-test'] }));
    assert.deepEqual(ids(await registry.request('/agents?tags=cache-test')), ['cache-a', 'cache-b']);

    const deleted = await registry.request('/agents/cache-a', { method: 'DELETE', token: publisher });
    assert.equal(deleted.status, 204);
    assert.deepEqual(ids(await registry.request('/agents?tags=cache-test')), ['cache-b']);
    assert.equal((await registry.request('/agents/cache-a')).status, 404);
  });

  it('GET /agents/{id} shows an update at once, and answers 304 for its ETag only while unchanged', async () => {
    await register(aidipAgent({ id: 'cache-c', name: 'Cache C', description: 'First words.' }));
    const first = await registry.request('/agents/cache-c');
    const etag = first.headers.get('etag');
    assert.ok(etag !== null);
    const again = await registry.request('/agents/cache-c', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);

    const put = await registry.request('/agents/cache-c', {
      method: 'PUT',
      token: publisher,
      body: aidipAgent({ name: 'Cache C', description: 'Second words.' }),
    });
    assert.equal(put.status, 200);
    const changed = await registry.request('/agents/cache-c', { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.equal(asObject(changed.json)['description'], 'Second words.');
    assert.notEqual(changed.headers.get('etag'), etag);
  });

  it('feedback, which changes no revision, shows in the next read', async () => {
    await register(aidipAgent({ id: 'cache-d', name: 'Cache D', tags: ['cache-quality'] }));
    const before = asArray((await registry.request('/agents?tags=cache-quality')).json)[0]!;
    assert.equal(before['quality_score'], undefined);
    const client = (await registry.token('client')).token;
    const rated = await registry.request('/agents/cache-d/feedback', {
      token: client,
      body: { rating: 5, outcome: 'success' },
    });
    assert.equal(rated.status, 201);
    const afterRating = asArray((await registry.request('/agents?tags=cache-quality')).json)[0]!;
    assert.equal(typeof afterRating['quality_score'], 'number');
    const metadata = asObject((await registry.request('/agents/cache-d')).json);
    assert.equal(asObject(asObject(metadata['registry'])['quality'])['ratings'], 1);
  });

  it('each caller gets its own answer: the owner sees the access groups, others do not see the agent', async () => {
    await register({ ...aidipAgent({ id: 'cache-e', name: 'Cache E' }), access: { groups: ['finance'] } });
    const owner = await registry.request('/agents/cache-e', { token: publisher });
    assert.deepEqual(asObject(asObject(owner.json)['registry'])['access'], { groups: ['finance'] });
    assert.equal((await registry.request('/agents/cache-e')).status, 404);
    const member = (await registry.token('client', { groups: ['finance'] })).token;
    const seen = await registry.request('/agents/cache-e', { token: member });
    assert.equal(seen.status, 200);
    assert.equal(asObject(asObject(seen.json)['registry'])['access'], undefined);
  });

  it('a revoked token is refused on its next request', async () => {
    const client = await registry.token('client');
    assert.equal((await registry.request('/agents', { token: client.token })).status, 200);
    assert.equal((await registry.request('/agents', { token: client.token })).status, 200);
    const revoked = await registry.request(`/admin/tokens/${client.id}`, {
      method: 'DELETE',
      token: registry.admin,
    });
    assert.equal(revoked.status, 204);
    assert.equal((await registry.request('/agents', { token: client.token })).status, 401);
  });

  it('a write by another connection to the same file shows in the next read', async () => {
    await register(aidipAgent({ id: 'cache-f', name: 'Cache F', tags: ['cache-other'] }));
    assert.deepEqual(ids(await registry.request('/agents?tags=cache-other')), ['cache-f']);
    const other = new Database(registry.dbPath);
    try {
      other.prepare("update agents set status = 'deprecated' where id = 'cache-f'").run();
    } finally {
      other.close();
    }
    // Other connections' commits are looked for at most once a millisecond.
    await delay(5);
    const listed = asArray((await registry.request('/agents?tags=cache-other')).json);
    assert.equal(listed[0]?.['status'], 'deprecated');
    assert.deepEqual(ids(await registry.request('/agents?tags=cache-other&status=active')), []);
  });
});

describe('the store change count', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await startRegistry();
  });
  after(() => registry.close());

  it('stays put over reads and moves with every write', async () => {
    const { store } = registry.registry;
    const start = store.changeCount();
    await store.agents.list({ caller: { kind: 'admin', groups: [] }, filters: {}, limit: 5 });
    await store.audit.list({ limit: 5 });
    assert.equal(store.changeCount(), start);
    await store.tokens.create({ role: 'client' }, 'admin');
    const afterWrite = store.changeCount();
    assert.notEqual(afterWrite, start);
    await delay(5);
    assert.equal(store.changeCount(), afterWrite);
    // A write that reads rows back is still a write.
    await store.db
      .insertInto('audit_log')
      .values({ at: new Date().toISOString(), actor: 'test', action: 'test', target: 'x', details: '{}' })
      .returning('seq')
      .execute();
    assert.notEqual(store.changeCount(), afterWrite);
  });
});
