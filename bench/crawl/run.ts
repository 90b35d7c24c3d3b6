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
 *   npm run build && node --import tsx bench/crawl/run.ts          human-readable
 *   ORIGINS=2000 node --import tsx bench/crawl/run.ts --json        machine-readable, fewer origins
 *   ORIGINS=2000 SINK=registry node --import tsx bench/crawl/run.ts   into a registry
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createSecureFetcher, type LookupFunction } from '@agentry/client';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { createCrawler } from '../../packages/registry/src/crawl/scheduler.js';
import type { CrawlTables } from '../../packages/registry/src/crawl/tables.js';
import type { CrawlSink } from '../../packages/registry/src/crawl/types.js';
import { createRegistry } from '../../packages/registry/src/registry.js';
import { openTestDatabase } from '../../packages/registry/test/crawl/support/db.js';

const ORIGINS = Number(process.env['ORIGINS'] ?? 10_000);
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
const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
const port = Number(line);

const lookup: LookupFunction = async () => [{ address: '127.0.0.1', family: 4 }];
const fetcher = createSecureFetcher({
  allowHttp: true,
  allowAddresses: [`127.0.0.1:${port}`],
  lookup,
  cache: false,
  timeoutMs: 30_000,
});
/** The crawler's database and sink: a bare SQLite file with a recording sink, or a whole registry. */
async function target(): Promise<{ db: Kysely<CrawlTables>; sink: CrawlSink; close(): Promise<void> }> {
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
    db: registry.store.db as unknown as Kysely<CrawlTables>,
    sink: registry.crawlSink,
    async close() {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const database = await target();
let clock = Date.parse('2026-11-21T00:00:00Z');
const crawler = createCrawler({
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
const origins = Array.from({ length: ORIGINS }, (_, i) => `http://o${i}.bench.test:${port}`);
await crawler.add(origins);

// CPU time of this process (the crawler's side) beside wall time: on a shared machine it is the steadier figure.
const cpuSeconds = (usage: NodeJS.CpuUsage): number => Math.round((usage.user + usage.system) / 1e4) / 100;
let cpu = process.cpuUsage();
const first = await crawler.runOnce();
const firstCpu = cpuSeconds(process.cpuUsage(cpu));
clock += 301_000;
cpu = process.cpuUsage();
const again = await crawler.runOnce();
const againCpu = cpuSeconds(process.cpuUsage(cpu));

const rate = (count: number, ms: number): number => Math.round((count * 1000) / ms);
const result = {
  origins: ORIGINS,
  concurrency: CONCURRENCY,
  sink: SINK,
  first: {
    seconds: first.elapsedMs / 1000,
    cpuSeconds: firstCpu,
    originsPerSecond: rate(first.origins, first.elapsedMs),
    requests: first.documents,
    changed: first.changed,
    failed: first.failed,
    agents: first.upserted,
  },
  recrawl: {
    seconds: again.elapsedMs / 1000,
    cpuSeconds: againCpu,
    originsPerSecond: rate(again.origins, again.elapsedMs),
    requests: again.documents,
    unchanged: again.unchanged,
    failed: again.failed,
  },
  speedup: Math.round((first.elapsedMs / again.elapsedMs) * 10) / 10,
  cpuSpeedup: Math.round((firstCpu / againCpu) * 10) / 10,
};
if (json) {
  console.log(JSON.stringify(result));
} else {
  console.log(
    `bench/crawl: ${ORIGINS} origins, ${CONCURRENCY} at a time, 2 requests per origin, into ${SINK === 'sqlite' ? 'a recording SQLite sink' : 'a registry (embeddings none)'}`,
  );
  console.log(
    `  first crawl  ${result.first.seconds.toFixed(1)} s (CPU ${firstCpu} s)  ${result.first.originsPerSecond} origins/s  ` +
      `(${result.first.requests} requests, ${result.first.agents} agents, ${result.first.failed} failed; target ≤ 60 s)`,
  );
  console.log(
    `  re-crawl     ${result.recrawl.seconds.toFixed(1)} s (CPU ${againCpu} s)  ${result.recrawl.originsPerSecond} origins/s  ` +
      `(${result.recrawl.requests} requests, ${result.recrawl.unchanged} unchanged; ${result.speedup}× faster, ` +
      `${result.cpuSpeedup}× in CPU; target ≥ 3×)`,
  );
}
await fetcher.close();
await database.close();
child.stdin!.end();
await once(child, 'exit');
