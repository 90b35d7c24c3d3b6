/**
 * The in-memory lexical index (packages/registry/src/search/lexical/memory-postings.ts) at 1,000,000 agents: build
 * time, bytes, heap, and the time of the bench's 200 generated queries (hybrid search asks for a pool of 1,000),
 * with a baseline measured in the same run on the first 100,000 agents of the same index (ratios printed). The
 * agents are the registry bench's (agents.ts), their fields as the search index makes them (document-text.ts).
 *
 *   node --max-old-space-size=8192 --import tsx bench/registry/memory-postings.ts [--agents 1000000] [--baseline 100000]
 *     [--previous /path/to/memory-postings.ts]
 *
 * `--previous` names another build of the module (say `git show <commit>:…/memory-postings.ts`, its imports pointed
 * back at this tree): an index of that build is fed the same agents, and the queries alternate between the two, one
 * after the other, so that both see the same load; their CPU a query is printed side by side, with the postings
 * the current build read, and their answers are compared (the top 100 the same ids and scores to the bit).
 *
 * Timings on a shared machine are noisy: the CPU time of the query loop (process.cpuUsage) is printed beside the
 * wall-clock percentiles, with the load average.
 */
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { readDocument } from '@agentry/core';
import { searchDocumentOf } from '../../packages/registry/src/records/search-document.js';
import { lexicalFields } from '../../packages/registry/src/search/document-text.js';
import { MemoryPostings } from '../../packages/registry/src/search/lexical/memory-postings.js';
import { type LexicalQuery, parseLexicalQuery } from '../../packages/registry/src/search/lexical/query.js';
import type { LexicalFields } from '../../packages/registry/src/search/lexical/types.js';
import { generateAgent, generatedSearchDocument, generateQuery } from './agents.js';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '1000000' },
    baseline: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    limit: { type: 'string', default: '1000' },
    previous: { type: 'string' },
  },
});
const total = Number(values.agents);
const baselineSize = Number(values.baseline);
const queryCount = Number(values.queries);
const limit = Number(values.limit);

/** The search index's fields of the i-th bench agent, as a registration would make them (read by core). */
function registeredFields(index: number): { id: string; fields: LexicalFields } {
  const { document } = generateAgent(index);
  const [agent] = readDocument(document).agents;
  if (agent === undefined) throw new Error(`agent ${index} is not read`);
  const at = new Date(0).toISOString();
  const id = String(document['id']);
  const record = {
    id,
    agent,
    owner: 'bench',
    status: 'active' as const,
    flags: [],
    quality: { ratings: 0, invocations: 0, failures: 0, verified: false },
    revision: 1,
    createdAt: at,
    updatedAt: at,
  };
  return { id, fields: lexicalFields(searchDocumentOf(record)) };
}

/**
 * The same fields made straight from the generated document (no validation: reading a million documents through
 * core would take most of the run); checked against `registeredFields` on the first agents.
 */
function fieldsOf(index: number): { id: string; fields: LexicalFields } {
  const searchDocument = generatedSearchDocument(index);
  return { id: searchDocument.id, fields: lexicalFields(searchDocument) };
}

for (let i = 0; i < 200; i++) {
  assert.deepEqual(fieldsOf(i), registeredFields(i), `agent ${i}: the bench's fields are a registration's`);
}

interface Measure {
  agents: number;
  terms: number;
  parts: MemoryPostings['byteParts'];
  postings: number;
  bytes: number;
  heapUsed: number;
  rss: number;
  p50: number;
  p99: number;
  mean: number;
  cpuPerQuery: number;
  hits: number;
}

const queries: LexicalQuery[] = Array.from({ length: queryCount }, (_, i) =>
  parseLexicalQuery(generateQuery(i)),
);

