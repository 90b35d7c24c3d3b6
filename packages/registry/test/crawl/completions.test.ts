/**
 * Group commit of finished crawls: crawls finishing together are written in one transaction, and a crawl whose rows
 * cannot be written fails alone, without costing the others theirs.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { CompletionWriter } from '../../src/crawl/completions.js';
import { CrawlQueue } from '../../src/crawl/queue.js';
import type { Completion } from '../../src/crawl/rows.js';
import type { CrawlAgentRow } from '../../src/crawl/tables.js';
import { openTestDatabase, type TestDatabase } from './support/db.js';

const NOW = '2026-11-21T00:00:00.000Z';
let database: TestDatabase;
let queue: CrawlQueue;

beforeEach(async () => {
  database = await openTestDatabase();
  queue = new CrawlQueue(database.db);
});
afterEach(async () => {
  await database.remove();
});

function completion(origin: string, agentHash: string | null = 'h1'): Completion {
  const agent: CrawlAgentRow = {
    origin,
    agent_id: 'echo',
    state: 'active',
    inactive_reason: null,
    missing_count: 0,
    // A null hash breaks the table's NOT NULL constraint: a crawl whose rows cannot be written.
    hash: agentHash as string,
    crawled: '{}',
    first_seen_at: NOW,
    updated_at: NOW,
    liveness_status: null,
    liveness_checked_at: null,
    liveness_seen_at: null,
    liveness_latency_ms: null,
    liveness_due_at: null,
  };
  return {
    origin,
    documents: [],
    agentUpserts: [agent],
    agentStates: [],
    host: {
      next_due_at: '2026-11-21T01:00:00.000Z',
      failures: 0,
      last_error: null,
      last_outcome: 'changed',
      last_crawled_at: NOW,
      revalidated: null,
    },
  };
}

test('crawls finishing together are recorded together; a bad one fails alone', async () => {
  const origins = ['https://a.example', 'https://b.example', 'https://c.example', 'https://gone.example'];
  await queue.add(origins.slice(0, 3), 'test', NOW);
  await queue.claim(10, 'me', { now: NOW, dueBy: NOW, leaseUntil: '2026-11-21T00:05:00.000Z' });
  const writer = new CompletionWriter(queue, 'me', 4);
  const results = await Promise.allSettled([
    writer.record(completion('https://a.example')),
    writer.record(completion('https://b.example', null)),
    writer.record(completion('https://c.example')),
    writer.record(completion('https://gone.example')),
  ]);
  assert.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  );
  assert.deepEqual(
    results.map((result) => (result.status === 'fulfilled' ? result.value : 'error')),
    ['recorded', 'error', 'recorded', 'removed'],
    'a host not in the queue is not recorded',
  );
  const hosts = await queue.hosts();
  assert.deepEqual(
    hosts.map((host) => [host.origin, host.status, host.crawls, host.agents]),
    [
      ['https://a.example', 'idle', 1, 1],
      ['https://b.example', 'claimed', 0, 0],
      ['https://c.example', 'idle', 1, 1],
    ],
  );
});

test('a crawl whose claim passed to another crawler is dropped, and the newer record stands', async () => {
  const origin = 'https://taken.example';
  await queue.add([origin], 'test', NOW);
  await queue.claim(10, 'me', { now: NOW, dueBy: NOW, leaseUntil: '2026-11-21T00:05:00.000Z' });
  const later = '2026-11-21T00:06:00.000Z';
  const taken = await queue.claim(10, 'other', {
    now: later,
    dueBy: later,
    leaseUntil: '2026-11-21T00:11:00.000Z',
  });
  assert.deepEqual(
    taken.map((host) => host.origin),
    [origin],
    'the expired claim is taken over',
  );
  assert.equal(await queue.holdClaim(origin, 'me', '2026-11-21T00:12:00.000Z'), 'lost');
  assert.equal(await queue.holdClaim('https://never.example', 'me', '2026-11-21T00:12:00.000Z'), 'removed');
  assert.equal(await new CompletionWriter(queue, 'me').record(completion(origin, 'old')), 'lost');
  assert.equal(await queue.holdClaim(origin, 'other', '2026-11-21T00:12:00.000Z'), 'held');
  assert.equal(await new CompletionWriter(queue, 'other').record(completion(origin, 'new')), 'recorded');
  assert.equal(await new CompletionWriter(queue, 'me').record(completion(origin, 'old')), 'lost');
  const hashes = database.sqlite.prepare('SELECT hash FROM crawl_agents WHERE origin = ?').all(origin);
  assert.deepEqual(hashes, [{ hash: 'new' }]);
  const [host] = await queue.hosts();
  assert.equal(host?.crawls, 1);
});

test('multi-row statements are built once per shape, then run again with the new rows’ values', async () => {
  const origins = ['https://a.example', 'https://b.example', 'https://c.example'];
  await queue.add(origins, 'test', NOW);
  const document = (origin: string, etag: string, fetchedAt: string) => ({
    origin,
    url: `${origin}/.well-known/woa.json`,
    kind: 'woa',
    status: 'ok',
    reason: null,
    http_status: 200,
    etag,
    last_modified: null,
    fetched_at: fetchedAt,
    expires_at: '2026-11-21T01:00:00.000Z',
    lifetime_seconds: 300,
    source: 'native',
    linked_from: null,
    agent_ids: '["echo"]',
    issues: null,
    digest: `digest-${etag}`,
  });
  // Rounds of different sizes (3 = 2 + 1 rows, then 2, then 1) reuse the shapes of the rounds before them.
  for (const [round, batch] of [origins, origins.slice(0, 2), origins.slice(2)].entries()) {
    await queue.claimOrigins(batch, 'me', { now: NOW, leaseUntil: '2026-11-21T00:05:00.000Z' });
    const fetchedAt = `2026-11-21T00:0${round}:00.000Z`;
    const { recorded } = await queue.completeAll(
      batch.map((origin) => ({
        ...completion(origin, `hash-${round}`),
        documents: [document(origin, `"e${round}"`, fetchedAt)],
        bodies: [{ origin, url: `${origin}/.well-known/woa.json`, body: `{"round":${round}}` }],
      })),
      'me',
    );
    assert.equal(recorded.size, batch.length);
    // The same documents revalidated: the in-place updates' shapes.
    await queue.claimOrigins(batch, 'me', { now: NOW, leaseUntil: '2026-11-21T00:05:00.000Z' });
    await queue.completeAll(
      batch.map((origin) => ({
        ...completion(origin, `hash-${round}`),
        documents: undefined,
        agentUpserts: [],
        documentUpdates: [
          { ...document(origin, `"r${round}"`, fetchedAt), status: 'not-modified', http_status: 304 },
        ],
      })),
      'me',
    );
  }
  assert.deepEqual(queue.unshapedStatements, []);
  const rows = database.sqlite
    .prepare(
      'SELECT origin, status, http_status, etag, fetched_at, digest FROM crawl_documents ORDER BY origin',
    )
    .all();
  assert.deepEqual(rows, [
    {
      origin: 'https://a.example',
      status: 'not-modified',
      http_status: 304,
      etag: '"r1"',
      fetched_at: '2026-11-21T00:01:00.000Z',
      digest: 'digest-"e1"',
    },
    {
      origin: 'https://b.example',
      status: 'not-modified',
      http_status: 304,
      etag: '"r1"',
      fetched_at: '2026-11-21T00:01:00.000Z',
      digest: 'digest-"e1"',
    },
    {
      origin: 'https://c.example',
      status: 'not-modified',
      http_status: 304,
      etag: '"r2"',
      fetched_at: '2026-11-21T00:02:00.000Z',
      digest: 'digest-"e2"',
    },
  ]);
  const bodies = database.sqlite.prepare('SELECT origin, body FROM crawl_bodies ORDER BY origin').all();
  assert.deepEqual(bodies, [
    { origin: 'https://a.example', body: '{"round":1}' },
    { origin: 'https://b.example', body: '{"round":1}' },
    { origin: 'https://c.example', body: '{"round":2}' },
  ]);
  const hosts = await queue.hosts();
  assert.deepEqual(
    hosts.map((host) => [host.origin, host.status, host.crawls, host.agents]),
    [
      ['https://a.example', 'idle', 4, 1],
      ['https://b.example', 'idle', 4, 1],
      ['https://c.example', 'idle', 4, 1],
    ],
  );
  const agents = database.sqlite.prepare('SELECT origin, hash FROM crawl_agents ORDER BY origin').all();
  assert.deepEqual(agents, [
    { origin: 'https://a.example', hash: 'hash-1' },
    { origin: 'https://b.example', hash: 'hash-1' },
    { origin: 'https://c.example', hash: 'hash-2' },
  ]);
});
