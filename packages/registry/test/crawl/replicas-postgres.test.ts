/**
 * Crawler replicas sharing one PostgreSQL database (a fresh one on the local server, dropped at the end): three
 * crawlers, each with its own connection pool as a replica has, crawl one queue of loopback origins that count the
 * requests they have in flight. No origin is ever fetched by two replicas at once and each is crawled once a round;
 * a replica that stops gives its claims back at once; one killed with SIGKILL has its claims taken over by another
 * once their lease has run out.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { type Crawler, createCrawler } from '../../src/crawl/scheduler.js';
import type { Database } from '../../src/db/database.js';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.js';
import { freshPostgresDatabase, type TestPostgres } from '../db/postgres-fixture.js';
import { SqliteSink } from './support/db.js';
import { emittedOne, woaFor } from './support/documents.js';
import { cacheable, type Fleet, type RouteHandler, startFleet } from './support/fleet.js';

// The child as JavaScript when the tests run from their transpiled mirror (dist-test/), else under tsx.
const compiledChild = fileURLToPath(new URL('./replica-child.js', import.meta.url));
const childArgs = existsSync(compiledChild)
  ? [compiledChild]
  : ['--import', 'tsx', fileURLToPath(new URL('./replica-child.ts', import.meta.url))];
const WAIT_MS = 30_000;

let fleet: Fleet;
let server: TestPostgres;
const replicas: OpenedDatabase[] = [];
const sink = new SqliteSink(new Sqlite(':memory:'));

before(async () => {
  fleet = await startFleet();
  server = await freshPostgresDatabase();
});
after(async () => {
  for (const replica of replicas) await replica.close();
  await fleet?.close();
  await server?.drop();
});

/** A replica's own connection pool to the shared database. */
async function replicaDatabase(): Promise<Kysely<Database>> {
  const opened = await openDatabase({ url: server.url });
  replicas.push(opened);
  return opened.db;
}

async function replica(
  instanceId: string,
  options: { leaseMs?: number; concurrency?: number } = {},
): Promise<Crawler> {
  return createCrawler({
    db: await replicaDatabase(),
    fetcher: fleet.fetcher({ timeoutMs: 20_000 }),
    sink,
    instanceId,
    perOrigin: 1,
    minIntervalMs: 1,
    liveness: false,
    ...options,
  });
}

/** A site whose documents go stale at once, each answer a turn late so that crawls overlap. */
function serveSite(name: string): string {
  const origin = fleet.origin(name);
  const late =
    (route: RouteHandler): RouteHandler =>
    (request, response) => {
      setTimeout(() => route(request, response), 15);
    };
  fleet.route(name, '/.well-known/woa.json', late(cacheable(woaFor(origin), '"woa-1"', 0)));
  fleet.route(
    name,
    '/.well-known/agent-card.json',
    late(cacheable(emittedOne(origin, 'a2a'), '"card-1"', 0)),
  );
  return origin;
}

/** A site whose WoA document hangs until `release()`, then answers as `serveSite`'s does. */
function hangingSite(name: string): { origin: string; release(): void } {
  const origin = serveSite(name);
  const held: ServerResponse[] = [];
  fleet.route(name, '/.well-known/woa.json', (_request, response) => {
    held.push(response);
  });
  return {
    origin,
    release() {
      serveSite(name);
      for (const response of held.splice(0)) response.destroy();
    },
  };
}

function woaRequests(name: string): number {
  return fleet.requests(name).filter((line) => line === 'GET /.well-known/woa.json').length;
}

async function claims(db: Kysely<Database>, origins: readonly string[]) {
  return db
    .selectFrom('crawl_hosts')
    .select(['origin', 'status', 'claimed_by', 'claimed_until'])
    .where('origin', 'in', [...origins])
    .orderBy('origin')
    .execute();
}

