/**
 * Hostile lists (issue #20): a small request must not make a large answer, and a long list must be a 400 naming
 * the field and its limit, never a 500 from a statement the database refuses. Every answer is checked against the
 * OpenAPI document by the test registry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readDocument } from '@agentry/core';
import { AGENT_LIST_LIMITS, MAX_FILTER_VALUES } from '../../src/api/list-limits.js';
import { MAX_LISTED_FAILURES } from '../../src/api/problems.js';
import type { CrawledAgent } from '../../src/crawl/types.js';
import { aidipAgent, startRegistry, type TestRegistry } from '../support.js';

let r: TestRegistry;

before(async () => {
  r = await startRegistry();
});
after(async () => {
  await r.close();
});

function asObject(value: unknown): Record<string, unknown> {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), JSON.stringify(value));
  return value as Record<string, unknown>;
}

const many = (count: number, prefix = 'v'): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('problem answers list a bounded number of failures', () => {
  test('a registration with 20,000 wrong operations gets the first 100 failures and a count of the rest', async () => {
    const document = aidipAgent({ name: 'Noisy' });
    document['operations'] = Array.from({ length: 20_000 }, (_, i) => ({ id: `op${i}`, name: 5 }));
    const answer = await r.request('/agents', { method: 'POST', token: r.admin, body: document });
    assert.equal(answer.status, 400);
    const body = asObject(answer.json);
    const errors = body['errors'] as unknown[];
    assert.equal(errors.length, MAX_LISTED_FAILURES);
    assert.ok(
      Number(body['errors_truncated']) > 20_000 - MAX_LISTED_FAILURES,
      String(body['errors_truncated']),
    );
    assert.ok(answer.text.length < 64 * 1024, `the answer is ${answer.text.length} bytes`);
  });

  test('a resolve request with thousands of bad values says so in a bounded answer', async () => {
    const answer = await r.request('/resolve', {
      method: 'POST',
      body: { intent: 'translate', policy: { languages: Array.from({ length: 5000 }, () => '') } },
    });
    assert.equal(answer.status, 400);
    const body = asObject(answer.json);
    assert.ok((body['errors'] as unknown[]).length <= MAX_LISTED_FAILURES);
    assert.ok(answer.text.length < 64 * 1024, `the answer is ${answer.text.length} bytes`);
  });
});

describe('long lists are refused with the field and its limit', () => {
  for (const field of ['tags', 'capabilities', 'languages'] as const) {
    test(`an agent listing 20,000 ${field} is a 400 naming ${field} and ${AGENT_LIST_LIMITS[field]}`, async () => {
      const answer = await r.request('/agents', {
        method: 'POST',
        token: r.admin,
        body: aidipAgent({
          name: `Many ${field}`,
          [field]: many(20_000, field === 'languages' ? 'x-' : 'v'),
        }),
      });
      assert.equal(answer.status, 400, answer.text.slice(0, 300));
      const body = asObject(answer.json);
      assert.equal(body['field'], field);
      assert.equal(body['limit'], AGENT_LIST_LIMITS[field]);
      assert.match(String(body['detail']), new RegExp(`20000 ${field}.*at most ${AGENT_LIST_LIMITS[field]}`));
    });
  }

  test('a search filtering on 20,000 tags is a 400 naming the filter and the limit', async () => {
    const answer = await r.request('/agents/search', {
      method: 'POST',
      body: { query: 'x', filters: { tags: many(20_000) } },
    });
    assert.equal(answer.status, 400);
    const body = asObject(answer.json);
    assert.equal(body['pointer'], '/filters/tags');
    assert.match(
      String(body['detail']),
      new RegExp(`"tags" names 20000 values.*at most ${MAX_FILTER_VALUES}`),
    );
  });

  test('a listing filtering on too many capabilities is a 400 naming the parameter', async () => {
    const answer = await r.request(`/agents?capabilities=${many(MAX_FILTER_VALUES + 1).join(',')}`);
    assert.equal(answer.status, 400);
    const body = asObject(answer.json);
    assert.equal(body['parameter'], 'capabilities');
    assert.match(String(body['detail']), /at most 50/);
  });

  test('a filter within the limit still works', async () => {
    const answer = await r.request(`/agents?tags=${many(MAX_FILTER_VALUES).join(',')}`);
    assert.equal(answer.status, 200);
  });
});

describe('the store binds a bounded number of values per statement', () => {
  test('a crawled agent with 20,000 tags (not checked by the API) is stored and found by one of them', async () => {
    const read = readDocument(aidipAgent({ id: 'tagged', name: 'Tagged', tags: many(20_000, 't') }));
    const agent = read.agents[0]!;
    const crawled: CrawledAgent = {
      id: 'tagged',
      agent,
      sources: [
        {
          url: 'https://spam.example/agent.json',
          format: 'aidip',
          origin: 'native',
          fetchedAt: '2026-01-01T00:00:00.000Z',
          primary: true,
        },
      ],
      synthetic: false,
      foreignClaims: [],
    };
    await r.registry.crawlSink.upsertCrawled('https://spam.example', [crawled]);
    const found = await r.request('/agents?tags=t19999');
    assert.equal(found.status, 200);
    assert.deepEqual(
      (found.json as Array<Record<string, unknown>>).map((item) => item['id']),
      ['spam.example.tagged'],
    );
  });
});

test('a crawled agent naming 6,000 endpoints on as many hosts is stored, its identity keys bound in chunks', async () => {
  const document = aidipAgent({ id: 'sprawl', name: 'Sprawl' });
  const read = readDocument(document);
  const agent = read.agents[0]!;
  agent.bindings = Array.from({ length: 6000 }, (_, i) => ({
    kind: 'http' as const,
    url: `https://h${i}.sprawl.example/invoke`,
    method: 'POST' as const,
  }));
  await r.registry.crawlSink.upsertCrawled('https://sprawl.example', [
    {
      id: 'sprawl',
      agent,
      sources: [
        {
          url: 'https://sprawl.example/agent.json',
          format: 'aidip',
          origin: 'native',
          fetchedAt: '2026-01-01T00:00:00.000Z',
          primary: true,
        },
      ],
      synthetic: false,
      foreignClaims: [],
    },
  ]);
  // In process: the long write above held the event loop, and a pooled connection may meet the server closing it.
  const found = await r.registry.fetch(new Request('http://registry.test/agents?q=sprawl'));
  assert.equal(found.status, 200);
  const ids = ((await found.json()) as Array<Record<string, unknown>>).map((item) => item['id']);
  assert.ok(ids.includes('sprawl.example.sprawl'), JSON.stringify(ids));
});
