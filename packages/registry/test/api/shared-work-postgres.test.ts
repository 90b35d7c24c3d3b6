/**
 * Work shared by registry replicas on one PostgreSQL database (a fresh one on the local server, dropped at the
 * end) is done once, not once per replica: background work takes turns under the dialect's `runAlone` (a session
 * advisory lock, freed when its connection dies), so two replicas embedding in the background embed each agent
 * once; a replica that closes gives its crawl claims back, so another replica's crawler takes the host at once; and
 * the claim of a replica that died is taken over when its lease runs out, by a crawler asleep until then.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { EmbeddingProvider } from '@agentry/embeddings';
import { sql } from 'kysely';
import { createCrawler } from '../../src/crawler.js';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.js';
import { emittedOne, woaFor } from '../crawl/support/documents.js';
import { cacheable, type Fleet, startFleet } from '../crawl/support/fleet.js';
import { freshPostgresDatabase, type TestPostgres } from '../db/postgres-fixture.js';
import { bagOfWordsEmbedding } from '../search/helpers.js';
import { aidipAgent, startRegistry, type TestRegistry } from '../support.js';

const DIMENSIONS = 64;
const WAIT_MS = 20_000;

/** Polls `check` until it holds, for `WAIT_MS` at most. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('shared work on one PostgreSQL database', () => {
  let database: TestPostgres;
  const opened: OpenedDatabase[] = [];
  const registries: TestRegistry[] = [];
  let fleet: Fleet;

  before(async () => {
    database = await freshPostgresDatabase();
    fleet = await startFleet();
  });
  after(async () => {
    for (const registry of registries) await registry.close();
    for (const handle of opened) await handle.close();
    await fleet?.close();
    await database?.drop();
  });

  async function open(): Promise<OpenedDatabase> {
    const handle = await openDatabase({ url: database.url });
    opened.push(handle);
    return handle;
  }

  test('runAlone runs work under a key in one process at a time; a connection that dies frees the key', async () => {
    const [first, second] = [await open(), await open()];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const held = first.dialect.runAlone('shared-work-test', async () => {
      started();
      await finished;
      return 'first';
    });
    await running;
    assert.deepEqual(await second.dialect.runAlone('shared-work-test', async () => 'second'), { ran: false });
    assert.deepEqual(
      await second.dialect.runAlone('other-work', async () => 'other'),
      { ran: true, value: 'other' },
      'another key is free',
    );
    finish();
    assert.deepEqual(await held, { ran: true, value: 'first' });
    assert.deepEqual(await second.dialect.runAlone('shared-work-test', async () => 'second'), {
      ran: true,
      value: 'second',
    });

    // A process that dies holding the key: the server ends its session, and the lock with it.
    let die!: () => void;
    const dying = first.dialect.runAlone(
      'shared-work-test',
      () =>
        new Promise<void>((resolve) => {
          die = resolve;
        }),
    );
    await until('the key is held', async () => {
      const rows = await sql<{ count: number }>`select count(*) as count from pg_locks
        where locktype = 'advisory' and granted and database = (select oid from pg_database
        where datname = current_database())`.execute(second.db);
      return Number(rows.rows[0]?.count) > 0;
    });
    assert.deepEqual(await second.dialect.runAlone('shared-work-test', async () => 'second'), { ran: false });
    await sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted
      and pid <> pg_backend_pid() and database = (select oid from pg_database where datname = current_database())`.execute(
      second.db,
    );
    await until(
      'the key is free',
      async () => (await second.dialect.runAlone('shared-work-test', async () => 1)).ran,
    );
    // The work itself ends later; giving back a lock its connection lost is no error.
    die();
    assert.deepEqual(await dying, { ran: true, value: undefined });
  });

  test('two replicas embedding in the background embed each waiting agent once', async () => {
    // As `agentry crawl --embeddings none` leaves them: indexed, waiting for a vector.
    const lexicalOnly = await startRegistry({ databasePath: database.url, embeddings: 'none' });
    const ids = Array.from({ length: 12 }, (_, i) => `waiting-${i}`);
    for (const id of ids) {
      const answer = await lexicalOnly.request('/agents', {
        method: 'POST',
        token: lexicalOnly.admin,
        body: aidipAgent({ id, name: `Waiting ${id}`, description: `agent number ${id} waits for a vector` }),
      });
      assert.equal(answer.status, 201, answer.text);
    }
    await lexicalOnly.close();

    const embedded: string[] = [];
    const provider: EmbeddingProvider = {
      id: 'bag-of-words-64',
      dimensions: DIMENSIONS,
      async embed(texts) {
        embedded.push(...texts);
        // A turn of the event loop per call: two replicas embedding at once would interleave their batches.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return texts.map((text) => Float32Array.from(bagOfWordsEmbedding(text, DIMENSIONS)));
      },
    };
    const replicas = await Promise.all(
      [1, 2].map(() =>
        startRegistry({
          databasePath: database.url,
          embeddingProvider: provider,
          backgroundEmbedding: { batchSize: 2, intervalMs: 60_000 },
        }),
      ),
    );
    registries.push(...replicas);
    for (const replica of replicas) {
      await until(
        'every agent is embedded, as each replica sees it',
        async () => (await replica.registry.search.stats()).embedded === ids.length,
      );
    }
    assert.equal(embedded.length, ids.length, 'each agent was embedded once, by one replica or the other');
    assert.equal(new Set(embedded).size, ids.length);
  });

  test('a replica that closes gives back its crawl claims, and another replica crawls the host at once', async () => {
    const name = 'handover.test';
    const origin = fleet.origin(name);
    const held: ServerResponse[] = [];
    fleet.route(name, '/.well-known/woa.json', (_request, response) => {
      held.push(response);
    });
    const crawlOptions = (enabled: boolean) => ({
      crawl: { enabled, fetcher: fleet.fetcher({ timeoutMs: 20_000 }), liveness: false, leaseMs: 3_600_000 },
    });
    const leaving = await startRegistry({ databasePath: database.url, ...crawlOptions(true) });
    const staying = await startRegistry({ databasePath: database.url, ...crawlOptions(false) });
    registries.push(staying);
    await leaving.registry.crawler.add([origin]);
    await until('the leaving replica is fetching', async () => held.length === 1);
    const claim = async () => (await staying.registry.crawler.host(origin))?.state;
    assert.equal(await claim(), 'claimed');
    assert.equal((await staying.registry.crawler.runOnce()).origins, 0, 'a live claim is not taken');
    await leaving.close();
    assert.equal(await claim(), 'idle', 'closing gave the claim back, an hour before its lease would end');
    fleet.route(name, '/.well-known/woa.json', cacheable(woaFor(origin), '"woa-1"'));
    fleet.route(name, '/.well-known/agent-card.json', cacheable(emittedOne(origin, 'a2a'), '"card-1"'));
    for (const response of held.splice(0)) response.destroy();
    const summary = await staying.registry.crawler.runOnce();
    assert.equal(summary.changed, 1);
    assert.equal((await staying.request('/agents/summarizer')).status !== 404 || summary.added > 0, true);
  });
  test('a dead replica’s claim is taken over when its lease runs out, not at the next idle poll', async () => {
    const name = 'orphaned.test';
    const origin = fleet.origin(name);
    fleet.route(name, '/.well-known/woa.json', cacheable(woaFor(origin), '"woa-1"'));
    fleet.route(name, '/.well-known/agent-card.json', cacheable(emittedOne(origin, 'a2a'), '"card-1"'));
    const survivor = await startRegistry({ databasePath: database.url });
    registries.push(survivor);
    await survivor.registry.crawler.add([origin]);
    // As a replica on another machine leaves it when it dies mid-crawl: claimed, its lease ending shortly, never
    // renewed (a claim of another machine's process is not recognised as dead; only its lease frees it).
    const leaseEnds = new Date(Date.now() + 1500).toISOString();
    await sql`update crawl_hosts set status = 'claimed', claimed_by = 'crawler:other-machine:1:dead',
      claimed_until = ${leaseEnds} where origin = ${origin}`.execute(survivor.registry.store.db);
    const fetcher = fleet.fetcher({ timeoutMs: 20_000 });
    // Its idle poll is an hour away: only waking at the lease's end crawls the host within this test.
    const crawler = createCrawler({
      db: survivor.registry.store.db,
      fetcher,
      sink: survivor.registry.crawlSink,
      liveness: false,
      idlePollMs: 3_600_000,
    });
    const crawled: string[] = [];
    crawler.start({ onProgress: (progress) => crawled.push(`${progress.origin} ${progress.outcome}`) });
    try {
      await until('the survivor crawls the orphaned host', async () => crawled.length > 0);
      assert.deepEqual(crawled, [`${origin} changed`], 'the first crawl was of the orphaned host, once');
      const host = await crawler.host(origin);
      assert.equal(host?.state, 'idle', 'crawled and given back');
      assert.ok(fleet.requests(name).includes('GET /.well-known/woa.json'));
      assert.ok(
        (host?.lastCrawledAt ?? '') > leaseEnds,
        'crawled after the dead replica’s lease ran out, not before',
      );
    } finally {
      await crawler.stop();
    }
  });
});