/** Polls `check` until it holds, for `WAIT_MS` at most. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('crawler replicas on one PostgreSQL database', () => {
  test('three replicas never fetch one origin at once, and crawl each origin once a round', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `shared${i}.test`);
    const origins = names.map(serveSite);
    const crawlers = await Promise.all(
      ['a', 'b', 'c'].map((id) => replica(`replica-${id}`, { concurrency: 3 })),
    );
    // Every replica queues every origin, as each would from its own configuration: each origin is queued once.
    const added = await Promise.all(crawlers.map((crawler) => crawler.add(origins)));
    assert.equal(added.flat().length, origins.length);
    for (const round of [1, 2]) {
      const summaries = await Promise.all(crawlers.map((crawler) => crawler.runOnce()));
      assert.equal(
        summaries.reduce((sum, summary) => sum + summary.origins, 0),
        origins.length,
        `round ${round}: the replicas crawled ${summaries.map((summary) => summary.origins).join(' + ')} origins`,
      );
      for (const name of names) {
        assert.equal(woaRequests(name), round, `${name} is crawled once in round ${round}`);
        assert.equal(fleet.maxInFlight(name), 1, `${name} is never fetched by two replicas at once`);
      }
    }
    assert.equal(sink.agents().filter((agent) => origins.includes(agent.origin)).length, 2 * origins.length);
    // The next tests' queue holds their own origins only.
    for (const origin of origins) await crawlers[0]!.remove(origin);
  });

  test('a replica that stops gives back its claims at once, and another takes the host over', async () => {
    const site = hangingSite('stopping.test');
    const leaving = await replica('replica-leaving', { leaseMs: 3_600_000 });
    const staying = await replica('replica-staying', { leaseMs: 3_600_000 });
    const db = await replicaDatabase();
    await leaving.add([site.origin]);
    leaving.start();
    await until('the leaving replica is fetching', async () => woaRequests('stopping.test') === 1);
    assert.equal((await claims(db, [site.origin]))[0]?.claimed_by, 'replica-leaving');
    assert.equal((await staying.runOnce()).origins, 0, 'a live claim is not taken');
    await leaving.stop();
    assert.deepEqual(
      (await claims(db, [site.origin])).map((row) => [row.status, row.claimed_by]),
      [['idle', null]],
    );
    site.release();
    const summary = await staying.runOnce();
    assert.equal(summary.changed, 1, 'taken over at once, an hour before the lease would have ended');
    await staying.remove(site.origin);
  });

  test('the claims of a replica killed with SIGKILL are taken over once their lease has run out', async () => {
    const names = ['doomed0.test', 'doomed1.test', 'doomed2.test'];
    const sites = names.map(hangingSite);
    const origins = sites.map((site) => site.origin);
    const db = await replicaDatabase();
    const survivor = await replica('replica-survivor', { leaseMs: 2000 });
    await survivor.add(origins);
    // The doomed replica is another machine's crawler as far as the survivor can tell (its id names no local
    // process), so nothing but the lease gives its claims back.
    const proc = spawn(
      process.execPath,
      [...childArgs, server.url, String(fleet.port), 'replica-doomed', '2000'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = once(proc, 'exit');
    try {
      await Promise.race([
        once(createInterface({ input: proc.stdout! }), 'line'),
        exited.then(() => Promise.reject(new Error('the replica exited before it started'))),
      ]);
      await until('the doomed replica is fetching every origin', async () =>
        names.every((name) => woaRequests(name) === 1),
      );
      proc.kill('SIGKILL');
      await exited;
      const left = await claims(db, origins);
      assert.deepEqual(
        left.map((row) => [row.status, row.claimed_by]),
        origins.map(() => ['claimed', 'replica-doomed']),
        'a killed replica gives nothing back',
      );
      const expiry = Math.min(...left.map((row) => Date.parse(row.claimed_until!)));
      for (const site of sites) site.release();
      const crawled = new Set<string>();
      let runs = 0;
      await until('the survivor has crawled every origin', async () => {
        const startedAt = Date.now();
        const taken: string[] = [];
        // Other tests' origins are due again too: only the killed replica's count.
        await survivor.runOnce({
          onProgress: (progress) => {
            if (origins.includes(progress.origin)) taken.push(progress.origin);
          },
        });
        runs++;
        if (startedAt < expiry) assert.deepEqual(taken, [], 'no claim is taken before its lease has run out');
        for (const origin of taken) crawled.add(origin);
        return crawled.size === origins.length;
      });
      assert.ok(runs >= 1);
      for (const name of names)
        assert.equal(woaRequests(name), 2, `${name}: the killed replica's request, then the survivor's`);
      assert.deepEqual(
        (await claims(db, origins)).map((row) => [row.status, row.claimed_by]),
        origins.map(() => ['idle', null]),
      );
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    }
  });
});
