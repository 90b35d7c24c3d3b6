/**
 * bench/ann/semantic-path.ts: the semantic half of a registry search alone, on a file bench/registry/ann.ts
 * preloaded (`--keep`), so the vector path can be timed and profiled without the lexical engine's or SQLite's time
 * (issue #21, docs/search.md "At 1,000,000 agents"). The file is opened read-only; its vectors are loaded into the
 * registry's `VectorStore` (search/vector-store.ts) as a registry loads them, and each query runs what a search runs
 * after its reads: `similarities` (the index's pool, the population sample, or the exact pass) and `rank` (fusion,
 * feedback's centroid). A hybrid query's lexical matches are stand-ins: `--lexical` agents drawn by a seeded
 * generator, BM25 falling with rank, as a lexical pool of that size costs the vector path the same lookups.
 *
 * Prints, per probe count: p50/p99 and CPU ms a query, semantic and hybrid, and recall@10 against the exact pass
 * (the store with the index off, run first when `--exact` is given), with the load average. `--exact-file <file>`
 * keeps the exact pass's hits there (the same queries give the same hits whatever the index does), so a run of other
 * code or options reads them instead of running the exact pass again.
 *
 *   node --max-old-space-size=8192 --import tsx bench/ann/semantic-path.ts --db <dir>/registry-200000.db
 *     [--queries 200] [--probes 8,16,30] [--exact] [--exact-file <file>] [--clauses 1] [--lexical 1000] [--excluded 0] [--candidates 0]
 *
 * `--clauses n` joins n generated queries with ", then " (a query of n clauses embeds n + 1 vectors);
 * `--excluded n` hides n agents (every caller's scope excludes them); `--candidates f` searches within a filter of
 * that fraction of the agents.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import BetterSqlite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../packages/registry/src/db/database.js';
import { rank } from '../../packages/registry/src/search/rank.js';
import { querySegments } from '../../packages/registry/src/search/semantic/query-segments.js';
import { withMentionKinds } from '../../packages/registry/src/search/text/mentions.js';
import { loadVectorStore, type VectorStoreOptions } from '../../packages/registry/src/search/vector-store.js';
import { percentile, recall } from '../measures.js';
import { generateQuery, random } from '../registry/agents.js';
import { standInProvider } from '../registry/stand-in-provider.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string', default: '200' },
    probes: { type: 'string', default: '' },
    exact: { type: 'boolean', default: false },
    'exact-file': { type: 'string' },
    clauses: { type: 'string', default: '1' },
    lexical: { type: 'string', default: '1000' },
    excluded: { type: 'string', default: '0' },
    candidates: { type: 'string', default: '0' },
    modes: { type: 'string', default: 'semantic,hybrid' },
  },
});
if (args.db === undefined) throw new Error('--db <file> is required');

const provider = standInProvider();
const database = new BetterSqlite(args.db, { readonly: true });
const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });

const ids = database
  .prepare('SELECT agent_id FROM search_vectors WHERE vector IS NOT NULL')
  .pluck()
  .all() as string[];
const draw = random(20261128);
const pick = () => ids[Math.floor(draw() * ids.length)]!;
const excluded =
  Number(args.excluded) > 0 ? new Set(Array.from({ length: Number(args.excluded) }, pick)) : undefined;
const candidateShare = Number(args.candidates);
const candidates = candidateShare > 0 ? new Set(ids.filter(() => draw() < candidateShare)) : undefined;
const scope = { candidates, excluded };
const inScope = (id: string) => excluded?.has(id) !== true && candidates?.has(id) !== false;

interface Query {
  vectors: Float32Array[];
  lexical: Array<{ id: string; score: number }>;
}
const queries: Query[] = [];
const clauseCount = Math.max(1, Number(args.clauses));
for (let i = 0; i < 20 + Number(args.queries); i++) {
  const parts = Array.from({ length: clauseCount }, (_, c) => generateQuery(100_000 + i * clauseCount + c));
  const request = withMentionKinds(parts.join(', then '));
  const vectors = await provider.embed([request, ...querySegments(request)]);
  const lexical = [];
  for (let r = 0; r < Number(args.lexical); r++) {
    const id = pick();
    if (inScope(id)) lexical.push({ id, score: 20 / (1 + r / 50) });
  }
  queries.push({ vectors, lexical });
}
const modes = args.modes.split(',') as Array<'semantic' | 'hybrid'>;
process.stdout.write(
  `${ids.length} vectors; ${queries.length - 20} queries of ${queries[0]!.vectors.length} vectors; lexical ${args.lexical}, excluded ${excluded?.size ?? 0}, candidates ${candidates?.size ?? 'all'} (load ${loadavg()[0]!.toFixed(1)})\n`,
);

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function run(options: VectorStoreOptions, label: string, probeCounts: Array<number | undefined>) {
  const loadStarted = performance.now();
  const store = await loadVectorStore(db, provider, options);
  const loaded = performance.now();
  while (options.approximateFrom !== Number.POSITIVE_INFINITY && !store.approximate) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  process.stdout.write(
    `${label}: loaded ${((loaded - loadStarted) / 1000).toFixed(1)} s, trained ${((performance.now() - loaded) / 1000).toFixed(1)} s later; RSS ${(process.memoryUsage().rss / 1024 ** 3).toFixed(2)} GB\n`,
  );
  const results = new Map<string, string[][]>();
  for (const probes of probeCounts) {
    // The store reads its options at each search: a probe count per pass without loading again.
    if (probes === undefined) delete options.probes;
    else options.probes = probes;
    for (const mode of modes) {
      const times: number[] = [];
      const found: string[][] = [];
      const cpuStarted = cpuMs();
      for (const [i, query] of queries.entries()) {
        const started = performance.now();
        const lexical = mode === 'hybrid' ? query.lexical : [];
        const ranking = store.similarities(
          query.vectors,
          scope,
          lexical.map((match) => match.id),
        );
        const hits = rank({ mode, top: 10, lexical, ...ranking, demotions: store.demotions });
        if (i < 20) continue; // warm-up
        times.push(performance.now() - started);
        found.push(hits.map((hit) => hit.id));
      }
      const cpu = (cpuMs() - cpuStarted) / queries.length;
      results.set(`${probes ?? 'default'} ${mode}`, found);
      const truth = exactHits.get(mode);
      process.stdout.write(
        `  probes ${probes ?? 'default'} ${mode}: p50 ${percentile(times, 50).toFixed(2)} / p99 ${percentile(times, 99).toFixed(2)} ms, CPU ${cpu.toFixed(2)} ms a query${truth ? `, recall@10 ${recall(found, truth).toFixed(3)}` : ''} (load ${loadavg()[0]!.toFixed(1)})\n`,
      );
    }
  }
  return results;
}

const exactHits = new Map<string, string[][]>();
const exactFile = args['exact-file'];
if (exactFile !== undefined && existsSync(exactFile)) {
  for (const [mode, hits] of Object.entries(
    JSON.parse(readFileSync(exactFile, 'utf8')) as Record<string, string[][]>,
  ))
    exactHits.set(mode, hits);
} else if (args.exact) {
  const results = await run({ approximateFrom: Number.POSITIVE_INFINITY }, 'exact (index off)', [undefined]);
  for (const mode of modes) exactHits.set(mode, results.get(`default ${mode}`)!);
  if (exactFile !== undefined) writeFileSync(exactFile, JSON.stringify(Object.fromEntries(exactHits)));
}
const probeCounts = args.probes === '' ? [undefined] : args.probes.split(',').map(Number);
await run({}, 'index on', probeCounts);
await db.destroy();
