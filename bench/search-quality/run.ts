/**
 * bench/search-quality: ranking quality of the registry's search on the development retrieval benchmarks in
 * ../shared/bench (see its README). Each set is registered into a fresh registry (a temp SQLite file, the bundled
 * USE-lite model) through its API, `POST /agents` as AIDIP metadata, and every query is asked of
 * `POST /agents/search` lexically, semantically and hybrid; the table shows NDCG@10, Recall@5, Recall@10 and
 * MRR@10 (×100, averaged over queries). The requests go to the registry's web-standard handler in this process,
 * not over a socket: the same code, without the network's noise.
 *
 * MetaTool's single-tool set has 20,550 queries; a fixed sample of 1,000 is scored (every 20.55th query in file
 * order, which spreads it over all tools). `--max-queries N` changes that bound for every set.
 *
 * Targets (issue text): on each set hybrid beats lexical by at least 5 NDCG@10 points and is never below
 * semantic-only. The process exits 1 when a target is missed.
 *
 *   node --import tsx bench/search-quality/run.ts                       all sets, human-readable
 *   node --import tsx bench/search-quality/run.ts --json                machine-readable
 *   node --import tsx bench/search-quality/run.ts --only livemcpbench-tools
 *   node --import tsx bench/search-quality/run.ts --embedding-cache /tmp/use-lite.json   reuse vectors across runs
 *   node --import tsx bench/search-quality/run.ts --lexical postgres    lexical-only NDCG@10, FTS5 beside PostgreSQL
 *   node --import tsx bench/search-quality/run.ts --database postgres   the whole registry on PostgreSQL
 *
 * `--database postgres` runs each set's registry on a fresh PostgreSQL database (created on the server
 * `AGENTRY_BENCH_POSTGRES` names, default the local one, and dropped at the end) instead of a temp SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chosenUseLiteEngine, createUseLiteProvider, type EmbeddingProvider } from '@agentry/embeddings';
import { createRegistry, type Registry } from '@agentry/registry';
import pg from 'pg';
import pino from 'pino';
import { MAX_QUERY_CHARS } from '../../packages/registry/src/api/queries.js';
import type { SearchMode } from '../../packages/registry/src/search/index.js';
import { DATASETS, type Dataset, loadDataset } from './datasets.js';
import { cachedProvider } from './embedding-cache.js';
import { gainsOf, meanScores, type RetrievalScores, scoreRanking } from './metrics.js';

const MODES: readonly SearchMode[] = ['lexical', 'semantic', 'hybrid'];
const TARGET_GAIN_OVER_LEXICAL = 0.05;

const { values: args } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    'max-queries': { type: 'string', default: '1000' },
    'embedding-cache': { type: 'string' },
    bench: { type: 'string' },
    lexical: { type: 'string' },
    database: { type: 'string', default: 'sqlite' },
  },
});
if (args.database !== 'sqlite' && args.database !== 'postgres') {
  throw new Error('--database takes sqlite or postgres');
}

const here = fileURLToPath(new URL('.', import.meta.url));
const benchDir = resolve(args.bench ?? join(here, '../../../shared/bench'));
const maxQueries = Number(args['max-queries']);
const useLite = createUseLiteProvider();
const cache = args['embedding-cache'] ? cachedProvider(useLite, args['embedding-cache']) : undefined;
const provider: EmbeddingProvider = cache ?? useLite;

interface DatasetResult {
  dataset: string;
  documents: number;
  queries: number;
  totalQueries: number;
  scores: Record<SearchMode, RetrievalScores>;
  hybridBeatsLexical: boolean;
  hybridNotBelowSemantic: boolean;
  seconds: number;
}

const ADMIN = 'search-quality-bench-admin-token';
const UNLIMITED = { requests: 1e9, windowSeconds: 1 };

async function runDataset(dataset: Dataset): Promise<DatasetResult> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'agentry-search-bench-'));
  const postgres = args.database === 'postgres' ? await freshBenchDatabase() : undefined;
  const registry = await createRegistry({
    databasePath: postgres?.url ?? join(dir, 'registry.db'),
    embeddingProvider: provider,
    adminToken: ADMIN,
    logger: pino({ level: 'silent' }),
    rateLimits: { default: UNLIMITED, search: UNLIMITED, resolve: UNLIMITED },
    backgroundEmbedding: false,
  });
  try {
    // The registry's ids (URL-safe) back to the set's.
    const setIdOf = new Map<string, string>();
    for (const agent of dataset.agents) {
      const stored = (await call(registry, 'POST', '/agents', agent.document)) as { id: string };
      setIdOf.set(stored.id, agent.id);
    }

    const perMode: Record<SearchMode, RetrievalScores[]> = { lexical: [], semantic: [], hybrid: [] };
    for (const query of dataset.queries) {
      const gains = gainsOf(query.relevant, query.grades);
      for (const mode of MODES) {
        const hits = (await call(registry, 'POST', '/agents/search', {
          // The API takes 2,000 characters (one LiveMCPBench task pastes an 18,000-character base64 image).
          query: query.text.slice(0, MAX_QUERY_CHARS),
          top: 10,
          mode,
        })) as Array<{ id: string }>;
        perMode[mode].push(
          scoreRanking(
            hits.map((hit) => setIdOf.get(hit.id) ?? hit.id),
            gains,
          ),
        );
      }
    }
    const scores = {
      lexical: meanScores(perMode.lexical),
      semantic: meanScores(perMode.semantic),
      hybrid: meanScores(perMode.hybrid),
    };
    return {
      dataset: dataset.name,
      documents: dataset.agents.length,
      queries: dataset.queries.length,
      totalQueries: dataset.totalQueries,
      scores,
      hybridBeatsLexical: scores.hybrid.ndcg10 >= scores.lexical.ndcg10 + TARGET_GAIN_OVER_LEXICAL,
      hybridNotBelowSemantic: scores.hybrid.ndcg10 >= scores.semantic.ndcg10,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await registry.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new database on the bench's PostgreSQL server, and how to drop it. */
