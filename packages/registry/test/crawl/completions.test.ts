/**
 * Group commit of finished crawls: crawls finishing together are written in one transaction, and a crawl whose rows
 * cannot be written fails alone, without costing the others theirs.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { CompletionWriter } from '../../src/crawl/completions.js';
import { type Completion, CrawlQueue } from '../../src/crawl/queue.js';
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
    },
  };
}

test('crawls finishing together are recorded together; a bad one fails alone', async () => {
  const origins = ['https://a.example', 'https://b.example', 'https://c.example', 'https://gone.example'];
  await queue.add(origins.slice(0, 3), 'test', NOW);
  await queue.claim(10, 'me', { now: NOW, dueBy: NOW, leaseUntil: '2026-11-21T00:05:00.000Z' });
  const writer = new CompletionWriter(queue, 4);
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
    [true, 'error', true, false],
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
