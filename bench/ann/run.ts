/**
 * bench/ann: the approximate nearest-neighbour index (packages/embeddings/src/vectors/ann-index.ts) on stand-in
 * vectors at registry scale (see `standIns` for how they are drawn). Prints the time to fill and to build the
 * index, query p50/p99 for exact search and for the index at each probe count, recall@k of the index against exact
 * search (unscoped, with a third of the agents as candidates, and with 1,000 excluded), how many rows each search
 * scored, any hit outside its scope (there must be none), and the process's resident memory. Asserts nothing.
 *
 *   npm run bench:ann -- [--size 1000000] [--dims 512] [--queries 200] [--k 10] [--probes 16,32,64] [--lists n]
 *
 * `--probes` takes several counts: each is measured on the one build (default: the index's own).
 */
import { parseArgs } from 'node:util';
import { AnnIndex } from '@agentry/embeddings';
import { percentile } from '../measures.js';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    dims: { type: 'string', default: '512' },
    queries: { type: 'string', default: '200' },
    k: { type: 'string', default: '10' },
    probes: { type: 'string', default: '' },
    lists: { type: 'string' },
    seed: { type: 'string', default: '7' },
  },
});
const size = Number(args.size);
const dims = Number(args.dims);
const queryCount = Number(args.queries);
const k = Number(args.k);

/**
 * Seeded uniform numbers (mulberry32) and normal ones: Box–Muller for each normal would take most of the time at
 * 512 million components, so the noise is drawn from a table of 65,536 normal values, two draws a uniform.
 */
function generator(seed: number): { uniform: () => number; normal: () => number; fastNormal: () => number } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const uniform = () => next() / 4294967296;
  const normal = () => {
    const u = uniform() || 1e-12;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
  const table = Float32Array.from({ length: 65536 }, normal);
  let held = -1;
  const fastNormal = () => {
    if (held >= 0) {
      const value = table[held]!;
      held = -1;
      return value;
    }
    const bits = next();
    held = bits >>> 16;
    return table[bits & 0xffff]!;
  };
  return { uniform, normal, fastNormal };
}

