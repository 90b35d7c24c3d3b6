/**
 * Hybrid search with the approximate nearest-neighbour index against the exact pass, on one database, in the same
 * run (issue #21 item 7; docs/search.md, "A vector index that scales"). For each size: a child process preloads the
 * generated agents through `loadAgents` (stand-in vectors: 512 dimensions, a seeded random vector per word summed
 * over the agent's text, so agents that share words are near); then a child opens the registry on that file with the
 * index off (`vectorIndex.approximateFrom: Infinity`) and one with it on (default threshold, or `--approximate-from`),
 * one after the other, each measuring in process through `registry.fetch`:
 *
 * - hybrid search (`POST /agents/search`, top 10, one at a time) p50/p99, plain and with a tag + capability filter;
 * - semantic search p50/p99 (where the index's share of the time shows most);
 * - filtered list requests/s (`GET /agents?tags=…&capabilities=…`, one at a time, in process: not comparable with
 *   bench/registry's figure over HTTP with 32 in flight);
 * - resident memory after the searches (and after a full garbage collection, which the children are given
 *   `--expose-gc` for), and how long the index took to build after the vectors were loaded (trained, and its lists'
 *   rows placed: the searches are measured once the build is done);
 * and the parent prints recall@10 of the index's hits against the exact ones, hybrid and semantic. Both runs rank
 * lexically in memory from the registry's threshold on (`lexicalInMemoryFrom`, default 50,000, or
 * `--lexical-in-memory-from`); a third run, with the vector index on, ranks lexically in the database
 * (`lexicalInMemoryFrom: Infinity`) as the baseline of the lexical index in memory (docs/search.md, "The lexical
 * index in memory"): its open time and resident memory less theirs are what loading it costs.
 *
 *   npm run bench:registry-ann -- [--agents 10000,100000] [--searches 200] [--approximate-from 50000]
 *     [--probes <n>] [--keep <dir>] [--preloaded] [--batch 5000] [--measures hybrid,semantic,filtered,list]
 *     [--lexical-in-memory-from 50000]
 *
 * `--rounds <n>` (for the `measure` role) runs the same searches n times in the process: the first round's figures are
 * the ones reported (and compared for recall), later ones go to `again` in the JSON line, so a slow search that is
 * slow only the first time (its hits' rows read from disk) tells itself from one slow every time. The role also
 * writes the five slowest searches of each measure, with their query numbers, to stderr.
 * `--batch` is how many agents each `loadAgents` call of the preload takes (one transaction each). At 1,000,000
 * agents the file is about 14.4 GB and the preload about 25 minutes of CPU (docs/search.md, "At 1,000,000 agents"):
 * run it in the background with `--keep`, and measure the file again with `--preloaded`. `--measures` (for the
 * `measure` role) leaves out what is not named: an exact pass of semantic searches alone gives recall@10 at that size
 * in minutes, where exact hybrid searches take seconds each.
 * `--keep <dir>` keeps each size's database there (`registry-<agents>.db`); `--preloaded` measures the databases a
 * run with `--keep` left instead of preloading again.
 * On PostgreSQL, one role at a time: `--role measure --db postgres://…/<database>` measures a registry there (one
 * `agentry migrate` filled from a preloaded file; docs/deploy.md) and prints its JSON line; `--approximate-from`
 * as above.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadAgents, type Registry } from '@agentry/registry';
import { percentile, recall } from '../measures.js';
import { generateFilter, generateQuery, readGeneratedAgent } from './agents.js';
import { openMeasuringRegistry, searchThroughFetch } from './measuring-registry.js';

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'parent' },
    db: { type: 'string' },
    agents: { type: 'string', default: '10000,100000' },
    searches: { type: 'string', default: '200' },
    'approximate-from': { type: 'string' },
    probes: { type: 'string' },
    keep: { type: 'string' },
    preloaded: { type: 'boolean', default: false },
    batch: { type: 'string', default: '5000' },
    measures: { type: 'string', default: 'hybrid,semantic,filtered,list' },
    'lexical-in-memory-from': { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
});

/** `--lexical-in-memory-from` (absent: the registry's default). */
const lexicalInMemoryFrom =
  args['lexical-in-memory-from'] === undefined ? undefined : Number(args['lexical-in-memory-from']);

