/**
 * bench/crawl: crawler throughput. Prints figures; asserts nothing.
 *
 * 10,000 virtual origins (`o<N>.bench.test`, names resolved to 127.0.0.1 by the fetcher's injectable lookup and
 * allowed by `allowAddresses` for exactly the fleet's port) on one loopback server in a child process, each serving
 * a WoA document, an A2A card and an MCP projection (validators, max-age=300) and 404 elsewhere. The crawler runs
 * on a real SQLite file with a SQLite sink, 64 origins at a time, two requests per origin, liveness off.
 * `SINK=registry` crawls into a real registry instead (its store and lexical search index, `embeddings: none`): what
 * `agentry crawl --embeddings none` does, where registering the agents costs more than crawling them.
 *
 * (a) first crawl: every discovery document of every origin, parsed, merged, handed to the sink, recorded.
 *     Target (issue 6): 10,000 origins in ≤ 60 s.
 * (b) re-crawl where nothing changed, 301 s later on the crawler's clock: the three documents that went stale are
 *     revalidated (304), the 404s are not due until the maximum interval, nothing reaches the sink.
 *     Target: ≥ 3× the first crawl's rate.
 *
 * `ROUNDS` rounds (3) of both, each on a new database, the two phases of a round back to back so that they run under
 * the same load; each phase prints wall time, this process's CPU time, the fleet's CPU time (when it nears the wall
 * time, the fleet and not the crawler was the limit) and the load average when it started, and the medians of the
 * rounds close the report. A warm-up first (`WARMUP` other origins, 500, crawled and re-crawled into
 * another database) so that neither phase pays for compiling what the other ran. `PROFILE=recrawl.cpuprofile`
 * writes a V8 profile of the last re-crawl.
 *
 *   npm run build && node --import tsx bench/crawl/run.ts          human-readable
 *   ORIGINS=2000 ROUNDS=1 node --import tsx bench/crawl/run.ts --json   machine-readable, fewer origins
 *   ORIGINS=2000 SINK=registry node --import tsx bench/crawl/run.ts   into a registry
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createSecureFetcher, type LookupFunction } from '@agentry/client';
import { createRegistry } from '@agentry/registry';
import { type CrawlerOptions, type CrawlSink, createCrawler } from '@agentry/registry/crawler';
import pino from 'pino';
// The bare SQLite file with a recording sink is the crawler tests' fixture, not part of the package.
import { openTestDatabase } from '../../packages/registry/test/crawl/support/db.js';

const ORIGINS = Number(process.env['ORIGINS'] ?? 10_000);
const WARMUP = Number(process.env['WARMUP'] ?? 500);
const ROUNDS = Math.max(1, Number(process.env['ROUNDS'] ?? 3));
const PROFILE = process.env['PROFILE'];
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 64);
const SINK = process.env['SINK'] === 'registry' ? 'registry' : 'sqlite';
const json = process.argv.includes('--json');

const child = spawn(
  process.execPath,
  ['--import', 'tsx', new URL('./origins-server.ts', import.meta.url).pathname],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const childLines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const port = Number((await childLines.next()).value);
/** The fleet's CPU time so far: a phase whose fleet CPU nears its wall time was limited by the fleet's core. */
async function fleetCpuSeconds(): Promise<number> {
  child.stdin!.write('cpu\n');
  return Number((await childLines.next()).value) / 1000;
}