function normalise(vector: Float32Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.sqrt(squares) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/**
 * Stand-in embeddings. A sentence embedding varies along far fewer directions than it has dimensions, and its
 * neighbourhoods are continuous rather than separate blobs: each vector is a point of a 32-dimensional latent space
 * (one of 300 themes, spread around it) mapped into `dims` dimensions by a fixed random projection, plus a shared
 * direction (any two texts of one model are somewhat alike) and a little noise of its own in every dimension.
 * A query is drawn the same way with a wider spread around its theme.
 */
function standIns(seed: number): { draw: (spread: number) => Float32Array } {
  const { uniform, normal, fastNormal } = generator(seed);
  const latent = 32;
  const randomUnit = () => normalise(Float32Array.from({ length: dims }, normal));
  const shared = randomUnit();
  const projection = Float32Array.from({ length: latent * dims }, () => normal() / Math.sqrt(latent));
  const themes = Array.from({ length: 300 }, () =>
    Float32Array.from({ length: latent }, () => 1.2 * normal()),
  );
  const point = new Float32Array(latent);
  const scratch = new Float32Array(dims);
  return {
    draw: (spread) => {
      const theme = themes[Math.floor(uniform() * themes.length)]!;
      for (let l = 0; l < latent; l++) point[l] = theme[l]! + spread * fastNormal();
      const noise = 0.9 / Math.sqrt(dims);
      for (let d = 0; d < dims; d++) scratch[d] = 0.6 * shared[d]! + noise * fastNormal();
      for (let l = 0; l < latent; l++) {
        const at = l * dims;
        const value = point[l]! / Math.sqrt(latent);
        for (let d = 0; d < dims; d++) scratch[d] = scratch[d]! + value * projection[at + d]!;
      }
      return normalise(scratch);
    },
  };
}

function ms(value: number): string {
  return `${value.toFixed(2)} ms`;
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;

const data = standIns(Number(args.seed));
const index = new AnnIndex(dims, {
  ...(args.lists ? { lists: Number(args.lists) } : {}),
  initialCapacity: size,
});
console.log(
  `ann bench: ${size.toLocaleString('en')} × ${dims}, ${queryCount} queries, k=${k}, simd ${index.accelerated}`,
);

let started = performance.now();
for (let i = 0; i < size; i++) index.set(`agent-${i}`, data.draw(0.8));
console.log(
  `filled in ${((performance.now() - started) / 1000).toFixed(1)} s (generating the vectors included)`,
);

// CPU time beside wall time: on a shared machine the wall clock also counts other processes' turns.
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};
started = performance.now();
let cpu = process.cpuUsage();
index.build();
const buildSeconds = (performance.now() - started) / 1000;
const stats = index.stats();
console.log(
  `built in ${buildSeconds.toFixed(1)} s (${cpuSeconds(cpu).toFixed(1)} s of CPU): ${stats.lists} lists, ` +
    `${gb(stats.bytes)} held by the index`,
);

const queries = Array.from({ length: queryCount }, () => Float32Array.from(data.draw(1.0)));
const { uniform } = generator(Number(args.seed) + 1);
const third = new Set<string>();
for (let i = 0; i < size; i++) if (uniform() < 0.33) third.add(`agent-${i}`);
const excluded = new Set<string>(Array.from({ length: 1000 }, () => `agent-${Math.floor(uniform() * size)}`));

interface Run {
  name: string;
  scope: { candidates?: Set<string>; excluded?: Set<string> };
}
const runs: Run[] = [
  { name: 'unscoped', scope: {} },
  { name: 'a third of the agents as candidates', scope: { candidates: third } },
  { name: '1,000 excluded', scope: { excluded } },
];
const probeCounts = args.probes ? args.probes.split(',').map(Number) : [undefined];
for (const run of runs) {
  // The truth, once per scope: exact search over the same rows.
  const exactTimes: number[] = [];
  const truths: Array<Set<string>> = [];
  let first = 0;
  let tenth = 0;
  cpu = process.cpuUsage();
  for (const query of queries) {
    const t = performance.now();
    const truth = index.exact(query, k, run.scope);
    exactTimes.push(performance.now() - t);
    first += truth[0]?.score ?? 0;
    tenth += truth[k - 1]?.score ?? 0;
    truths.push(new Set(truth.map((hit) => hit.id)));
  }
  const exactCpu = (cpuSeconds(cpu) * 1000) / queries.length;
  console.log(
    `${run.name}: exact p50 ${ms(percentile(exactTimes, 50))} p99 ${ms(percentile(exactTimes, 99))} ` +
      `(CPU ${ms(exactCpu)} a query) ` +
      `(mean similarity of the 1st ${(first / queries.length).toFixed(2)}, of the ${k}th ${(tenth / queries.length).toFixed(2)})`,
  );
  for (const probes of probeCounts) {
    const times: number[] = [];
    let found = 0;
    let scanned = 0;
    let probed = 0;
    let leaks = 0;
    cpu = process.cpuUsage();
    queries.forEach((query, q) => {
      const t = performance.now();
      const { hits, info } = index.searchWithInfo(query, k, run.scope, probes);
      times.push(performance.now() - t);
      scanned += info.scanned;
      probed += info.probed;
      for (const hit of hits) {
        if (truths[q]!.has(hit.id)) found++;
        if (run.scope.candidates && !run.scope.candidates.has(hit.id)) leaks++;
        if (run.scope.excluded?.has(hit.id)) leaks++;
      }
    });
    const queryCpu = (cpuSeconds(cpu) * 1000) / queries.length;
    console.log(
      `  probes ${probes ?? 'default'}: recall@${k} ${(found / (queries.length * k)).toFixed(4)}, ` +
        `p50 ${ms(percentile(times, 50))} p99 ${ms(percentile(times, 99))} (CPU ${ms(queryCpu)} a query), ` +
        `${Math.round(scanned / queries.length).toLocaleString('en')} rows scored in ${Math.round(probed / queries.length)} lists, ` +
        `outside the scope: ${leaks}`,
    );
  }
}
const memory = process.memoryUsage();
console.log(`rss ${gb(memory.rss)} (heap ${gb(memory.heapUsed)}, array buffers ${gb(memory.arrayBuffers)})`);