function open(db: string, approximateFrom: number, lexicalFrom = lexicalInMemoryFrom): Promise<Registry> {
  return openMeasuringRegistry(db, {
    approximateFrom,
    ...(args.probes === undefined ? {} : { probes: Number(args.probes) }),
    ...(lexicalFrom === undefined ? {} : { lexicalInMemoryFrom: lexicalFrom }),
  });
}

async function preload(db: string, agents: number): Promise<void> {
  // The indexes in memory stay off while loading: their training and loading would compete with the preload.
  const registry = await open(db, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  const started = performance.now();
  const size = Number(args.batch);
  for (let from = 0; from < agents; from += size) {
    const batch = [];
    for (let i = from; i < Math.min(agents, from + size); i++) {
      batch.push(readGeneratedAgent(i));
    }
    await loadAgents(registry, batch, { owner: 'bench' });
    if (Math.floor((from + size) / 50_000) > Math.floor(from / 50_000)) {
      process.stderr.write(
        `  preloaded ${Math.min(agents, from + size)} in ${((performance.now() - started) / 1000).toFixed(0)} s (CPU ${cpuSeconds().toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)})\n`,
      );
    }
  }
  await registry.close();
  process.stdout.write(
    `${JSON.stringify({ preloadMs: performance.now() - started, cpu: process.cpuUsage() })}\n`,
  );
}

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

interface Measured {
  approximate: boolean;
  lexicalInMemory: boolean;
  openMs: number;
  trainMs: number;
  hybrid: number[];
  semantic: number[];
  filtered: number[];
  hybridIds: string[][];
  semanticIds: string[][];
  listPerSecond: number;
  rss: number;
  /** RSS after a full garbage collection (with `node --expose-gc`): what the replica holds, without garbage. */
  rssAfterGc?: number;
  /** The same searches' times in later rounds (`--rounds`), round after round. */
  again: Array<Pick<Measured, 'hybrid' | 'semantic' | 'filtered'>>;
}

async function measure(db: string, approximateFrom: number): Promise<void> {
  const started = performance.now();
  const registry = await open(db, approximateFrom);
  const openMs = performance.now() - started;
  // The index is built in the background after the vectors are loaded; searches are exact until it is trained,
  // then share the thread with the rest of the build (its lists' rows moved into runs). Measured once it is done.
  const deadline = Date.now() + 60 * 60_000;
  let approximate = false;
  while (Date.now() < deadline) {
    const stats = await registry.search.stats();
    approximate = stats.approximate === true;
    // Below the threshold there is nothing to wait for: the search stays exact.
    if ((approximate && stats.vectorIndexBuilding !== true) || !(stats.embedded >= approximateFrom)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const trainMs = performance.now() - started - openMs;
  const lexicalInMemory = (await registry.search.stats()).lexicalInMemory === true;
  const searches = Number(args.searches);
  const search = (body: object) => searchThroughFetch(registry, body);
  // Garbage collections, to say how much of a slow search was a collection's pause.
  const collections: Array<{ start: number; end: number }> = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const paused = (from: number, to: number) =>
    collections.reduce((sum, gc) => sum + Math.max(0, Math.min(to, gc.end) - Math.max(from, gc.start)), 0);
  const timed = async (body: object) => {
    const at = performance.now();
    const results = await search(body);
    const end = performance.now();
    return { ms: end - at, ids: results.map((result) => result.id), at, end };
  };

  const warmMode = args.measures.includes('hybrid') ? 'hybrid' : 'semantic';
  for (let i = 0; i < 20; i++) await search({ query: generateQuery(900_000 + i), top: 10, mode: warmMode }); // warm-up
  const out: Measured = {
    approximate,
    lexicalInMemory,
    openMs,
    trainMs,
    hybrid: [],
    semantic: [],
    filtered: [],
    hybridIds: [],
    semanticIds: [],
    listPerSecond: 0,
    rss: 0,
    again: [],
  };
  const measures = new Set(args.measures.split(','));
  for (let round = 0; round < Number(args.rounds); round++) {
    const times =
      round === 0 ? out : { hybrid: [] as number[], semantic: [] as number[], filtered: [] as number[] };
    if (round > 0) out.again.push(times);
    // When each search of the round ran, to find its collections once the observer has reported them.
    const spans: Record<'hybrid' | 'semantic' | 'filtered', Array<[number, number]>> = {
      hybrid: [],
      semantic: [],
      filtered: [],
    };
    for (let i = 0; i < searches; i++) {
      if (measures.has('hybrid')) {
        const hybrid = await timed({ query: generateQuery(100_000 + i), top: 10, mode: 'hybrid' });
        times.hybrid.push(hybrid.ms);
        spans.hybrid.push([hybrid.at, hybrid.end]);
        if (round === 0) out.hybridIds.push(hybrid.ids);
      }
      if (measures.has('semantic')) {
        const semantic = await timed({ query: generateQuery(100_000 + i), top: 10, mode: 'semantic' });
        times.semantic.push(semantic.ms);
        spans.semantic.push([semantic.at, semantic.end]);
        if (round === 0) out.semanticIds.push(semantic.ids);
      }
      if (measures.has('filtered')) {
        const { tags, capabilities } = generateFilter(i);
        const filtered = await timed({
          query: generateQuery(300_000 + i),
          top: 10,
          mode: 'hybrid',
          filters: { tags: [tags], capabilities: [capabilities] },
        });
        times.filtered.push(filtered.ms);
        spans.filtered.push([filtered.at, filtered.end]);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // the observer reports a moment later
    for (const name of ['hybrid', 'semantic', 'filtered'] as const) {
      const values = times[name];
      if (values.length === 0) continue;
      const slowest = values
        .map((ms, i) => [i, ms] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(
          ([i, ms]) =>
            `#${i} ${ms.toFixed(1)} ms (GC ${paused(...spans[name][i]!).toFixed(1)}, at ${(spans[name][i]![0] / 1000).toFixed(2)} s)`,
        );
      process.stderr.write(`  round ${round + 1}, ${name}: slowest ${slowest.join(', ')}\n`);
    }
  }
  gcObserver.disconnect();
  // A served registry reads its facet index a few seconds after it opens; lists answer from it once it is read
  // (store/facet-postings.ts), so the measure waits for it as a running server would have.
  if (measures.has('list')) await registry.store.facets.current();
  const listStarted = performance.now();
  let lists = 0;
  while (measures.has('list') && performance.now() - listStarted < 3000) {
    const { tags, capabilities } = generateFilter(lists);
    const response = await registry.fetch(
      new Request(`http://127.0.0.1/agents?tags=${tags}&capabilities=${capabilities}`),
    );
    if (response.status !== 200) throw new Error(`list answered ${response.status}`);
    await response.arrayBuffer();
    lists++;
  }
  out.listPerSecond = lists / ((performance.now() - listStarted) / 1000);
  out.rss = process.memoryUsage().rss;
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect !== undefined) {
    collect();
    out.rssAfterGc = process.memoryUsage().rss;
  }
  await registry.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function child(role: string, db: string, extra: string[] = []): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const process_: ChildProcess = spawn(
      process.execPath,
      [
        '--max-old-space-size=8192',
        '--expose-gc',
        '--import',
        'tsx',
        script,
        '--role',
        role,
        '--db',
        db,
        ...extra,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    process_.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    process_.on('error', reject);
    process_.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${role} exited with ${code}`));
      else resolve(JSON.parse(output.trim().split('\n').at(-1)!));
    });
  });
}

async function parent(): Promise<void> {
  const sizes = args.agents.split(',').map(Number);
  const threshold = args['approximate-from'] ?? '50000';
  const lexical = args['lexical-in-memory-from'];
  const probes = args.probes === undefined ? [] : ['--probes', args.probes];
  const extra = [...probes, ...(lexical === undefined ? [] : ['--lexical-in-memory-from', lexical])];
  for (const agents of sizes) {
    const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'agentry-bench-ann-'));
    const db = join(dir, `registry-${agents}.db`);
    try {
      process.stdout.write(`${agents} agents (load ${loadavg()[0]!.toFixed(1)})\n`);
      if (!args.preloaded) {
        const loaded = (await child('preload', db, ['--agents', String(agents)])) as {
          preloadMs: number;
          cpu: { user: number; system: number };
        };
        process.stdout.write(
          `  preload ${(loaded.preloadMs / 1000).toFixed(0)} s, CPU ${((loaded.cpu.user + loaded.cpu.system) / 1e6).toFixed(0)} s\n`,
        );
      }
      const exact = (await child('measure', db, ['--approximate-from', 'Infinity', ...extra])) as Measured;
      const ann = (await child('measure', db, ['--approximate-from', threshold, ...extra])) as Measured;
      const stored =
        lexical === 'Infinity'
          ? undefined
          : ((await child('measure', db, [
              '--approximate-from',
              threshold,
              ...probes,
              '--lexical-in-memory-from',
              'Infinity',
            ])) as Measured);
      const runs: Array<readonly [string, Measured]> = [
        ['index off', exact],
        [`index on (from ${threshold})`, ann],
        ...(stored === undefined ? [] : [['index on, lexical in the database', stored] as const]),
      ];
      for (const [name, run] of runs) {
        const line = (label: string, values: number[]) =>
          `${label} p50 ${percentile(values, 50).toFixed(1)} / p99 ${percentile(values, 99).toFixed(1)} ms`;
        process.stdout.write(
          `  ${name}: approximate ${run.approximate}, lexical in memory ${run.lexicalInMemory}, open ${(run.openMs / 1000).toFixed(1)} s, trained ${(run.trainMs / 1000).toFixed(1)} s later; ${line('hybrid', run.hybrid)}, ${line('semantic', run.semantic)}, ${line('filtered hybrid', run.filtered)}; filtered list ${run.listPerSecond.toFixed(0)}/s in process; RSS ${(run.rss / 1024 ** 3).toFixed(2)} GB${run.rssAfterGc === undefined ? '' : ` (${(run.rssAfterGc / 1024 ** 3).toFixed(2)} GB after a full GC)`}\n`,
        );
      }
      if (stored !== undefined) {
        const ratio = (values: number[], baseline: number[], p: number) =>
          (percentile(values, p) / percentile(baseline, p)).toFixed(3);
        process.stdout.write(
          `  lexical in memory against in the database (index on): hybrid p50 ×${ratio(ann.hybrid, stored.hybrid, 50)}, p99 ×${ratio(ann.hybrid, stored.hybrid, 99)}; filtered hybrid p50 ×${ratio(ann.filtered, stored.filtered, 50)}; open +${((ann.openMs - stored.openMs) / 1000).toFixed(1)} s, RSS +${((ann.rss - stored.rss) / 1024 ** 2).toFixed(0)} MB; hybrid top 10 alike ${recall(ann.hybridIds, stored.hybridIds).toFixed(3)}\n`,
        );
      }
      process.stdout.write(
        `  recall@10 of the index against the exact pass: hybrid ${recall(ann.hybridIds, exact.hybridIds).toFixed(3)}, semantic ${recall(ann.semanticIds, exact.semanticIds).toFixed(3)}\n`,
      );
    } finally {
      if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
    }
  }
}

const role = args.role;
const db = args.db ?? '';
const main =
  role === 'preload'
    ? preload(db, Number(args.agents))
    : role === 'measure'
      ? measure(db, Number(args['approximate-from'] ?? '50000'))
      : parent();
main.catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
