/**
 * The crawler's cases, run on each dialect (scheduler.test.ts on a real SQLite file, scheduler-postgres.test.ts on
 * a fresh PostgreSQL database) against a fleet of loopback origins, on a test clock: the first crawl, re-crawls
 * that cost a 304, changes, disappearances (inactive, then tombstoned), unreachable origins coming back, removal,
 * and crawls that stop half-way and are resumed without losing or repeating finished work.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { type Crawler, type CrawlProgress, createCrawler } from '../../src/crawl/scheduler.js';
import type { Revalidation } from '../../src/crawl/tables.js';
import type { DialectName } from '../../src/db/dialect.js';
import { type CrawlDatabases, crawlDatabases, type TestDatabase } from './support/db.js';
import { emittedOne, woaFor } from './support/documents.js';
import { cacheable, type Fleet, startFleet } from './support/fleet.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Every case of the crawler on `dialect`'s database. */
export function describeScheduler(dialect: DialectName): void {
  describe(`crawler (${dialect})`, () => {
    let fleet: Fleet;
    let databases: CrawlDatabases;
    let database: TestDatabase;
    let clock: number;

    before(async () => {
      fleet = await startFleet();
      databases = await crawlDatabases(dialect);
    });
    after(async () => {
      await fleet?.close();
      await databases?.close();
    });
    beforeEach(async () => {
      database = await databases.fresh();
      clock = Date.parse('2026-11-21T00:00:00Z');
    });
    afterEach(async () => {
      await database.remove();
    });

    function crawler(
      options: { instanceId?: string; concurrency?: number; leaseMs?: number; now?: () => number } = {},
    ): Crawler {
      return createCrawler({
        db: database.db,
        fetcher: fleet.fetcher({ timeoutMs: 10_000 }),
        sink: database.sink,
        minIntervalMs: 1000,
        maxIntervalMs: HOUR,
        failureThreshold: 2,
        liveness: false,
        now: () => clock,
        ...options,
      });
    }

    /** A site serving the example WoA document (validators, max-age 300 s) and an A2A card. */
    function serveSite(name: string, version = 1): string {
      const origin = fleet.origin(name);
      const woa = woaFor(origin);
      if (version > 1) {
        const agents = woa['agents'] as Array<Record<string, unknown>>;
        agents[0]!['description'] = `Summarises text, version ${version}.`;
      }
      fleet.route(name, '/.well-known/woa.json', cacheable(woa, `"woa-${version}"`));
      fleet.route(name, '/.well-known/agent-card.json', cacheable(emittedOne(origin, 'a2a'), '"card-1"'));
      return origin;
    }

    /** A WoA document with `count` agents, each a copy of the example's first under its own id. */
    function manyAgents(origin: string, count: number): Record<string, unknown> {
      const woa = woaFor(origin);
      const [first] = woa['agents'] as Array<Record<string, unknown>>;
      woa['agents'] = Array.from({ length: count }, (_, i) => ({
        ...first,
        id: `agent-${String(i).padStart(4, '0')}`,
        name: `Agent ${i}`,
      }));
      return woa;
    }

    function requestsSince(name: string, count: number): string[] {
      return fleet.requests(name).slice(count);
    }

    describe('the first crawl', () => {
      test('crawls every queued origin once and hands its agents to the sink', async () => {
        const names = ['one.test', 'two.test', 'three.test'];
        const origins = names.map((name) => serveSite(name));
        const instance = crawler();
        const added = await instance.add([...origins, `one.test:${fleet.port}`, `${origins[0]}/some/path`]);
        const https = `https://one.test:${fleet.port}`;
        assert.deepEqual(
          added.sort(),
          [...origins, https].sort(),
          'a bare host name means https; paths are dropped',
        );
        const progress: CrawlProgress[] = [];
        const summary = await instance.runOnce({ onProgress: (event) => progress.push(event) });
        assert.equal(summary.origins, 4);
        assert.equal(summary.changed, 3);
        assert.equal(summary.failed, 1, 'https://one.test:<port> is not served');
        assert.deepEqual(
          progress.map((event) => event.done),
          [1, 2, 3, 4],
        );
        assert.ok(progress.every((event) => event.total === 4));
        for (const origin of origins) {
          assert.deepEqual(
            database.sink.agents(origin).map((agent) => [agent.agentId, agent.state, agent.upserts]),
            [
              ['keywords', 'active', 1],
              ['summarizer', 'active', 1],
            ],
          );
        }
        const hosts = await instance.hosts();
        const one = hosts.find((host) => host.origin === origins[0]);
        assert.equal(one?.agents, 2);
        assert.equal(one?.documents, 2);
        assert.equal(one?.crawls, 1);
        assert.equal(one?.lastOutcome, 'changed');
        assert.equal(Date.parse(one!.nextDueAt) - clock, 300_000, 'due again when its documents go stale');
        const failing = hosts.find((host) => host.origin === https);
        assert.equal(failing?.lastOutcome, 'unreachable');
        assert.equal(failing?.failures, 1);
        assert.ok(failing?.lastError !== undefined && failing.lastError.length > 0);
        // Nothing is due now: a second run does nothing.
        assert.equal((await instance.runOnce()).origins, 0);
      });

      test('every failure is recorded per document with its reason', async () => {
        const name = 'half.test';
        fleet.route(name, '/.well-known/woa.json', { text: 'not json' });
        fleet.route(name, '/capabilities', { status: 500, text: 'boom' });
        const origin = fleet.origin(name);
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        const detail = await instance.host(origin);
        assert.ok(detail);
        const byPath = new Map(
          detail.documentRecords.map((record) => [new URL(record.url).pathname, record]),
        );
        assert.equal(byPath.get('/.well-known/woa.json')?.status, 'failed');
        assert.match(byPath.get('/.well-known/woa.json')?.reason ?? '', /Not JSON/);
        assert.match(byPath.get('/capabilities')?.reason ?? '', /HTTP 500/);
        assert.equal(byPath.get('/agent.json')?.status, 'missing');
      });
    });

    describe('re-crawls', () => {
      test('unchanged documents are revalidated with conditional requests (304) and the sink hears nothing', async () => {
        const origin = serveSite('steady.test');
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        const calls = database.sink.calls().length;
        const seen = fleet.requests('steady.test').length;
        clock += 301_000;
        const summary = await instance.runOnce();
        assert.equal(summary.unchanged, 1);
        assert.equal(database.sink.calls().length, calls);
        // Only the two documents that went stale were asked for; the missing ones wait for the maximum interval.
        assert.deepEqual(requestsSince('steady.test', seen).sort(), [
          'GET /.well-known/agent-card.json',
          'GET /.well-known/woa.json',
        ]);
        const detail = await instance.host(origin);
        const woa = detail?.documentRecords.find((record) => record.url.endsWith('/woa.json'));
        assert.equal(woa?.status, 'not-modified');
        assert.equal(woa?.etag, '"woa-1"');
        assert.equal(detail?.crawls, 2);
      });

      test('an unchanged re-crawl writes its host’s row only; the next crawls read it, a change folds it in', async () => {
        const name = 'folded.test';
        const origin = serveSite(name);
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        const documentRows = () =>
          database.db
            .selectFrom('crawl_documents')
            .selectAll()
            .where('origin', '=', origin)
            .orderBy('url')
            .execute();
        const rowsAfterFirst = await documentRows();
        const revalidated = async () =>
          (
            await database.db
              .selectFrom('crawl_hosts')
              .select('revalidated')
              .where('origin', '=', origin)
              .executeTakeFirstOrThrow()
          ).revalidated;
        assert.equal(await revalidated(), null);

        // Two unchanged re-crawls: each revalidates the two stale documents (304), and leaves their rows as they were.
        for (const round of [1, 2]) {
          clock += 301_000;
          const seen = fleet.requests(name).length;
          assert.equal((await instance.runOnce()).unchanged, 1);
          assert.equal(
            requestsSince(name, seen).length,
            2,
            `round ${round}: only the stale documents are asked for`,
          );
          assert.deepEqual(await documentRows(), rowsAfterFirst);
          // [url, status, reason, HTTP status, ETag, Last-Modified, fetched at, expires at, lifetime]
          const overlay = JSON.parse((await revalidated()) ?? '[]') as Revalidation[];
          assert.deepEqual(overlay.map((entry) => entry[0]).sort(), [
            `${origin}/.well-known/agent-card.json`,
            `${origin}/.well-known/woa.json`,
          ]);
          const at = new Date(clock).toISOString();
          assert.ok(
            overlay.every(
              ([, status, , httpStatus, , , fetchedAt]) =>
                status === 'not-modified' && httpStatus === 304 && fetchedAt === at,
            ),
          );
          const detail = await instance.host(origin);
          const woa = detail?.documentRecords.find((record) => record.url.endsWith('/woa.json'));
          assert.equal(woa?.status, 'not-modified');
          assert.equal(woa?.fetchedAt, new Date(clock).toISOString(), 'the detail shows the revalidation');
          assert.equal(Date.parse(woa!.expiresAt) - clock, 300_000);
          assert.equal(detail?.documents, 2);
          assert.equal(
            Date.parse(detail!.nextDueAt) - clock,
            300_000,
            'due when the revalidated documents go stale',
          );
        }
        // Nothing stale: nothing asked for (the revalidations' due times were read back).
        const seen = fleet.requests(name).length;
        assert.equal((await instance.runOnce()).origins, 0);
        await instance.runOnce({ origins: [origin] });
        assert.equal(requestsSince(name, seen).length, 0, 'a crawl by hand fetches nothing still fresh');

        // A change rewrites the documents' rows, revalidations included, and empties the host's.
        serveSite(name, 2);
        clock += 301_000;
        assert.equal((await instance.runOnce()).changed, 1);
        assert.equal(await revalidated(), null);
        const rows = await documentRows();
        const woa = rows.find((row) => row.url.endsWith('/woa.json'));
        const card = rows.find((row) => row.url.endsWith('/agent-card.json'));
        assert.deepEqual([woa?.status, woa?.etag], ['ok', '"woa-2"']);
        assert.deepEqual(
          [card?.status, card?.etag, card?.fetched_at],
          ['not-modified', '"card-1"', new Date(clock).toISOString()],
        );
        assert.equal(
          database.sink.agent(origin, 'summarizer')?.crawled.agent.description,
          'Summarises text, version 2.',
        );
      });

      test('a changed document updates only the agents that changed', async () => {
        const origin = serveSite('changing.test');
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        serveSite('changing.test', 2);
        clock += 301_000;
        const summary = await instance.runOnce();
        assert.equal(summary.changed, 1);
        assert.equal(summary.upserted, 1);
        const summarizer = database.sink.agent(origin, 'summarizer');
        assert.equal(summarizer?.upserts, 2);
        assert.equal(summarizer?.crawled.agent.description, 'Summarises text, version 2.');
        assert.equal(database.sink.agent(origin, 'keywords')?.upserts, 1);
        // The card answered 304: its stored body was read again from storage, and is kept.
        assert.deepEqual(summarizer?.crawled.sources.map((source) => source.format).sort(), ['a2a', 'woa']);
        const bodies = await database.db
          .selectFrom('crawl_bodies')
          .select('url')
          .where('origin', '=', origin)
          .orderBy('url')
          .execute();
        assert.deepEqual(
          bodies.map((row) => new URL(row.url).pathname),
          ['/.well-known/agent-card.json', '/.well-known/woa.json'],
        );
      });

      test('agents whose documents disappear are marked inactive, then tombstoned', async () => {
        const name = 'fading.test';
        const origin = fleet.origin(name);
        fleet.route(name, '/.well-known/woa.json', cacheable(woaFor(origin), '"w"'));
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        fleet.route(name, '/.well-known/woa.json', undefined);
        clock += 301_000;
        await instance.runOnce();
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.state),
          ['inactive', 'inactive'],
        );
        clock += HOUR + 1000;
        const summary = await instance.runOnce();
        assert.equal(summary.tombstoned, 2);
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.state),
          ['tombstoned', 'tombstoned'],
        );
        assert.equal((await instance.hosts())[0]?.agents, 0);
      });

      test('an unreachable origin makes its agents inactive, and they come back with it', async () => {
        const name = 'flaky.test';
        const origin = serveSite(name);
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        const reset = (): void => {
          for (const path of ['/.well-known/woa.json', '/.well-known/agent-card.json']) {
            fleet.route(name, path, (request) => request.socket.destroy());
          }
        };
        reset();
        clock += 301_000;
        const down = await instance.runOnce();
        assert.equal(down.failed, 1);
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.state),
          ['inactive', 'inactive'],
        );
        const host = (await instance.hosts())[0]!;
        assert.equal(host.failures, 1);
        assert.equal(host.lastOutcome, 'unreachable');
        serveSite(name);
        clock = Date.parse(host.nextDueAt) + 1;
        const back = await instance.runOnce();
        assert.equal(back.unchanged, 1);
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.state),
          ['active', 'active'],
        );
        assert.equal((await instance.hosts())[0]?.failures, 0);
      });

      test('an origin unreachable failureThreshold times in a row has its agents tombstoned', async () => {
        const name = 'dying.test';
        const origin = serveSite(name);
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        for (const path of ['/.well-known/woa.json', '/.well-known/agent-card.json']) {
          fleet.route(name, path, (request) => request.socket.destroy());
        }
        for (let crawl = 0; crawl < 2; crawl++) {
          const [host] = await instance.hosts();
          clock = Math.max(clock + 301_000, Date.parse(host!.nextDueAt) + 1);
          assert.equal((await instance.runOnce()).failed, 1);
        }
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.state),
          ['tombstoned', 'tombstoned'],
        );
      });
    });

    describe('the queue', () => {
      test('remove() stops crawling an origin and tombstones its agents', async () => {
        const origin = serveSite('leaving.test');
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        assert.equal(await instance.remove(origin), true);
        assert.equal(await instance.remove(origin), false);
        assert.deepEqual(await instance.hosts(), []);
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.state),
          ['tombstoned', 'tombstoned'],
        );
      });

      test('a crawl that outlasts its lease loses the host: the newer crawl stands, nothing is tombstoned', async () => {
        const name = 'stalled.test';
        const origin = fleet.origin(name);
        const older = woaFor(origin);
        const newer = woaFor(origin);
        const [first] = newer['agents'] as Array<Record<string, unknown>>;
        first!['description'] = 'Summarises text, version 2.';
        // The first request for the WoA document is held open and answered late; later ones are answered at once.
        let arrived!: () => void;
        const held = new Promise<void>((resolve) => {
          arrived = resolve;
        });
        let answerLate: (() => void) | undefined;
        fleet.route(name, '/.well-known/woa.json', (request, response) => {
          if (answerLate === undefined) {
            answerLate = () => cacheable(older, '"woa-1"')(request, response);
            arrived();
            return;
          }
          cacheable(newer, '"woa-2"')(request, response);
        });
        fleet.route(name, '/.well-known/agent-card.json', cacheable(emittedOne(origin, 'a2a'), '"card-1"'));
        // The stalled crawler's clock stands still, so its renewals never reach past the other's now: from the
        // other crawler's side its lease ran out (as when a process stalls and cannot renew).
        const stalled = crawler({ instanceId: 'stalled', leaseMs: MINUTE, now: () => clock });
        const other = crawler({ instanceId: 'other', leaseMs: MINUTE, now: () => clock + 2 * MINUTE });
        await stalled.add([origin]);
        const lateProgress: CrawlProgress[] = [];
        const late = stalled.runOnce({ onProgress: (event) => lateProgress.push(event) });
        await held;
        const taken = await other.runOnce();
        assert.equal(taken.origins, 1, 'the other crawler takes the expired claim over');
        assert.equal(taken.changed, 1);
        const before = database.sink.calls().length;
        answerLate!();
        const summary = await late;
        assert.equal(summary.lostClaims, 1);
        assert.equal(summary.origins, 0);
        assert.equal(summary.changed, 0);
        assert.deepEqual(
          lateProgress.map((event) => [event.origin, event.outcome, event.done, event.total, event.failed]),
          [[origin, 'taken-over', 1, 1, 0]],
          'the host taken over is reported, and counts towards the progress total',
        );
        assert.deepEqual(database.sink.calls().slice(before), [], 'the late crawl tells the sink nothing');
        const agents = database.sink.agents(origin);
        assert.deepEqual(
          agents.map((agent) => [agent.agentId, agent.state, agent.upserts]),
          [
            ['keywords', 'active', 1],
            ['summarizer', 'active', 1],
          ],
        );
        assert.ok(JSON.stringify(agents).includes('version 2'), 'the newer crawl stands in the sink');
        const detail = await other.host(origin);
        assert.equal(detail?.crawls, 1);
        assert.equal(detail?.state, 'idle');
        assert.equal(detail?.lastOutcome, 'changed');
        assert.ok(
          detail?.documentRecords.some((record) => record.etag === '"woa-2"'),
          JSON.stringify(detail?.documentRecords),
        );
        assert.ok(detail?.agentStates.every((agent) => agent.state === 'active'));
      });

      test('add() rejects what is not an origin', async () => {
        await assert.rejects(crawler().add(['ftp://example.com']), TypeError);
        await assert.rejects(crawler().add(['']), TypeError);
      });

      test('a run stopped half-way gives back its claims, and the next run finishes the rest, each host once', async () => {
        const origins = Array.from({ length: 12 }, (_, i) => serveSite(`batch${i}.test`));
        const first = crawler({ concurrency: 2, instanceId: 'first' });
        await first.add(origins);
        const controller = new AbortController();
        const summary = await first.runOnce({
          signal: controller.signal,
          onProgress: (event) => {
            if (event.done === 3) controller.abort();
          },
        });
        assert.equal(summary.aborted, true);
        const hosts = await first.hosts();
        assert.ok(
          hosts.every((host) => host.state === 'idle'),
          'no claim is left behind',
        );
        const done = hosts.filter((host) => host.crawls === 1).length;
        assert.ok(done >= 3 && done < 12, String(done));
        const second = crawler({ concurrency: 4, instanceId: 'second' });
        const rest = await second.runOnce();
        assert.equal(rest.origins, 12 - done);
        const after = await second.hosts();
        assert.ok(
          after.every((host) => host.crawls === 1),
          JSON.stringify(after.map((host) => host.crawls)),
        );
        for (const origin of origins) assert.equal(database.sink.agents(origin).length, 2);
      });

      test('claims of a crawler that died are taken over when their lease expires, or at once by its successor', async () => {
        const origins = ['dead0.test', 'dead1.test', 'dead2.test'].map((name) => serveSite(name));
        const lease = MINUTE;
        const first = crawler({ instanceId: 'dead', leaseMs: lease });
        await first.add(origins);
        // What a crash mid-crawl leaves: hosts claimed by `dead` under a lease, never completed.
        await database.db
          .updateTable('crawl_hosts')
          .set({
            status: 'claimed',
            claimed_by: 'dead',
            claimed_until: new Date(clock + lease).toISOString(),
          })
          .where('origin', 'in', origins.slice(0, 2))
          .execute();
        const other = crawler({ instanceId: 'other', leaseMs: lease });
        assert.equal((await other.runOnce()).origins, 1, 'the claimed hosts wait for their lease');
        clock += lease + 1000;
        assert.equal((await other.runOnce()).origins, 2, 'expired leases are taken over');

        await database.db
          .updateTable('crawl_hosts')
          .set({
            status: 'claimed',
            claimed_by: 'dead',
            claimed_until: new Date(clock + lease).toISOString(),
          })
          .where('origin', '=', origins[2]!)
          .execute();
        await database.db
          .updateTable('crawl_hosts')
          .set({ next_due_at: new Date(clock).toISOString() })
          .execute();
        const successor = crawler({ instanceId: 'dead', leaseMs: lease });
        const resumed = await successor.runOnce();
        assert.equal(resumed.origins, 3, 'a successor with the same id resumes its claims at once');
      });

      test('claims of a crawler process that died on this machine are taken back at once; a live one’s are not', async () => {
        const origins = ['gone0.test', 'gone1.test', 'alive.test'].map((name) => serveSite(name));
        const lease = HOUR;
        const first = crawler({ leaseMs: lease });
        await first.add(origins);
        // A process that has exited: its id is one no live process has.
        const exited = spawn(process.execPath, ['-e', '']);
        const [code] = await once(exited, 'exit');
        assert.equal(code, 0);
        const claim = async (origin: string, pid: number | undefined) => {
          await database.db
            .updateTable('crawl_hosts')
            .set({
              status: 'claimed',
              claimed_by: `crawler:${hostname()}:${pid}:${'0'.repeat(8)}`,
              claimed_until: new Date(clock + lease).toISOString(),
            })
            .where('origin', '=', origin)
            .execute();
        };
        await claim(origins[0]!, exited.pid);
        await claim(origins[1]!, exited.pid);
        await claim(origins[2]!, process.ppid); // the test runner: alive
        const summary = await crawler({ leaseMs: lease }).runOnce();
        assert.equal(
          summary.origins,
          2,
          'the dead process’s claims are crawled; the live one’s wait for its lease',
        );
        const hosts = await first.hosts();
        assert.deepEqual(
          hosts.map((host) => [host.origin, host.state, host.crawls]),
          [
            [origins[2], 'claimed', 0],
            [origins[0], 'idle', 1],
            [origins[1], 'idle', 1],
          ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        );
      });

      test('start() keeps crawling in the background until stop()', async () => {
        const origin = serveSite('background.test');
        const instance = crawler();
        await instance.add([origin]);
        const crawled = new Promise<CrawlProgress>((resolve) => {
          instance.start({ onProgress: resolve });
        });
        const progress = await crawled;
        await instance.stop();
        assert.equal(progress.origin, origin);
        assert.equal(database.sink.agents(origin).length, 2);
        assert.ok((await instance.hosts()).every((host) => host.state === 'idle'));
      });
    });

    describe('runs and batches', () => {
      test('a run by hand crawls the origins named, due or not, and nothing else', async () => {
        const [due, fresh, other] = ['hand-a.test', 'hand-b.test', 'hand-c.test'].map((name) =>
          serveSite(name),
        );
        const instance = crawler();
        await instance.add([due!, fresh!, other!]);
        await instance.runOnce({ origins: [fresh!] });
        clock += 301_000;
        const seen = fleet.requests('hand-b.test').length;
        // `due` and `other` have never been crawled; only `due` is asked for. `fresh` is not due.
        const progress: CrawlProgress[] = [];
        const summary = await instance.runOnce({
          origins: [due!, fresh!, 'https://not-queued.example'],
          onProgress: (event) => progress.push(event),
        });
        assert.deepEqual(progress.map((event) => event.origin).sort(), [due!, fresh!].sort());
        assert.ok(progress.every((event) => event.total === 3));
        assert.equal(summary.origins, 2);
        assert.equal((await instance.host(other!))?.crawls, 0, 'an origin not named waits for its turn');
        assert.equal(
          fleet.requests('hand-b.test').length - seen,
          2,
          'its two stale documents are revalidated',
        );
      });

      test('a run by hand with nothing due sends nothing, records nothing, and says when the origin is due', async () => {
        const origin = serveSite('not-due.test');
        const instance = crawler();
        await instance.add([origin]);
        await instance.runOnce();
        const seen = fleet.requests('not-due.test').length;
        const progress: CrawlProgress[] = [];
        const summary = await instance.runOnce({
          origins: [origin],
          onProgress: (event) => progress.push(event),
        });
        assert.deepEqual(requestsSince('not-due.test', seen), []);
        assert.equal(summary.notDue, 1);
        assert.equal(summary.unchanged, 0, 'never reported as crawled and unchanged');
        assert.equal(progress[0]?.outcome, 'not-due');
        assert.equal(progress[0]?.agents, 2);
        assert.equal(Date.parse(progress[0]!.nextDueAt!) - clock, 300_000);
        const host = await instance.host(origin);
        assert.equal(host?.crawls, 1, 'a crawl that sent nothing is not recorded');
        assert.equal(host?.state, 'idle', 'its claim is given back');
        // `refresh` asks for every document again, fresh or not.
        const refreshed = await instance.runOnce({ origins: [origin], refresh: [origin] });
        assert.equal(refreshed.unchanged, 1);
        assert.ok(requestsSince('not-due.test', seen).includes('GET /.well-known/woa.json'));
      });

      test('a crawl refused by the fetch policy does not poison the origin: named again with it allowed, it is crawled', async () => {
        const origin = serveSite('refused.test');
        const strict = createCrawler({
          db: database.db,
          fetcher: createSecureFetcher({ cache: false, lookup: fleet.lookup }),
          sink: database.sink,
          liveness: false,
          now: () => clock,
        });
        await strict.add([origin]);
        const first = await strict.runOnce({ origins: [origin], refresh: true });
        assert.equal(first.failed, 1, 'plain HTTP is refused');
        assert.deepEqual(fleet.requests('refused.test'), []);
        const allowed = crawler();
        const progress: CrawlProgress[] = [];
        const second = await allowed.runOnce({
          origins: [origin],
          refresh: true,
          onProgress: (event) => progress.push(event),
        });
        assert.equal(second.changed, 1);
        assert.equal(progress[0]?.agents, 2);
        assert.ok(fleet.requests('refused.test').includes('GET /.well-known/woa.json'));
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => agent.agentId),
          ['keywords', 'summarizer'],
        );
      });

      test('an origin listing more agents than maxAgentsPerOrigin is cut to the limit, and the rest are reported dropped', async () => {
        const name = 'spam.test';
        const origin = fleet.origin(name);
        fleet.route(name, '/.well-known/woa.json', { json: manyAgents(origin, 40) });
        const instance = createCrawler({
          db: database.db,
          fetcher: fleet.fetcher(),
          sink: database.sink,
          liveness: false,
          now: () => clock,
          maxAgentsPerOrigin: 25,
        });
        await instance.add([origin]);
        const progress: CrawlProgress[] = [];
        const summary = await instance.runOnce({ onProgress: (event) => progress.push(event) });
        assert.equal(database.sink.agents(origin).length, 25);
        assert.equal(summary.added, 25);
        assert.deepEqual(summary.dropped, { agents: 15, documents: 0 });
        assert.deepEqual(progress[0]?.dropped, { agents: 15, documents: 0 });
        assert.equal(progress[0]?.agents, 25);
      });

      test('the summary counts agents added, updated and unchanged', async () => {
        const origin = serveSite('counted.test');
        const instance = crawler();
        await instance.add([origin]);
        const first = await instance.runOnce();
        assert.deepEqual([first.added, first.updated, first.unchangedAgents, first.upserted], [2, 0, 0, 2]);
        clock += 301_000;
        serveSite('counted.test', 2);
        const second = await instance.runOnce();
        assert.deepEqual(
          [second.added, second.updated, second.unchangedAgents, second.upserted],
          [0, 1, 1, 1],
        );
        clock += 301_000;
        const progress: CrawlProgress[] = [];
        const third = await instance.runOnce({ onProgress: (event) => progress.push(event) });
        assert.deepEqual([third.added, third.updated, third.unchangedAgents, third.unchanged], [0, 0, 2, 1]);
        assert.equal(progress[0]?.agents, 2);
      });

      test('many origins at once are all recorded, each once, whatever batch their crawl was written in', async () => {
        const names = Array.from({ length: 40 }, (_, i) => `batch-${i}.test`);
        const origins = names.map((name) => serveSite(name));
        const instance = crawler({ concurrency: 8 });
        await instance.add(origins);
        const summary = await instance.runOnce();
        assert.equal(summary.origins, 40);
        assert.equal(summary.changed, 40);
        const hosts = await instance.hosts();
        for (const origin of origins) {
          const host = hosts.find((item) => item.origin === origin);
          assert.deepEqual([host?.crawls, host?.agents, host?.state], [1, 2, 'idle'], origin);
        }
        const paged = [
          ...(await instance.hosts({ limit: 25 })),
          ...(await instance.hosts({ after: (await instance.hosts({ limit: 25 }))[24]!.origin })),
        ];
        assert.deepEqual(
          paged.map((host) => host.origin),
          hosts.map((host) => host.origin),
        );
      });

      test('an origin removed while it is being crawled stays removed, with nothing of its crawl recorded', async () => {
        const name = 'vanishing.test';
        const origin = fleet.origin(name);
        const instance = crawler();
        fleet.route(name, '/.well-known/woa.json', (_request, response) => {
          void instance.remove(origin).then(() => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify(woaFor(origin)));
          });
        });
        await instance.add([origin]);
        const summary = await instance.runOnce();
        assert.equal(summary.failed, 1);
        assert.equal(await instance.host(origin), undefined);
        assert.deepEqual(
          database.sink.agents(origin).map((agent) => [agent.agentId, agent.state]),
          [
            ['keywords', 'tombstoned'],
            ['summarizer', 'tombstoned'],
          ],
          'agents the crawl handed over after the removal are tombstoned again',
        );
        const rows = await database.db
          .selectFrom('crawl_documents')
          .select('url')
          .where('origin', '=', origin)
          .execute();
        assert.deepEqual(rows, []);
      });
    });
  });
}
