/**
 * bench/embeddings: USE-lite's engines side by side, in one process and one run (the machine's speed varies from
 * hour to hour, so compare the ratios): `tfjs` (the TF.js graph, the baseline), `float32`, `int8` and `int8-bf16`
 * (our encoder on the native kernels; int8 only on a CPU with AVX-512 VNNI, int8-bf16 with AVX-512 BF16 too). Each engine runs on this thread, one text at a time,
 * after a warm-up, over the same texts: agents' embedding texts and queries from the development benchmarks
 * (../shared/bench). Prints, per engine, milliseconds per agent text and per query (median and mean), agent texts
 * per second on one core, the speed-up over TF.js, and how close its vectors are to TF.js's (mean and lowest
 * cosine). Asserts nothing.
 *
 *   npm run bench:embeddings -- [--texts 100] [--queries 100] [--bench ../shared/bench]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  embedWithModel,
  loadNativeKernels,
  loadUseLiteModel,
  readUseLiteFiles,
  type UseLiteEngine,
  type UseLiteModel,
  UseLiteTokenizer,
} from '@agentry/embeddings/use-lite';
import { embeddingText } from '../../packages/registry/src/search/document-text.js';
import { DATASETS, evenSample, loadDataset, searchDocumentOfAgent } from '../search-quality/datasets.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    texts: { type: 'string', default: '100' },
    queries: { type: 'string', default: '100' },
    bench: { type: 'string' },
  },
});
const benchDir = resolve(args.bench ?? join(here, '../../../shared/bench'));
/** As the provider cuts them (use-lite.ts). */
const MAX_CHARACTERS = 600;

const documents = DATASETS.filter((spec) => spec.queries === 'queries.jsonl').flatMap((spec) =>
  loadDataset(benchDir, spec, 50),
);
const texts = evenSample(
  documents.flatMap((dataset) => dataset.agents.map((agent) => embeddingText(searchDocumentOfAgent(agent)))),
  Number(args.texts),
);
const queries = evenSample(
  documents.flatMap((dataset) => dataset.queries.map((query) => query.text)),
  Number(args.queries),
);

const kernels = loadNativeKernels();
const engines: UseLiteEngine[] = ['tfjs'];
if (kernels instanceof Error) console.log(`native kernels not built (${kernels.message}): TF.js only`);
else {
  engines.push('float32');
  if (kernels.int8) engines.push('int8');
  if (kernels.int8 && kernels.bf16) engines.push('int8-bf16');
}

const { vocabulary } = await readUseLiteFiles();
const tokenizer = new UseLiteTokenizer(vocabulary);
const tokens = texts.map((text) => Math.min(128, tokenizer.encode(text.slice(0, MAX_CHARACTERS)).length));
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  `USE-lite engines: ${texts.length} agent texts (mean ${mean(texts.map((t) => Math.min(t.length, MAX_CHARACTERS))).toFixed(0)} characters, ${mean(tokens).toFixed(0)} tokens) and ${queries.length} queries, one at a time on one thread`,
);
if (!(kernels instanceof Error))
  console.log(`float32 multiplies on the ${kernels.floatKernel} register tile`);

async function timeEach(model: UseLiteModel, inputs: readonly string[]) {
  const times: number[] = [];
  const vectors: Float32Array[] = [];
  for (const input of inputs) {
    const started = performance.now();
    const [vector] = await embedWithModel(model, [input], 1, MAX_CHARACTERS);
    times.push(performance.now() - started);
    vectors.push(vector!);
  }
  return { times, vectors };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot; // both unit length
}

const results = new Map<UseLiteEngine, { text: number[]; query: number[]; vectors: Float32Array[] }>();
for (const engine of engines) {
  const model = await loadUseLiteModel(engine);
  await timeEach(model, [...texts.slice(0, 10), ...queries.slice(0, 10)]); // warm-up
  const text = await timeEach(model, texts);
  const query = await timeEach(model, queries);
  results.set(engine, { text: text.times, query: query.times, vectors: [...text.vectors, ...query.vectors] });
}

const baseline = results.get('tfjs')!;
console.log(
  '\nengine      text p50   text mean   texts/s   query p50   speed-up (texts, queries)   cosine to TF.js (mean, lowest)',
);
for (const [engine, result] of results) {
  const similarities = result.vectors.map((vector, i) => cosine(vector, baseline.vectors[i]!));
  console.log(
    [
      engine.padEnd(10),
      `${median(result.text).toFixed(2)} ms`.padStart(10),
      `${mean(result.text).toFixed(2)} ms`.padStart(11),
      (1000 / mean(result.text)).toFixed(0).padStart(9),
      `${median(result.query).toFixed(2)} ms`.padStart(11),
      `${(mean(baseline.text) / mean(result.text)).toFixed(1)}×, ${(mean(baseline.query) / mean(result.query)).toFixed(1)}×`.padStart(
        28,
      ),
      `${mean(similarities).toFixed(5)}, ${Math.min(...similarities).toFixed(5)}`.padStart(33),
    ].join(' '),
  );
}
process.exit(0);