async function freshBenchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env['AGENTRY_BENCH_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `agentry_bench_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: `${server}/postgres` });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: `${server}/${name}`, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** One request to the registry's handler as the admin; the JSON answer, or an error saying what was refused. */
async function call(registry: Registry, method: string, path: string, body: unknown): Promise<unknown> {
  const response = await registry.fetch(
    new Request(`http://registry.bench${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

if (args.lexical !== undefined) {
  // Only the two lexical engines side by side, without a registry (lexical-engines.ts).
  if (args.lexical !== 'postgres') throw new Error('--lexical takes one engine to set beside FTS5: postgres');
  const { compareLexicalEngines } = await import('./lexical-engines.js');
  console.log('lexical-only NDCG@10 ×100            docs  queries   sqlite  postgres  difference');
  for (const spec of DATASETS) {
    if (args.only && !args.only.includes(spec.name)) continue;
    const r = await compareLexicalEngines(loadDataset(benchDir, spec, maxQueries));
    const pct = (value: number) => (value * 100).toFixed(2).padStart(8);
    console.log(
      `${r.dataset.padEnd(32)} ${String(r.documents).padStart(6)} ${String(r.queries).padStart(8)} ${pct(r.sqlite)}  ${pct(r.postgres)}  ${pct(r.postgres - r.sqlite)}`,
    );
  }
  process.exit(0);
}

const results: DatasetResult[] = [];
for (const spec of DATASETS) {
  if (args.only && !args.only.includes(spec.name)) continue;
  const result = await runDataset(loadDataset(benchDir, spec, maxQueries));
  results.push(result);
  if (!args.json) console.error(`${result.dataset}: ${result.seconds.toFixed(1)} s`);
}
cache?.save();

const allMet = results.every((r) => r.hybridBeatsLexical && r.hybridNotBelowSemantic);
if (args.json) {
  console.log(JSON.stringify({ provider: provider.id, results, targetsMet: allMet }, null, 2));
} else {
  const pct = (value: number) => (value * 100).toFixed(2).padStart(7);
  console.log(`search quality (${provider.id} on the ${chosenUseLiteEngine()} engine), metrics ×100\n`);
  console.log('dataset                 docs  queries  mode      NDCG@10     R@5    R@10  MRR@10');
  for (const r of results) {
    const queries = r.queries === r.totalQueries ? String(r.queries) : `${r.queries}/${r.totalQueries}`;
    for (const mode of MODES) {
      const s = r.scores[mode];
      const label =
        mode === MODES[0]
          ? `${r.dataset.padEnd(22)} ${String(r.documents).padStart(5)} ${queries.padStart(8)}`
          : ' '.repeat(37);
      console.log(
        `${label}  ${mode.padEnd(8)} ${pct(s.ndcg10)} ${pct(s.recall5)} ${pct(s.recall10)} ${pct(s.mrr10)}`,
      );
    }
  }
  console.log('\ntargets: hybrid ≥ lexical + 5 NDCG@10 points, hybrid ≥ semantic');
  for (const r of results) {
    const gain = (r.scores.hybrid.ndcg10 - r.scores.lexical.ndcg10) * 100;
    const overSemantic = (r.scores.hybrid.ndcg10 - r.scores.semantic.ndcg10) * 100;
    console.log(
      `  ${r.dataset.padEnd(22)} hybrid − lexical ${gain.toFixed(2).padStart(6)} ${r.hybridBeatsLexical ? 'ok' : 'MISSED'}   hybrid − semantic ${overSemantic.toFixed(2).padStart(6)} ${r.hybridNotBelowSemantic ? 'ok' : 'MISSED'}`,
    );
  }
  console.log(allMet ? '\nall targets met' : '\nsome targets missed');
}
process.exitCode = allMet ? 0 : 1;