const lookup: LookupFunction = async () => [{ address: '127.0.0.1', family: 4 }];
const fetcher = createSecureFetcher({
  allowHttp: true,
  allowAddresses: [`127.0.0.1:${port}`],
  lookup,
  cache: false,
  timeoutMs: 30_000,
});
/** The crawler's database and sink: a bare SQLite file with a recording sink, or a whole registry. */
async function target(): Promise<{ db: CrawlerOptions['db']; sink: CrawlSink; close(): Promise<void> }> {
  if (SINK === 'sqlite') {
    const database = await openTestDatabase();
    return { db: database.db, sink: database.sink, close: () => database.remove() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentry-bench-crawl-'));
  const registry = await createRegistry({
    databasePath: join(dir, 'registry.db'),
    embeddings: 'none',
    adminToken: 'bench-admin-token',
    logger: pino({ level: 'silent' }),
  });
  return {
    db: registry.store.db,
    sink: registry.crawlSink,
    async close() {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let clock = Date.parse('2026-11-21T00:00:00Z');
/** A crawler over a fresh target (database and sink), on the bench's clock. */
async function crawlerOver(database: Awaited<ReturnType<typeof target>>) {
  return createCrawler({
    db: database.db,
    fetcher,
    sink: database.sink,
    concurrency: CONCURRENCY,
    perOrigin: 2,
    minIntervalMs: 60_000,
    maxIntervalMs: 86_400_000,
    liveness: false,
    now: () => clock,
  });
}

// Warm-up, not measured: a first crawl and a re-crawl of other origins into another database, so that neither
// measured phase pays for compiling the code the other has already run.
{
  const database = await target();
  const crawler = await crawlerOver(database);
  await crawler.add(Array.from({ length: WARMUP }, (_, i) => `http://warm${i}.bench.test:${port}`));
  await crawler.runOnce();
  clock += 301_000;
  await crawler.runOnce();
  await database.close();
}

// CPU time of this process (the crawler's side) beside wall time: on a shared machine it is the steadier figure.
// The load average before each phase says whether the machine was as busy for both.
const cpuSeconds = (usage: NodeJS.CpuUsage): number => Math.round((usage.user + usage.system) / 1e4) / 100;
const load = (): number => Math.round(loadavg()[0]! * 10) / 10;
const rate = (count: number, ms: number): number => Math.round((count * 1000) / ms);
const ratio = (a: number, b: number): number => Math.round((a / b) * 10) / 10;
const round2 = (value: number): number => Math.round(value * 100) / 100;

/** One round: a first crawl of every origin into a new database, then the unchanged re-crawl, back to back. */
async function round(profile: boolean) {
  const database = await target();
  const crawler = await crawlerOver(database);
  await crawler.add(Array.from({ length: ORIGINS }, (_, i) => `http://o${i}.bench.test:${port}`));
  const firstLoad = load();
  let fleetCpu = await fleetCpuSeconds();
  let cpu = process.cpuUsage();
  const first = await crawler.runOnce();
  const firstCpu = cpuSeconds(process.cpuUsage(cpu));
  const firstFleetCpu = (await fleetCpuSeconds()) - fleetCpu;
  clock += 301_000;
  const profiler = profile ? await startProfiler() : undefined;
  const againLoad = load();
  fleetCpu = await fleetCpuSeconds();
  cpu = process.cpuUsage();
  const again = await crawler.runOnce();
  const againCpu = cpuSeconds(process.cpuUsage(cpu));
  const againFleetCpu = (await fleetCpuSeconds()) - fleetCpu;
  if (profiler !== undefined) writeFileSync(PROFILE!, JSON.stringify(await profiler.stop()));
  await database.close();
  return {
    first: {
      seconds: first.elapsedMs / 1000,
      cpuSeconds: firstCpu,
      fleetCpuSeconds: round2(firstFleetCpu),
      loadAverage: firstLoad,
      originsPerSecond: rate(first.origins, first.elapsedMs),
      requests: first.documents,
      changed: first.changed,
      failed: first.failed,
      agents: first.upserted,
    },
    recrawl: {
      seconds: again.elapsedMs / 1000,
      cpuSeconds: againCpu,
      fleetCpuSeconds: round2(againFleetCpu),
      loadAverage: againLoad,
      originsPerSecond: rate(again.origins, again.elapsedMs),
      requests: again.documents,
      unchanged: again.unchanged,
      failed: again.failed,
    },
    speedup: ratio(first.elapsedMs, again.elapsedMs),
    cpuSpeedup: ratio(firstCpu, againCpu),
  };
}

/** The V8 profiler of this process, started (only the last re-crawl is profiled, with `PROFILE=file.cpuprofile`). */
async function startProfiler(): Promise<{ stop(): Promise<unknown> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
if (!json) {
  console.log(
    `bench/crawl: ${ORIGINS} origins, ${CONCURRENCY} at a time, 2 requests per origin, into ${SINK === 'sqlite' ? 'a recording SQLite sink' : 'a registry (embeddings none)'}; ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}`,
  );
}
const rounds = [];
for (let index = 0; index < ROUNDS; index++) {
  const result = await round(PROFILE !== undefined && index === ROUNDS - 1);
  rounds.push(result);
  if (json) continue;
  const { first, recrawl } = result;
  console.log(
    `  round ${index + 1}: first crawl ${first.seconds.toFixed(1)} s (CPU ${first.cpuSeconds} s, fleet ${first.fleetCpuSeconds} s, load ${first.loadAverage})  ` +
      `${first.originsPerSecond} origins/s  (${first.requests} requests, ${first.agents} agents, ${first.failed} failed)`,
  );
  console.log(
    `           re-crawl    ${recrawl.seconds.toFixed(1)} s (CPU ${recrawl.cpuSeconds} s, fleet ${recrawl.fleetCpuSeconds} s, load ${recrawl.loadAverage})  ` +
      `${recrawl.originsPerSecond} origins/s  (${recrawl.requests} requests, ${recrawl.unchanged} unchanged, ${recrawl.failed} failed)  ` +
      `${result.speedup}× faster, ${result.cpuSpeedup}× in CPU`,
  );
}
const summary = {
  origins: ORIGINS,
  concurrency: CONCURRENCY,
  sink: SINK,
  rounds,
  firstSeconds: median(rounds.map((result) => result.first.seconds)),
  recrawlSeconds: median(rounds.map((result) => result.recrawl.seconds)),
  speedup: median(rounds.map((result) => result.speedup)),
  cpuSpeedup: median(rounds.map((result) => result.cpuSpeedup)),
};
if (json) {
  console.log(JSON.stringify(summary));
} else {
  console.log(
    `  median: first crawl ${summary.firstSeconds.toFixed(1)} s (target ≤ 60 s), re-crawl ${summary.recrawlSeconds.toFixed(1)} s; ` +
      `re-crawl ${summary.speedup}× faster, ${summary.cpuSpeedup}× in CPU (target ≥ 3×)`,
  );
}
await fetcher.close();
child.stdin!.end();
await once(child, 'exit');
