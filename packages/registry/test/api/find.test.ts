/**
 * Finding agents over HTTP: filters (AND, set inclusion), keyset paging, `q` and POST /agents/search ranking,
 * `updated_since` with tombstones for mirrors, and the input errors of each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { aidipAgent, asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

const TOPICS = ['weather', 'translation', 'summarization', 'flights', 'invoices'];

describe('finding agents', () => {
  let r: TestRegistry;
  let acme: string;

  before(async () => {
    r = await startRegistry();
    acme = (await r.token('publisher', { publisher: 'acme' })).token;
    const documents = Array.from({ length: 45 }, (_, index) => {
      const topic = TOPICS[index % TOPICS.length]!;
      return aidipAgent({
        id: `agent-${String(index).padStart(2, '0')}`,
        name: `${topic} agent ${index}`,
        description: `Answers questions about ${topic}. Instance ${index}.`,
        capabilities: [topic, ...(index % 2 === 0 ? ['premium'] : [])],
        tags: index % 3 === 0 ? ['nlp', 'cloud'] : ['cloud'],
        languages: index % 4 === 0 ? ['en-GB', 'fr'] : ['de'],
        ...(index % 9 === 0 ? { status: 'deprecated' } : {}),
      });
    });
    for (const document of documents) {
      const created = await r.request('/agents', { token: acme, body: document });
      assert.equal(created.status, 201, created.text);
    }
  });
  after(() => r.close());

  async function walk(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let path: string | undefined = `/agents?${query}${query === '' ? '' : '&'}limit=${limit}`;
    for (let pages = 0; path !== undefined; pages++) {
      assert.ok(pages < 100, 'the walk ends');
      const answer = await r.request(path);
      assert.equal(answer.status, 200, answer.text);
      const items = asArray(answer.json);
      assert.ok(items.length <= limit);
      ids.push(...items.map((item) => String(item['id'])));
      const link = answer.headers.get('link');
      const cursor = answer.headers.get('agentry-next-cursor');
      if (link === null) {
        assert.equal(cursor, null);
        path = undefined;
      } else {
        const match = /^<([^>]+)>; rel="next"$/.exec(link);
        assert.ok(match !== null, link);
        assert.ok(match[1]!.includes(`cursor=${cursor}`));
        path = match[1];
      }
    }
    return ids;
  }

  test('a cursor walk visits every agent once, in id order', async () => {
    const ids = await walk('', 7);
    assert.equal(ids.length, 45);
    assert.equal(new Set(ids).size, 45);
    assert.deepEqual(ids, [...ids].sort());
  });

  test('filters combine with AND; capabilities, tags and languages are set inclusion', async () => {
    const expected = (predicate: (index: number) => boolean): string[] =>
      Array.from({ length: 45 }, (_, index) => index)
        .filter(predicate)
        .map((index) => `agent-${String(index).padStart(2, '0')}`);
    assert.deepEqual(
      await walk('capabilities=weather', 4),
      expected((i) => i % 5 === 0),
    );
    assert.deepEqual(
      await walk('capabilities=weather,premium', 4),
      expected((i) => i % 5 === 0 && i % 2 === 0),
    );
    assert.deepEqual(
      await walk('capabilities=weather&capabilities=premium&tags=nlp', 3),
      expected((i) => i % 5 === 0 && i % 2 === 0 && i % 3 === 0),
    );
    assert.deepEqual(
      await walk('language=en', 5),
      expected((i) => i % 4 === 0),
    );
    assert.deepEqual(
      await walk('language=en-gb&tags=nlp', 5),
      expected((i) => i % 4 === 0 && i % 3 === 0),
    );
    assert.deepEqual(
      await walk('status=deprecated', 5),
      expected((i) => i % 9 === 0),
    );
    assert.deepEqual(
      await walk('status=active&capabilities=flights', 5),
      expected((i) => i % 5 === 3 && i % 9 !== 0),
    );
    assert.deepEqual(await walk('tags=nothing-has-this', 5), []);
  });

  test('summary objects carry what a client needs to choose (AIDIP §4.3.1)', async () => {
    const [first] = asArray((await r.request('/agents?limit=1')).json);
    assert.deepEqual(Object.keys(first!).sort(), [
      'capabilities',
      'description',
      'endpoint',
      'id',
      'name',
      'status',
      'supported_languages',
      'tags',
      'updated_at',
    ]);
    assert.equal(first!['endpoint'], 'https://agents.example.com/invoke');
  });

  test('q ranks with the search index, inside the filters, and pages by offset', async () => {
    const answer = await r.request('/agents?q=invoices&limit=3');
    assert.equal(answer.status, 200, answer.text);
    const hits = asArray(answer.json);
    assert.equal(hits.length, 3);
    for (const hit of hits) {
      assert.match(String(hit['name']), /^invoices agent/);
      assert.equal(typeof hit['score'], 'number');
      assert.ok(Array.isArray(hit['why']) && hit['why'].length > 0);
    }
    const all = await walk('q=invoices', 3);
    assert.equal(all.length, 9);
    assert.equal(new Set(all).size, 9);
    const filtered = asArray((await r.request('/agents?q=invoices&capabilities=premium')).json);
    assert.deepEqual(filtered.map((hit) => hit['id']).sort(), [
      'agent-04',
      'agent-14',
      'agent-24',
      'agent-34',
      'agent-44',
    ]);
  });

  test('POST /agents/search takes a query, AIDIP filters and top', async () => {
    const ranked = await r.request('/agents/search', {
      body: {
        query: 'questions about flights',
        filters: { capabilities: ['flights'], supported_language: 'en' },
        top: 5,
      },
    });
    assert.equal(ranked.status, 200, ranked.text);
    const hits = asArray(ranked.json);
    assert.deepEqual(hits.map((hit) => hit['id']).sort(), ['agent-08', 'agent-28']);
    assert.ok(hits.every((hit) => typeof hit['score'] === 'number' && Array.isArray(hit['why'])));

    const filtersOnly = await r.request('/agents/search', {
      body: {
        filters: { capabilities: 'translation', supported_languages: ['en', 'fr'], tags: ['nlp'] },
        top: 10,
      },
    });
    assert.deepEqual(
      asArray(filtersOnly.json).map((hit) => hit['id']),
      ['agent-36'],
    );
    assert.equal(asArray(filtersOnly.json)[0]?.['score'], undefined);
    const top = asArray((await r.request('/agents/search', { body: { query: 'agent', top: 2 } })).json);
    assert.equal(top.length, 2);
  });

  test('updated_since lists changes and tombstones, oldest first, hidden from no one it concerns', async () => {
    const created = asObject(
      (await r.request('/agents', { token: acme, body: aidipAgent({ id: 'mirror-a', name: 'Mirror A' }) }))
        .json,
    );
    const since = String(asObject(created['registry'])['updated_at']);
    await r.request('/agents', { token: acme, body: aidipAgent({ id: 'mirror-b', name: 'Mirror B' }) });
    assert.equal((await r.request('/agents/mirror-a', { method: 'DELETE', token: acme })).status, 204);
    await r.request('/agents/mirror-b', {
      method: 'PUT',
      token: acme,
      body: aidipAgent({ name: 'Mirror B', description: 'v2' }),
    });

    const changes = asArray((await r.request(`/agents?updated_since=${encodeURIComponent(since)}`)).json);
    assert.deepEqual(
      changes.map((item) => (item['deleted'] === true ? `-${item['id']}` : item['id'])),
      ['-mirror-a', 'mirror-b'],
    );
    const tombstone = changes[0]!;
    assert.deepEqual(Object.keys(tombstone).sort(), ['deleted', 'deleted_at', 'id']);
    const mirrored = changes[1]!;
    assert.equal(mirrored['description'], 'v2');
    assert.ok(Array.isArray(mirrored['operations']), 'a mirror gets the full metadata');

    const paged = await walk(`updated_since=${encodeURIComponent('2000-01-01T00:00:00Z')}`, 6);
    assert.equal(new Set(paged).size, paged.length);
    assert.equal(paged.length, 45 + 2);
  });

  test('bad parameters are refused, naming the parameter', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=ten',
      `status=${'x'.repeat(65)}`,
      'capability=weather',
      'cursor=not-a-cursor',
      'updated_since=yesterday',
      'q=x&updated_since=2026-01-01',
      'mode=psychic&q=x',
    ]) {
      const answer = await r.request(`/agents?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.text}`);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json');
      assert.equal(typeof asObject(answer.json)['parameter'], 'string', query);
    }
    // A cursor from one kind of listing is not accepted by another.
    const idCursor = (await r.request('/agents?limit=1')).headers.get('agentry-next-cursor');
    assert.equal((await r.request(`/agents?q=weather&cursor=${idCursor}`)).status, 400);

    for (const body of [
      [],
      { query: 7 },
      { query: 'x', top: 0 },
      { query: 'x', top: 1000 },
      { query: 'x', filters: { colour: ['red'] } },
      { query: 'x', filters: { tags: [1] } },
      { query: 'x', filters: { status: 'x'.repeat(65) } },
      { query: 'x', extra: true },
    ]) {
      const answer = await r.request('/agents/search', { body });
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      assert.equal(typeof asObject(answer.json)['pointer'], 'string');
    }
  });
});
