/**
 * bench/search-quality: ranking quality of the registry's search on the development retrieval benchmarks in
 * ../shared/bench (see its README). Each query set is loaded into a fresh SQLite search index with the bundled
 * USE-lite model, and every query is ranked lexically, semantically and hybrid; the table shows NDCG@10, Recall@5,
 * Recall@10 and MRR@10 (×100, averaged over queries).
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
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import {
  chosenUseLiteEngine,
  createSearchIndex,
  createUseLiteProvider,
  type EmbeddingProvider,
  type SearchMode,
  type SearchTables,
  searchMigrations,
} from '../../packages/registry/src/search/index.js';
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
  },
});

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

async function runDataset(dataset: Dataset): Promise<DatasetResult> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'agentry-search-bench-'));
  const db = new Kysely<SearchTables>({
    dialect: new SqliteDialect({ database: new Database(join(dir, 'index.db')) }),
  });
  try {
    const migrated = await new Migrator({
      db,
      provider: { getMigrations: async () => searchMigrations },
    }).migrateToLatest();
    if (migrated.error) throw migrated.error;
    const index = await createSearchIndex(db, provider, {
      onEmbeddingError: (error) => {
        throw error;
      },
    });
    for (let i = 0; i < dataset.documents.length; i += 64)
      await index.upsert(dataset.documents.slice(i, i + 64));

    const perMode: Record<SearchMode, RetrievalScores[]> = { lexical: [], semantic: [], hybrid: [] };
    for (const query of dataset.queries) {
      const gains = gainsOf(query.relevant, query.grades);
      for (const mode of MODES) {
        const hits = await index.search(query.text, { mode, top: 10 });
        perMode[mode].push(
          scoreRanking(
            hits.map((hit) => hit.id),
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
      documents: dataset.documents.length,
      queries: dataset.queries.length,
      totalQueries: dataset.totalQueries,
      scores,
      hybridBeatsLexical: scores.hybrid.ndcg10 >= scores.lexical.ndcg10 + TARGET_GAIN_OVER_LEXICAL,
      hybridNotBelowSemantic: scores.hybrid.ndcg10 >= scores.semantic.ndcg10,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
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
