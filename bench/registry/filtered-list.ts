/**
 * Filtered lists at a given size (issue #21: ≥ 5,000 requests/s at 1,000,000 agents): `GET /agents?tags=…&
 * capabilities=…&limit=20` over HTTP, `--concurrency` in flight (32), the answer cache off so that every request
 * does the work (`--answer-cache on`: as bench/registry serves them, where the pages of its few dozen filters are
 * kept until the next write), on registries opened on files a preload left (bench/registry/ann.ts `--role preload` or `--keep`),
 * the first a baseline (10,000 agents) the others are compared with, in the same run. Each file is served twice,
 * one after the other: answering from the facet index (`index`, store/facet-postings.ts) and from the statements
 * alone (`sql`: the index made to look unloaded, as before it is read). In process, before serving, each child also
 * times a first page and a search's scope (`searchScope`) for 20 filters, as the admin and as an anonymous caller
 * (both dialect-independent of HTTP).
 *
 *   node --max-old-space-size=8192 --import tsx bench/registry/filtered-list.ts
 *     --dbs /tmp/registry-10000.db,/work/bench-1m/registry-1000000.db [--requests 4000] [--concurrency 32]
 *     [--modes index,sql] [--sql-requests 64] [--answer-cache off|on]
 *
 * The files are opened as bench/registry/ann.ts's `measure` role opens them, with lexical search only; nothing is
 * written to them but what opening a registry writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serveRegistry } from '@agentry/registry';
import { Pool } from 'undici';
import { percentile } from '../measures.js';
import { generateFilter } from './agents.js';
import { openMeasuringRegistry } from './measuring-registry.js';

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'parent' },
    db: { type: 'string' },
    dbs: { type: 'string' },
    mode: { type: 'string', default: 'index' },
    modes: { type: 'string', default: 'index,sql' },
    requests: { type: 'string', default: '4000' },
    'sql-requests': { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '32' },
    'answer-cache': { type: 'string', default: 'off' },
  },
});

interface InProcess {
  agents: number;
  /** ms to read the facet index (waited for in both modes). */
  indexLoadMs: number;
  firstPageMs: number[];
  scopeMs: number[];
  scopeSizes: number[];
}