function measure(index: MemoryPostings): Measure {
  // One pass to warm up (JIT, scratch arrays), then the measured one.
  for (const query of queries) index.search(query, { limit });
  global.gc?.();
  const times: number[] = [];
  let hits = 0;
  const cpu = process.cpuUsage();
  for (const query of queries) {
    const start = process.hrtime.bigint();
    hits += index.search(query, { limit }).length;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const memory = process.memoryUsage();
  return {
    agents: index.size,
    terms: index.terms,
    parts: index.byteParts,
    postings: index.postings,
    bytes: index.bytes,
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    p50: times[Math.floor(times.length * 0.5)]!,
    p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!,
    mean: times.reduce((sum, t) => sum + t, 0) / times.length,
    cpuPerQuery: (used.user + used.system) / 1000 / queries.length,
    hits,
  };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
function report(label: string, m: Measure, buildSeconds: number) {
  console.log(
    `${label}: ${m.agents.toLocaleString('en')} agents, ${m.postings.toLocaleString('en')} postings, built in ${buildSeconds.toFixed(1)} s; ` +
      `index ${mb(m.bytes)} (${(m.bytes / m.postings).toFixed(1)} B a posting; postings ${mb(m.parts.postings)} = ` +
      `${(m.parts.postings / m.postings).toFixed(1)} B a posting, areas ${mb(m.parts.areas)}, agents ${mb(m.parts.agents)}, ` +
      `${m.terms.toLocaleString('en')} terms ${mb(m.parts.terms)}, scratch ${mb(m.parts.scratch)}), heap ${mb(m.heapUsed)}, rss ${mb(m.rss)}; ` +
      `query p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, mean ${m.mean.toFixed(2)} ms, CPU ${m.cpuPerQuery.toFixed(2)} ms a query; ` +
      `${(m.hits / queries.length).toFixed(0)} hits a query; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
}

const index = new MemoryPostings();
type Searchable = Pick<MemoryPostings, 'set' | 'search'>;
const previous: Searchable | undefined =
  values.previous === undefined
    ? undefined
    : new ((await import(values.previous)) as { MemoryPostings: new () => Searchable }).MemoryPostings();
let built = 0;
/** Seconds spent in `set` alone (making the agents' fields is the bench's, not the index's). */
let buildSeconds = 0;
function buildTo(size: number) {
  for (; built < size; built++) {
    const { id, fields } = fieldsOf(built);
    const start = process.hrtime.bigint();
    index.set(id, fields, false);
    buildSeconds += Number(process.hrtime.bigint() - start) / 1e9;
    previous?.set(id, fields, false);
  }
}

/**
 * The queries alternated between this build and the previous one (after a warm-up pass of each): CPU a query of
 * each, the postings this build read, and how far their answers agree.
 */
function compare(other: Searchable, label: string): void {
  for (const query of queries) {
    index.search(query, { limit });
    other.search(query, { limit });
  }
  let currentCpu = 0;
  let previousCpu = 0;
  let sameTop = 0;
  let samePool = 0;
  const statsBefore = index.stats;
  const cpu = (run: () => void) => {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  for (const [i, query] of queries.entries()) {
    let current: ReturnType<MemoryPostings['search']> = [];
    let before: ReturnType<MemoryPostings['search']> = [];
    // Which goes first alternates too.
    if (i % 2 === 0) {
      currentCpu += cpu(() => (current = index.search(query, { limit })));
      previousCpu += cpu(() => (before = other.search(query, { limit })));
    } else {
      previousCpu += cpu(() => (before = other.search(query, { limit })));
      currentCpu += cpu(() => (current = index.search(query, { limit })));
    }
    const key = (hits: typeof current, depth: number) =>
      hits
        .slice(0, depth)
        .map((hit) => `${hit.id} ${hit.score}`)
        .join();
    if (key(current, 100) === key(before, 100)) sameTop++;
    if (key(current, limit) === key(before, limit)) samePool++;
  }
  const n = queries.length;
  const stats = index.stats;
  console.log(
    `${label} against previous: CPU ${(currentCpu / n).toFixed(2)} against ${(previousCpu / n).toFixed(2)} ms a query ` +
      `(${(currentCpu / previousCpu).toFixed(2)}×); postings read ${Math.round((stats.postingsRead - statsBefore.postingsRead) / n).toLocaleString('en')}, ` +
      `agents scored ${Math.round((stats.agentsScored - statsBefore.agentsScored) / n).toLocaleString('en')} and terms taken ${((stats.termsTaken - statsBefore.termsTaken) / n).toFixed(2)} a query; ` +
      `top 100 identical (ids, scores to the bit) ${sameTop}/${n}, whole pool identical ${samePool}/${n}; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  assert.equal(sameTop, n, 'the top 100 of every query is the previous build’s');
}

buildTo(baselineSize);
if (previous !== undefined) compare(previous, 'baseline');
const baseline = measure(index);
report('baseline', baseline, buildSeconds);
buildTo(total);
if (previous !== undefined) compare(previous, 'full');
const full = measure(index);
report('full', full, buildSeconds);
console.log(
  `ratios full/baseline: agents ${(full.agents / baseline.agents).toFixed(1)}×, postings ${(full.postings / baseline.postings).toFixed(1)}×, ` +
    `bytes ${(full.bytes / baseline.bytes).toFixed(1)}×, p50 ${(full.p50 / baseline.p50).toFixed(1)}×, p99 ${(full.p99 / baseline.p99).toFixed(1)}×, ` +
    `CPU a query ${(full.cpuPerQuery / baseline.cpuPerQuery).toFixed(1)}×`,
);
console.log(JSON.stringify({ baseline, full, buildSeconds }));
