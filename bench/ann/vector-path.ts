/**
 * bench/ann/vector-path.ts: the vector path of a registry search (what `VectorStore.similarities` runs above
 * `approximateFrom`, then `rank`) at registry scale without a database: the bench population's agents
 * (bench/registry/agents.ts) embedded by the stand-in model (bench/registry/stand-in-provider.ts) from the text the
 * registry embeds (`embeddingText`), so the vectors are those a preload stores, held in an `AnnIndex` as the store
 * holds them. bench/ann/semantic-path.ts measures the same path on a preloaded file; this one needs none, and can
 * put two builds of the code side by side in one process.
 *
 * `--compare <dir>` loads a second build of the index and of the pool (`<dir>/vectors/ann-index.ts`,
 * `<dir>/semantic/ann-candidates.ts`: a copy of the sources at another commit) and alternates the two by rounds,
 * query by query the same inputs, so CPU a query is compared under the same load (the machine is shared). Prints,
 * per mode and build: CPU ms a query (process.cpuUsage), p50, recall@10 against the exact ranking (every agent
 * scored, as below the threshold) and how often the two builds' top 10s differ.
 *
 *   node --max-old-space-size=8192 --import tsx bench/ann/vector-path.ts [--agents 1000000] [--queries 200]
 *     [--rounds 3] [--lexical 1000] [--cache /tmp/ann-vectors] [--compare <dir>] [--modes semantic,hybrid]
 *     [--excluded 0] [--only old|new]
 *
 * `--cache <dir>` keeps the quantised rows of the population (`rows-<agents>.bin`, 513 bytes an agent) and the
 * exact rankings (`exact-<agents>-<queries>-<lexical>-<excluded>.json`) there, so a second run skips embedding and the exact
 * pass.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AnnIndex } from '@agentry/embeddings';
import { quantize } from '../../packages/embeddings/src/vectors/vector-matrix.js';
import { embeddingText } from '../../packages/registry/src/search/document-text.js';
import { rank } from '../../packages/registry/src/search/rank.js';
import {
  approximateRanking,
  HashSample,
  populationInScope,
} from '../../packages/registry/src/search/semantic/ann-candidates.js';
import { querySegments } from '../../packages/registry/src/search/semantic/query-segments.js';
import { withMentionKinds } from '../../packages/registry/src/search/text/mentions.js';
import { recall } from '../measures.js';
import { generatedSearchDocument, generateQuery, random } from '../registry/agents.js';
import { STAND_IN_DIMENSIONS, standInProvider } from '../registry/stand-in-provider.js';

const { values: args } = parseArgs({
  options: {
    agents: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    lexical: { type: 'string', default: '1000' },
    cache: { type: 'string', default: '/tmp/ann-vectors' },
    compare: { type: 'string' },
    modes: { type: 'string', default: 'semantic,hybrid' },
    only: { type: 'string' },
    excluded: { type: 'string', default: '0' },
  },
});
const agentCount = Number(args.agents);
const queryCount = Number(args.queries);
const dims = STAND_IN_DIMENSIONS;
const provider = standInProvider();
mkdirSync(args.cache, { recursive: true });

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const log = (line: string) => process.stdout.write(`${line} (load ${loadavg()[0]!.toFixed(1)})\n`);

/** The population's quantised rows (int8 components, then a float32 scale per agent), from the cache or embedded. */
async function population(): Promise<{ ids: string[]; rows: Int8Array; scales: Float32Array }> {
  const file = join(args.cache, `rows-${agentCount}.bin`);
  const ids = Array.from({ length: agentCount }, (_, i) => generatedSearchDocument(i).id);
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    const rows = new Int8Array(bytes.buffer, bytes.byteOffset, agentCount * dims);
    const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset + agentCount * dims));
    return { ids, rows, scales };
  }
  const rows = new Int8Array(agentCount * dims);
  const scales = new Float32Array(agentCount);
  const started = performance.now();
  for (let i = 0; i < agentCount; i++) {
    const [vector] = await provider.embed([embeddingText(generatedSearchDocument(i))]);
    scales[i] = quantize(vector!, 127, rows, i * dims);
    if (i % 100_000 === 99_999)
      log(`  embedded ${i + 1} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  writeFileSync(file, Buffer.concat([Buffer.from(rows.buffer), Buffer.from(scales.buffer)]));
  return { ids, rows, scales };
}

interface Build {
  name: string;
  Index: typeof AnnIndex;
  ranking: typeof approximateRanking;
}
const builds: Build[] = [{ name: 'new', Index: AnnIndex, ranking: approximateRanking }];
if (args.compare !== undefined) {
  const dir = resolve(args.compare);
  const oldIndex = (await import(join(dir, 'vectors/ann-index.ts'))) as { AnnIndex: typeof AnnIndex };
  const oldPool = (await import(join(dir, 'semantic/ann-candidates.ts'))) as {
    approximateRanking: typeof approximateRanking;
  };
  builds.unshift({ name: 'old', Index: oldIndex.AnnIndex, ranking: oldPool.approximateRanking });
}
const selected = args.only === undefined ? builds : builds.filter((build) => build.name === args.only);

const { ids, rows, scales } = await population();
log(`${agentCount} agents' rows ready; RSS ${(process.memoryUsage().rss / 1e9).toFixed(2)} GB`);
const loadOrder = Array.from(ids.keys()).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
const sample = new HashSample();
for (const [i, id] of ids.entries()) sample.add(id, i + 1);

interface Loaded extends Build {
  index: AnnIndex;
  drawn: Int32Array;
}
const loaded: Loaded[] = [];
for (const build of selected) {
  const rssBefore = process.memoryUsage().rss;
  const index = new build.Index(dims, { minSize: 50_000, initialCapacity: Math.ceil(agentCount * 1.5) });
  // In the order a registry loads them (search_vectors by agent_id): slots follow the ids' order.
  for (const i of loadOrder) index.setQuantized(ids[i]!, rows.subarray(i * dims, (i + 1) * dims), scales[i]!);
  const started = cpuMs();
  index.build();
  const stats = index.stats();
  const drawn = Int32Array.from(sample.draw(index.size).map((id) => index.slotOfId(id)!)).sort();
  loaded.push({ ...build, index, drawn });
  log(
    `${build.name}: built in ${((cpuMs() - started) / 1000).toFixed(1)} s of CPU, ${stats.lists} lists, index ${(stats.bytes / 1e6).toFixed(0)} MB, RSS +${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB`,
  );
}

interface Query {
  vectors: Float32Array[];
  lexical: Array<{ id: string; score: number }>;
}
const draw = random(20261128);
const queries: Query[] = [];
for (let i = 0; i < queryCount; i++) {
  const request = withMentionKinds(generateQuery(100_000 + i));
  const vectors = await provider.embed([request, ...querySegments(request)]);
  const lexical = Array.from({ length: Number(args.lexical) }, (_, r) => ({
    id: ids[Math.floor(draw() * ids.length)]!,
    score: 20 / (1 + r / 50),
  }));
  queries.push({ vectors, lexical });
}
const modes = args.modes.split(',') as Array<'semantic' | 'hybrid'>;
/** `--excluded n`: n agents hidden from every search (a scope of every agent but them, as for restricted agents). */
const excluded = new Set(
  Array.from({ length: Number(args.excluded) }, () => ids[Math.floor(draw() * ids.length)]!),
);
const scopeOf = () => (excluded.size > 0 ? { excluded } : {});

function search(build: Loaded, query: Query, mode: 'semantic' | 'hybrid'): string[] {
  const lexical = mode === 'hybrid' ? query.lexical.filter((match) => !excluded.has(match.id)) : [];
  const scope = build.index.resolveScope(scopeOf());
  const ranking = build.ranking(
    build.index,
    query.vectors,
    scope,
    lexical.map((match) => match.id),
    populationInScope(scope, build.drawn),
  );
  return rank({ mode, top: 10, lexical, ...ranking, demotions: new Map() }).map((hit) => hit.id);
}

/** Every agent scored (the store's pass below the threshold), ranked the same way: the truth recall is against. */
function exactSearch(index: AnnIndex, query: Query, mode: 'semantic' | 'hybrid'): string[] {
  const lexical = mode === 'hybrid' ? query.lexical.filter((match) => !excluded.has(match.id)) : [];
  const all = index.slotsIn(index.resolveScope(scopeOf()));
  const { ids: rowIds, scores, positionOf } = index.similaritiesAt(query.vectors, all);
  return rank({
    mode,
    top: 10,
    lexical,
    semantic: { ids: rowIds, whole: scores[0]!, clauses: scores.slice(1), positionOf },
    similarToCentroid: (leaders) => {
      const centroid = index.centroid(leaders);
      return centroid ? index.similaritiesAt([centroid], all).scores[0] : undefined;
    },
    demotions: new Map(),
  }).map((hit) => hit.id);
}

const exactFile = join(args.cache, `exact-${agentCount}-${queryCount}-${args.lexical}-${args.excluded}.json`);
const exact: Record<string, string[][]> = existsSync(exactFile)
  ? (JSON.parse(readFileSync(exactFile, 'utf8')) as Record<string, string[][]>)
  : {};
let exactChanged = false;
for (const mode of modes) {
  if (exact[mode]) continue;
  const started = cpuMs();
  exact[mode] = queries.map((query) => exactSearch(loaded[0]!.index, query, mode));
  exactChanged = true;
  log(`exact ${mode}: ${((cpuMs() - started) / queryCount).toFixed(1)} ms of CPU a query`);
}
if (exactChanged) writeFileSync(exactFile, JSON.stringify(exact));

// Warm-up: each build answers a few queries of each mode before anything is timed.
for (const build of loaded)
  for (const mode of modes) for (const query of queries.slice(0, 20)) search(build, query, mode);

const rounds = Number(args.rounds);
for (const mode of modes) {
  const cpu = new Map<string, number>();
  const times = new Map<string, number[]>();
  const found = new Map<string, string[][]>();
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first, so neither always runs right after the other's garbage.
    const order = round % 2 === 0 ? loaded : [...loaded].reverse();
    for (const build of order) {
      const started = cpuMs();
      const answers: string[][] = [];
      const wall: number[] = times.get(build.name) ?? [];
      for (const query of queries) {
        const t = performance.now();
        answers.push(search(build, query, mode));
        wall.push(performance.now() - t);
      }
      cpu.set(build.name, (cpu.get(build.name) ?? 0) + cpuMs() - started);
      times.set(build.name, wall);
      found.set(build.name, answers);
    }
  }
  for (const build of loaded) {
    const wall = [...times.get(build.name)!].sort((a, b) => a - b);
    log(
      `${mode} ${build.name}: CPU ${(cpu.get(build.name)! / (rounds * queryCount)).toFixed(2)} ms a query, p50 ${wall[Math.floor(wall.length / 2)]!.toFixed(2)} ms, recall@10 ${recall(found.get(build.name)!, exact[mode]!).toFixed(3)}`,
    );
  }
  if (loaded.length === 2) {
    const [a, b] = loaded.map((build) => found.get(build.name)!);
    const differing = a!.filter((top, i) => top.join() !== b![i]!.join()).length;
    log(`${mode}: top 10s differing between the builds: ${differing} of ${queryCount}`);
  }
}