/** The child: opens the registry, times pages and scopes in process, then serves until stdin closes. */
async function serve(db: string, mode: string): Promise<void> {
  const registry = await openMeasuringRegistry(db, { answerCache: args['answer-cache'] === 'on' });
  const { store } = registry;
  // Both modes read the index first (GET /facets waits for it), so both serve with the same memory and CPU spent.
  const loading = performance.now();
  await store.facets.current();
  const indexLoadMs = performance.now() - loading;
  // `sql`: the index looks unloaded, so lists and scopes take the statements, as before it is read.
  if (mode === 'sql') Object.defineProperty(store.facets, 'loaded', { get: () => false });
  const { total } = await store.db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const out: InProcess = {
    agents: Number(total),
    indexLoadMs,
    firstPageMs: [],
    scopeMs: [],
    scopeSizes: [],
  };
  const admin = { kind: 'admin' as const, groups: [] };
  const anonymous = { kind: 'anonymous' as const, groups: [] };
  for (let i = 0; i < 20; i++) {
    const { tags, capabilities } = generateFilter(1000 + i);
    const filters = { tags: [tags], capabilities: [capabilities] };
    const caller = i % 2 === 0 ? admin : anonymous;
    let at = performance.now();
    await store.agents.list({ caller, filters, limit: 20 });
    out.firstPageMs.push(performance.now() - at);
    at = performance.now();
    const scope = await store.agents.searchScope(caller, filters);
    out.scopeMs.push(performance.now() - at);
    out.scopeSizes.push(scope.candidates?.size ?? -1);
  }
  const served = await serveRegistry(registry);
  process.stdout.write(`READY ${JSON.stringify({ url: served.url, ...out })}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on('end', resolve));
  await served.close();
  await registry.close();
}

interface Child {
  ready: InProcess & { url: string };
  /** The server process's CPU seconds so far (Linux: /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** User and system CPU seconds of process `pid`, from /proc/<pid>/stat (clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function startServer(db: string, mode: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--max-old-space-size=8192',
        '--import',
        'tsx',
        script,
        '--role',
        'serve',
        '--db',
        db,
        '--mode',
        mode,
        '--answer-cache',
        args['answer-cache'],
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((each) => each.startsWith('READY '));
      if (line === undefined) return;
      child.stdout?.removeAllListeners('data');
      resolve({
        ready: JSON.parse(line.slice('READY '.length)) as Child['ready'],
        cpuSeconds: () => processCpuSeconds(child.pid!),
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.stdin?.end();
          }),
      });
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`server exited with ${code}`));
    });
  });
}

/** `total` filtered list requests, `concurrency` in flight; requests a second and the latencies. */
async function load(
  url: string,
  total: number,
  concurrency: number,
): Promise<{ perSecond: number; latencies: number[] }> {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) {
      const { tags, capabilities } = generateFilter(next++);
      const sent = performance.now();
      const response = await pool.request({
        method: 'GET',
        path: `/agents?tags=${tags}&capabilities=${capabilities}&limit=20`,
      });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`list answered ${response.statusCode}`);
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { perSecond: total / seconds, latencies };
}

async function parent(): Promise<void> {
  const dbs = (args.dbs ?? '').split(',').filter((db) => db !== '');
  if (dbs.length === 0) throw new Error('--dbs is required');
  const concurrency = Number(args.concurrency);
  const rates = new Map<string, number>();
  for (const db of dbs) {
    for (const mode of args.modes.split(',')) {
      const requests = Number(mode === 'sql' ? args['sql-requests'] : args.requests);
      const child = await startServer(db, mode);
      try {
        const { ready } = child;
        await load(ready.url, Math.min(200, requests), concurrency); // warm-up
        const before = loadavg()[0]!;
        const cpu = process.cpuUsage();
        const serverCpu = child.cpuSeconds();
        const measured = await load(ready.url, requests, concurrency);
        const used = process.cpuUsage(cpu);
        const serverMsPerList = ((child.cpuSeconds() - serverCpu) * 1000) / requests;
        const baseline = rates.get(`${dbs[0]}|${mode}`);
        rates.set(`${db}|${mode}`, measured.perSecond);
        process.stdout.write(
          `${ready.agents} agents, ${mode}, answer cache ${args['answer-cache']}: ${measured.perSecond.toFixed(0)} lists/s over HTTP (${concurrency} in flight, ${requests} requests, p50 ${percentile(measured.latencies, 50).toFixed(1)} / p99 ${percentile(measured.latencies, 99).toFixed(1)} ms, server CPU ${serverMsPerList.toFixed(2)} ms a list` +
            `${baseline === undefined || db === dbs[0] ? '' : `, ${(measured.perSecond / baseline).toFixed(2)}x of ${dbs[0]}`}; load generator CPU ${((used.user + used.system) / 1e6).toFixed(1)} s); ` +
            `first page p50 ${percentile(ready.firstPageMs, 50).toFixed(1)} / max ${Math.max(...ready.firstPageMs).toFixed(1)} ms, ` +
            `searchScope p50 ${percentile(ready.scopeMs, 50).toFixed(1)} / max ${Math.max(...ready.scopeMs).toFixed(1)} ms (${percentile(ready.scopeSizes, 50)} agents); ` +
            `index read in ${(ready.indexLoadMs / 1000).toFixed(1)} s; load ${before.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}\n`,
        );
      } finally {
        await child.stop();
      }
    }
    const index = rates.get(`${db}|index`);
    const statements = rates.get(`${db}|sql`);
    if (index !== undefined && statements !== undefined)
      process.stdout.write(`  index / sql: ${(index / statements).toFixed(1)}x\n`);
  }
}

const main = args.role === 'serve' ? serve(args.db ?? '', args.mode) : parent();
main.catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
