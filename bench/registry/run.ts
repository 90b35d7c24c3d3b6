/**
 * The registry bench. At 10,000 generated agents on a temp SQLite file, with the registry in a child process on
 * loopback and load from this process through undici keep-alive pools (32 requests in flight):
 *
 * - filtered list requests/s (`GET /agents?tags=…&capabilities=…`), target ≥ 5,000;
 * - hybrid search latency (`POST /agents/search`, USE-lite embeddings, one request at a time), p50 ≤ 15 ms and
 *   p99 ≤ 50 ms;
 * - `GET /agents/{id}` requests/s against a bare node:http server answering the same bodies, target ≥ 40%;
 * - registrations/s over HTTP, embedding included, target ≥ 100 (after `--warmup` registrations that start the
 *   embedding workers), and on Linux the registry's CPU time a registration, main thread and the rest (the
 *   embedding workers, mostly): a figure that moves less than throughput with what else the machine is doing;
 * - with `--phases …,mixed`: hybrid search latency while registrations run (no target);
 * - with `--phases …,scoped`: hybrid search latency with filters, and with restricted agents hidden (no target);
 * - with `--phases …,catalog`: the AI Catalog of every public agent, first and later requests (no target).
 *
 * `--rss` instead preloads 100,000 agents (through the store and index in batches) and reads the registry's
 * resident memory from `/metrics`, target ≤ 1.5 GB; its vectors come from a 512-dimension hash stand-in unless
 * `--real-embeddings` (USE-lite for all 100k: about half an hour here), and USE-lite's two workers are loaded
 * beside them so that the model's memory is counted too.
 *
 * The preload's USE-lite vectors are kept in `--embedding-cache` (default: a file in the temp directory; `''` for
 * none), so that only the first run at a given size pays for embedding the population; registrations and searches
 * always go to the model. `--phases` runs some of register,list,search,get,mixed,scoped,catalog; `--profile <dir>` writes the
 * registry's CPU profile there; `--embeddings hash` (stand-in vectors, no model) is for quick runs of list and
 * get, whose figures do not depend on the model; `--answer-cache off` measures reads without the registry's
 * answer cache (every request queries the database); `--embedding-threads <n>` sets USE-lite's worker threads
 * (default 2); `--database <postgres://…>` runs the registry on that (empty) PostgreSQL database instead of a
 * temp SQLite file.
 *
 * With `--database` and no `--phases`, the bench runs the replicas phase instead (`--phases replicas`): in one run,
 * the SQLite registry (a temp file), then one replica on the PostgreSQL database, then three replicas on it behind a
 * round-robin client on loopback, then the first replica alone again, each measured for `GET /agents/{id}` and
 * filtered list requests/s and the CPU time the registry processes spent a request, with ratios against the SQLite
 * registry of the same run: one replica (the mean of its two measurements) ≥ 0.7× (get) and ≥ 0.5× (list), three
 * replicas' aggregate ≥ one replica's. The first replica preloads the agents; the other two read them from the
 * database. It also measures what the load generator can send at all (to one and to three bare node:http servers
 * answering the same bodies from memory), and `--register` registrations (`--register-concurrency` at a time)
 * through the SQLite registry, one replica and three while GET requests run, with their latency.
 *
 *   npm run bench:registry -- [--agents 10000] [--register 300] [--requests 20000] [--searches 400] [--warmup 50] [--rss]
 *     [--phases register,list,search,get,mixed,scoped,catalog] [--profile <dir>] [--embedding-cache <file>] [--embeddings hash]
 *     [--answer-cache on|off] [--register-concurrency 8] [--embedding-threads 2]
 *   npm run bench:registry -- --database postgres://postgres@127.0.0.1:5432/<empty database> [--embeddings hash]
 *     [--answer-cache on|off] [--requests 20000] [--register 300] [--register-concurrency 8] [--profile <dir>]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chosenUseLiteEngine } from '@agentry/embeddings';
import { loadNativeKernels } from '@agentry/embeddings/use-lite';
import { Pool } from 'undici';
import { percentile } from '../measures.js';
import { generateAgent, generateFilter, generateQuery } from './agents.js';

const here = dirname(fileURLToPath(import.meta.url));
const ADMIN = 'Bearer bench-admin-token-0123456789abcdef';
const GB = 1024 ** 3;

const { values: args } = parseArgs({
  options: {
    agents: { type: 'string', default: '10000' },
    register: { type: 'string', default: '300' },
    requests: { type: 'string', default: '20000' },
    searches: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '32' },
    rss: { type: 'boolean', default: false },
    'rss-agents': { type: 'string', default: '100000' },
    'real-embeddings': { type: 'boolean', default: false },
    phases: { type: 'string' },
    profile: { type: 'string' },
    'embedding-cache': { type: 'string', default: join(tmpdir(), 'agentry-bench-registry-use-lite.json') },
    embeddings: { type: 'string', default: 'use-lite' },
    'answer-cache': { type: 'string', default: 'on' },
    'register-concurrency': { type: 'string', default: '8' },
    'embedding-threads': { type: 'string' },
    database: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  // The usage is this file's opening comment, so that it says what the code does.
  const opening = /^\/\*\*\n([\s\S]*?)\n \*\//.exec(readFileSync(fileURLToPath(import.meta.url), 'utf8'));
  console.log((opening?.[1] ?? '').replace(/^ \* ?/gm, ''));
  process.exit(0);
}

/** Where the registry keeps its data: the `--database` URL, else a SQLite file in the run's temp directory. */
const databaseIn = (dir: string): string => args.database ?? join(dir, 'registry.db');
const phases = new Set(
  (args.phases ?? (args.database === undefined ? 'register,list,search,get' : 'replicas'))
    .split(',')
    .map((phase) => phase.trim()),
);

interface Child {
  process: ChildProcess;
  ready: Record<string, unknown> & { url: string };
  stop(): Promise<void>;
}

/** Starts a TypeScript entry point in a child and waits for its `READY {json}` line. */
async function startChild(script: string, childArgs: string[], nodeArgs: string[] = []): Promise<Child> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(here, script), ...childArgs], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ready = await new Promise<Child['ready']>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const line = /^READY (.*)$/m.exec(buffered);
      if (line !== null) resolve(JSON.parse(line[1]!) as Child['ready']);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    process: child,
    ready,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

interface LoadResult {
  seconds: number;
  latenciesMs: number[];
  failures: number;
  statuses: Map<number, number>;
}

/** Sends `total` requests (fewer once `stop()` says so), `concurrency` at a time, through a keep-alive pool. */
async function load(
  origin: string | readonly string[],
  total: number,
  concurrency: number,
  request: (i: number) => RequestSpec,
  expect: (status: number) => boolean = (status) => status === 200,
  stop: () => boolean = () => false,
): Promise<LoadResult> {
  // Several origins (replicas) take the requests in turn, as a round-robin load balancer would hand them out.
  const origins = typeof origin === 'string' ? [origin] : origin;
  const pools = origins.map(
    (each) =>
      new Pool(each, {
        connections: Math.ceil(concurrency / origins.length),
        pipelining: 1,
        keepAliveTimeout: 60_000,
      }),
  );
  const latenciesMs: number[] = [];
  const statuses = new Map<number, number>();
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total && !stop()) {
      const i = next++;
      const spec = request(i);
      const pool = pools[i % pools.length]!;
      const sent = performance.now();
      const contentType: Record<string, string> =
        spec.body === undefined ? {} : { 'content-type': 'application/json' };
      const response = await pool.request({
        method: spec.method,
        path: spec.path,
        headers: { ...contentType, ...spec.headers },
        ...(spec.body === undefined ? {} : { body: spec.body }),
      });
      await response.body.arrayBuffer();
      latenciesMs.push(performance.now() - sent);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (!expect(response.statusCode)) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pools.map((pool) => pool.close()));
  return { seconds, latenciesMs, failures, statuses };
}

const results: Array<{ name: string; value: string; target: string; pass: boolean }> = [];
function report(name: string, value: number, unit: string, target: string, pass: boolean): void {
  results.push({ name, value: `${value.toFixed(value < 10 ? 2 : 0)} ${unit}`, target, pass });
  // The machine's load says how much of it the registry had: figures from a busy machine are not comparable.
  console.log(
    `${pass ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(value < 10 ? 2 : 0)} ${unit} (target ${target}; load ${loadavg()[0]!.toFixed(1)})`,
  );
}

function checkFailures(name: string, result: LoadResult): void {
  if (result.failures > 0) {
    console.log(
      `  ${name}: ${result.failures} unexpected answers, statuses ${JSON.stringify([...result.statuses])}`,
    );
  }
}

/** The USE-lite engine the registry will run on this machine, and the kernels under it (figures depend on both). */
function useLiteEngineHere(): string {
  const engine = chosenUseLiteEngine();
  const kernels = loadNativeKernels();
  if (engine === 'tfjs' || kernels instanceof Error) return `the ${engine} engine`;
  return `the ${engine} engine (float32 on the ${kernels.floatKernel} tile, int8 on ${kernels.int8Kernel})`;
}

async function throughputBench(dir: string): Promise<void> {
  const agents = Number(args.agents);
  const concurrency = Number(args.concurrency);
  const requests = Number(args.requests);
  console.log(
    `registry bench: ${agents} agents, ${concurrency} in flight, ${requests} requests per throughput test`,
  );
  if (args.embeddings === 'use-lite') console.log(`  embeddings: USE-lite, ${useLiteEngineHere()}`);

  const registry = await registryChild(databaseIn(dir), agents);
  const url = registry.ready.url;
  console.log(
    `  preloaded ${agents} agents (store + ${args.embeddings} embeddings) in ${((registry.ready['preloadMs'] as number) / 1000).toFixed(1)} s`,
  );
  try {
    if (phases.has('register')) await registrationBench(url, agents, registry.process.pid);
    // Warm up (`--warmup` queries): the query-embedding model, SQLite's page cache, V8's JIT. The warm-up queries
    // are not the measured ones, so the measured searches never hit the query-embedding cache.
    await load(url, Number(args.warmup), 4, (i) => ({
      method: 'POST',
      path: '/agents/search',
      body: JSON.stringify({ query: generateQuery(100_000 + i), top: 10 }),
    }));
    if (phases.has('list')) await listBench(url, requests, concurrency);
    if (phases.has('search')) await searchBench(url);
    if (phases.has('get')) await getBench(url, dir, agents, requests, concurrency);
    if (phases.has('mixed')) await mixedBench(url, agents);
    if (phases.has('scoped')) await scopedSearchBench(url, agents);
    if (phases.has('catalog')) await catalogBench(url);
  } finally {
    await registry.stop();
  }
}

function profileArgs(): string[] {
  return args.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.profile}`];
}

/**
 * `count` registrations (default `--register`), `--register-concurrency` at a time, of generated agents from number
 * `first` on.
 */
function registrationsOf(
  url: string | readonly string[],
  first: number,
  count = Number(args.register),
): Promise<LoadResult> {
  return load(
    url,
    count,
    Number(args['register-concurrency']),
    (i) => ({
      method: 'POST',
      path: '/agents',
      body: JSON.stringify(generateAgent(first + i).document),
      headers: { authorization: ADMIN },
    }),
    (status) => status === 201,
  );
}

/**
 * CPU time the registry process (and its main thread alone) has used, in ms, from Linux's /proc; undefined
 * elsewhere. Throughput moves with whatever else the machine runs; CPU time a registration moves much less.
 */
function cpuTimeOf(pid: number | undefined): { process: number; mainThread: number } | undefined {
  if (pid === undefined) return undefined;
  // utime and stime are fields 14 and 15, counted after the command name's closing parenthesis.
  const ticks = (path: string) => {
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  try {
    const msPerTick = 1000 / 100; // USER_HZ is 100 on every Linux
    return {
      process: ticks(`/proc/${pid}/stat`) * msPerTick,
      mainThread: ticks(`/proc/${pid}/task/${pid}/stat`) * msPerTick,
    };
  } catch {
    return undefined;
  }
}

/** Registrations over HTTP, embedding included. The new agents come after the preloaded ones. */
async function registrationBench(url: string, agents: number, pid: number | undefined): Promise<void> {
  const registrations = Number(args.register);
  // Warm up (`--warmup` registrations of other agents, not measured): the embedding workers start and load the model
  // on first use, the second only once the first is busy; the target is about a running registry.
  checkFailures('warm-up registrations', await registrationsOf(url, 900_000, Number(args.warmup)));
  const before = cpuTimeOf(pid);
  const registered = await registrationsOf(url, agents);
  const after = cpuTimeOf(pid);
  checkFailures('registrations', registered);
  if (before !== undefined && after !== undefined) {
    const perRegistration = (ms: number) => (ms / registrations).toFixed(1);
    const total = after.process - before.process;
    const main = after.mainThread - before.mainThread;
    console.log(
      `  registry CPU a registration: ${perRegistration(total)} ms ` +
        `(main thread ${perRegistration(main)} ms, embedding workers and the rest ${perRegistration(total - main)} ms)`,
    );
  }
  report(
    'registrations/s (HTTP, with embedding)',
    registrations / registered.seconds,
    '/s',
    '≥ 100',
    registrations / registered.seconds >= 100 && registered.failures === 0,
  );
}

/**
 * Searches, one at a time, while registrations run (`--register` of them, after those of the register phase): how
 * long a person searching waits while agents are being embedded. No target; the figure to compare is the search
 * phase's.
 */
async function mixedBench(url: string, agents: number): Promise<void> {
  const registrations = Number(args.register);
  let registering = true;
  const registered = registrationsOf(url, agents + registrations).finally(() => {
    registering = false;
  });
  const searched = await load(
    url,
    Number.MAX_SAFE_INTEGER,
    1,
    (i) => ({
      method: 'POST',
      path: '/agents/search',
      body: JSON.stringify({ query: generateQuery(200_000 + i), top: 10, mode: 'hybrid' }),
    }),
    undefined,
    () => !registering,
  );
  const done = await registered;
  checkFailures('registrations during searches', done);
  checkFailures('searches during registrations', searched);
  console.log(
    `  during ${registrations} registrations (${(registrations / done.seconds).toFixed(0)}/s): ${searched.latenciesMs.length} hybrid searches, ` +
      `p50 ${percentile(searched.latenciesMs, 50).toFixed(0)} ms, p99 ${percentile(searched.latenciesMs, 99).toFixed(0)} ms`,
  );
}

/**
 * Hybrid searches that carry a scope, beside the plain ones of the search phase (no targets): with filters (the
 * store names the few hundred agents that match), then as an anonymous caller once 100 agents are restricted to a
 * group (the store names the agents hidden from it).
 */
async function scopedSearchBench(url: string, agents: number): Promise<void> {
  const searches = Number(args.searches);
  const search = (i: number, filters?: Record<string, string[]>): RequestSpec => ({
    method: 'POST',
    path: '/agents/search',
    body: JSON.stringify({
      query: generateQuery(300_000 + i),
      top: 10,
      mode: 'hybrid',
      ...(filters ? { filters } : {}),
    }),
  });
  const filtered = await load(url, searches, 1, (i) => {
    const { tags, capabilities } = generateFilter(i);
    return search(i, { tags: [tags], capabilities: [capabilities] });
  });
  checkFailures('filtered hybrid search', filtered);
  const restricted = await load(
    url,
    100,
    4,
    (i) => ({
      method: 'POST',
      path: '/agents',
      body: JSON.stringify({
        ...generateAgent(agents + 500_000 + i).document,
        access: { groups: ['staff'] },
      }),
      headers: { authorization: ADMIN },
    }),
    (status) => status === 201,
  );
  checkFailures('restricted registrations', restricted);
  const hidden = await load(url, searches, 1, (i) => search(searches + i));
  checkFailures('hybrid search with restricted agents', hidden);
  for (const [name, result] of [
    ['filtered hybrid search (tag and capability)', filtered],
    ['hybrid search, 100 restricted agents hidden from the caller', hidden],
  ] as const) {
    console.log(
      `  ${name}: p50 ${percentile(result.latenciesMs, 50).toFixed(0)} ms, p99 ${percentile(result.latenciesMs, 99).toFixed(0)} ms`,
    );
  }
}

/** `/.well-known/ai-catalog.json` (every public agent), one request at a time (no target). */
async function catalogBench(url: string): Promise<void> {
  const fetched = await load(url, 20, 1, () => ({ method: 'GET', path: '/.well-known/ai-catalog.json' }));
  checkFailures('AI Catalog', fetched);
  const [first = 0, ...rest] = fetched.latenciesMs;
  console.log(
    `  /.well-known/ai-catalog.json: first ${first.toFixed(0)} ms, then p50 ${percentile(rest, 50).toFixed(0)} ms`,
  );
}

async function listBench(url: string, requests: number, concurrency: number): Promise<void> {
  await load(url, 2000, concurrency, (i) => filteredList(i));

  const listed = await load(url, requests, concurrency, (i) => filteredList(i));
  checkFailures('filtered list', listed);
  report(
    'filtered list requests/s',
    requests / listed.seconds,
    '/s',
    '≥ 5000',
    requests / listed.seconds >= 5000 && listed.failures === 0,
  );
}

async function searchBench(url: string): Promise<void> {
  const searches = Number(args.searches);
  const searched = await load(url, searches, 1, (i) => ({
    method: 'POST',
    path: '/agents/search',
    body: JSON.stringify({ query: generateQuery(i), top: 10, mode: 'hybrid' }),
  }));
  checkFailures('hybrid search', searched);
  const p50 = percentile(searched.latenciesMs, 50);
  const p99 = percentile(searched.latenciesMs, 99);
  report('hybrid search p50', p50, 'ms', '≤ 15 ms', p50 <= 15 && searched.failures === 0);
  report('hybrid search p99', p99, 'ms', '≤ 50 ms', p99 <= 50 && searched.failures === 0);
}

/** GET /agents/{id} against a bare server answering the same bodies. */
async function getBench(
  url: string,
  dir: string,
  agents: number,
  requests: number,
  concurrency: number,
): Promise<void> {
  const ids = Array.from(
    { length: 2000 },
    (_, i) => generateAgent((i * 4999) % agents).document['id'] as string,
  );
  const bodies: Record<string, string> = {};
  const pool = new Pool(url, { connections: 8 });
  for (const id of ids) {
    const response = await pool.request({ method: 'GET', path: `/agents/${encodeURIComponent(id)}` });
    bodies[id] = await response.body.text();
  }
  await pool.close();
  const file = join(dir, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const bare = await startChild('bare.ts', [file]);
  try {
    const get = (i: number): RequestSpec => ({
      method: 'GET',
      path: `/agents/${encodeURIComponent(ids[i % ids.length]!)}`,
    });
    await load(bare.ready.url, 2000, concurrency, get);
    const viaRegistry = await load(url, requests, concurrency, get);
    const viaBare = await load(bare.ready.url, requests, concurrency, get);
    checkFailures('GET via registry', viaRegistry);
    const registryRate = requests / viaRegistry.seconds;
    const bareRate = requests / viaBare.seconds;
    console.log(
      `  GET /agents/{id}: registry ${registryRate.toFixed(0)}/s, bare node:http ${bareRate.toFixed(0)}/s`,
    );
    report(
      'GET /agents/{id} vs bare node:http',
      (100 * registryRate) / bareRate,
      '%',
      '≥ 40%',
      registryRate / bareRate >= 0.4 && viaRegistry.failures === 0,
    );
  } finally {
    await bare.stop();
  }
}

function filteredList(i: number): RequestSpec {
  const filter = generateFilter(i);
  return { method: 'GET', path: `/agents?tags=${filter.tags}&capabilities=${filter.capabilities}&limit=20` };
}

/** A registry child on `database`, preloading `preload` agents (0: they are there), with this run's options. */
function registryChild(database: string, preload: number): Promise<Child> {
  return startChild(
    'server.ts',
    [
      '--db',
      database,
      '--preload',
      String(preload),
      '--embedding-cache',
      args['embedding-cache'],
      '--embeddings',
      args.embeddings,
      '--answer-cache',
      args['answer-cache'],
      ...(args['embedding-threads'] === undefined ? [] : ['--embedding-threads', args['embedding-threads']]),
    ],
    profileArgs(),
  );
}

interface ReadRates {
  get: number;
  list: number;
}

/** The 2,000 ids the get phase asks for, as the default bench does. */
function getIds(agents: number): string[] {
  return Array.from({ length: 2000 }, (_, i) => generateAgent((i * 4999) % agents).document['id'] as string);
}

function getOf(ids: readonly string[]): (i: number) => RequestSpec {
  return (i) => ({ method: 'GET', path: `/agents/${encodeURIComponent(ids[i % ids.length]!)}` });
}

/**
 * What this load generator can send at all: `GET /agents/{id}` requests/s to one and to three bare node:http
 * servers answering the registry's bodies from memory (bare.ts), on the same cores as everything else. A
 * registry's rate near these measures the generator, not the registry.
 */
async function loadCeiling(
  dir: string,
  url: string,
  agents: number,
): Promise<{ one: number; three: number }> {
  const ids = getIds(agents);
  const bodies: Record<string, string> = {};
  const pool = new Pool(url, { connections: 8 });
  for (const id of ids) {
    const response = await pool.request({ method: 'GET', path: `/agents/${encodeURIComponent(id)}` });
    bodies[id] = await response.body.text();
  }
  await pool.close();
  const file = join(dir, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const bare = await Promise.all([1, 2, 3].map(() => startChild('bare.ts', [file])));
  try {
    const origins = bare.map((server) => server.ready.url);
    const requests = Number(args.requests);
    const concurrency = Number(args.concurrency);
    await load(origins, 2000 * origins.length, concurrency, getOf(ids));
    const one = await load(origins[0]!, requests, concurrency, getOf(ids));
    const three = await load(origins, requests, concurrency, getOf(ids));
    const rates = { one: requests / one.seconds, three: requests / three.seconds };
    console.log(
      `  load generator against bare node:http: one server ${rates.one.toFixed(0)}/s, three (round robin) ` +
        `${rates.three.toFixed(0)}/s (load ${loadavg()[0]!.toFixed(1)})`,
    );
    return rates;
  } finally {
    await Promise.all(bare.map((server) => server.stop()));
  }
}

/**
 * `--register` registrations through `origins` in turn, `--register-concurrency` at a time, while GET /agents/{id}
 * requests keep `--concurrency` in flight: each registration empties every replica's answer cache, so reads go to
 * the database meanwhile. Registrations/s and their latency.
 */
async function registrationsUnderReads(
  name: string,
  origins: readonly string[],
  agents: number,
  first: number,
): Promise<{ rate: number; p50: number; p99: number }> {
  let registering = true;
  const reads = load(
    origins,
    Number.MAX_SAFE_INTEGER,
    Number(args.concurrency),
    getOf(getIds(agents)),
    undefined,
    () => !registering,
  );
  let registered: LoadResult;
  try {
    registered = await registrationsOf(origins, first);
  } finally {
    registering = false;
  }
  const read = await reads;
  checkFailures(`${name}: registrations`, registered);
  checkFailures(`${name}: reads during registrations`, read);
  const figures = {
    rate: registered.latenciesMs.length / registered.seconds,
    p50: percentile(registered.latenciesMs, 50),
    p99: percentile(registered.latenciesMs, 99),
  };
  console.log(
    `  ${name}: ${figures.rate.toFixed(0)} registrations/s, p50 ${figures.p50.toFixed(0)} ms, p99 ` +
      `${figures.p99.toFixed(0)} ms, with reads at ${(read.latenciesMs.length / read.seconds).toFixed(0)}/s ` +
      `(load ${loadavg()[0]!.toFixed(1)})`,
  );
  if (registered.failures + read.failures > 0) throw new Error(`${name}: unexpected answers (above)`);
  return figures;
}

/**
 * `GET /agents/{id}` and filtered list requests/s through `servers` in turn (warmed up first), with the CPU time
 * the servers spent a request: a rate moves with whatever else the machine runs, CPU time a request much less, so
 * three replicas spending what one does a request means coordinating costs them nothing, whatever the rates say.
 */
async function readRates(name: string, servers: readonly Child[], agents: number): Promise<ReadRates> {
  const requests = Number(args.requests);
  const concurrency = Number(args.concurrency);
  const origins = servers.map((server) => server.ready.url);
  // The ids the get phase asks for, each asked of every replica during the warm-up.
  const ids = getIds(agents);
  const get = getOf(ids);
  await load(origins, ids.length * origins.length, concurrency, get);
  await load(origins, 2000 * origins.length, concurrency, filteredList);
  const cpuMs = (): number | undefined => {
    let total = 0;
    for (const server of servers) {
      const used = cpuTimeOf(server.process.pid);
      if (used === undefined) return undefined;
      total += used.process;
    }
    return total;
  };
  const perRequest = (before: number | undefined, after: number | undefined): string =>
    before === undefined || after === undefined ? 'n/a' : `${((after - before) / requests).toFixed(2)} ms`;
  const beforeGet = cpuMs();
  const got = await load(origins, requests, concurrency, get);
  const afterGet = cpuMs();
  checkFailures(`${name}: GET /agents/{id}`, got);
  const listed = await load(origins, requests, concurrency, filteredList);
  const afterList = cpuMs();
  checkFailures(`${name}: filtered list`, listed);
  const rates = { get: requests / got.seconds, list: requests / listed.seconds };
  console.log(
    `  ${name}: GET /agents/{id} ${rates.get.toFixed(0)}/s, filtered list ${rates.list.toFixed(0)}/s ` +
      `(load ${loadavg()[0]!.toFixed(1)}); registry CPU a request ${perRequest(beforeGet, afterGet)} (GET), ` +
      `${perRequest(afterGet, afterList)} (list)`,
  );
  if (got.failures + listed.failures > 0) throw new Error(`${name}: unexpected answers (above)`);
  return rates;
}

/**
 * The SQLite registry, one replica on PostgreSQL and three replicas on it (round robin), in one run: the
 * PostgreSQL figures as ratios of the SQLite registry's, and three replicas' aggregate against one's.
 */
async function replicasBench(dir: string): Promise<void> {
  if (args.database === undefined || !/^postgres(ql)?:\/\//i.test(args.database)) {
    throw new Error('--phases replicas needs --database postgres://… (an empty database)');
  }
  const agents = Number(args.agents);
  const register = Number(args.register);
  console.log(
    `registry bench (replicas): ${agents} agents, ${args.embeddings} embeddings, ${args.concurrency} in flight, ` +
      `${args.requests} requests a figure, answer cache ${args['answer-cache']}, ${register} registrations ` +
      `(${args['register-concurrency']} at a time) while reads run`,
  );
  const sqlite = await registryChild(join(dir, 'registry.db'), agents);
  let baseline: ReadRates;
  let ceiling: { one: number; three: number };
  try {
    baseline = await readRates('SQLite registry', [sqlite], agents);
    ceiling = await loadCeiling(dir, sqlite.ready.url, agents);
    await registrationsUnderReads('SQLite registry', [sqlite.ready.url], agents, agents);
  } finally {
    await sqlite.stop();
  }
  const replicas = [await registryChild(args.database, agents)];
  try {
    const oneBefore = await readRates('one replica on PostgreSQL', [replicas[0]!], agents);
    await registrationsUnderReads('one replica on PostgreSQL', [replicas[0]!.ready.url], agents, agents);
    replicas.push(await registryChild(args.database, 0), await registryChild(args.database, 0));
    const origins = replicas.map((replica) => replica.ready.url);
    const three = await readRates('three replicas on PostgreSQL (round robin)', replicas, agents);
    await registrationsUnderReads('three replicas on PostgreSQL', origins, agents, agents + register);
    // One replica again, the other two idle: the machine's load drifts during a run, and three replicas are
    // compared with one measured before and after them rather than with whichever came first.
    const oneAfter = await readRates('one replica on PostgreSQL, again', [replicas[0]!], agents);
    const one = { get: (oneBefore.get + oneAfter.get) / 2, list: (oneBefore.list + oneAfter.list) / 2 };
    console.log(
      `  GET /agents/{id} as a share of the load generator's ceiling: SQLite ${share(baseline.get, ceiling.one)}, ` +
        `one replica ${share(one.get, ceiling.one)}, three ${share(three.get, ceiling.three)}`,
    );
    // Three processes on the same cores as the database and the generator lose throughput whatever they do: what
    // three bare servers keep of one's is what three replicas could keep of one's with coordination costing nothing.
    console.log(
      `  three processes vs one on this machine: bare servers ${(ceiling.three / ceiling.one).toFixed(2)}×, ` +
        `replicas ${(three.get / one.get).toFixed(2)}× (GET): replicas keep ` +
        `${share(three.get / one.get, ceiling.three / ceiling.one)} of what bare servers keep`,
    );
    report(
      'one replica: GET /agents/{id} vs SQLite',
      one.get / baseline.get,
      '×',
      '≥ 0.7×',
      one.get >= 0.7 * baseline.get,
    );
    report(
      'one replica: filtered list vs SQLite',
      one.list / baseline.list,
      '×',
      '≥ 0.5×',
      one.list >= 0.5 * baseline.list,
    );
    report(
      'three replicas: GET /agents/{id} vs one replica (before and after)',
      three.get / one.get,
      '×',
      '≥ 1×',
      three.get >= one.get,
    );
    report(
      'three replicas: filtered list vs one replica (before and after)',
      three.list / one.list,
      '×',
      '≥ 1×',
      three.list >= one.list,
    );
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

function share(rate: number, ceiling: number): string {
  return `${((100 * rate) / ceiling).toFixed(0)}%`;
}

async function rssBench(dir: string): Promise<void> {
  const agents = Number(args['rss-agents']);
  const embeddings = args['real-embeddings'] ? 'use-lite' : 'hash';
  console.log(
    `registry bench (RSS): ${agents} agents, ${embeddings === 'hash' ? "512-dimension hash stand-in vectors, USE-lite's two workers loaded" : 'USE-lite vectors'}`,
  );
  const registry = await startChild('server.ts', [
    '--db',
    databaseIn(dir),
    '--preload',
    String(agents),
    '--embeddings',
    embeddings,
    // Stand-in vectors, but USE-lite's workers loaded: their memory is part of what a registry holds.
    ...(embeddings === 'hash' ? ['--hold-model'] : []),
  ]);
  try {
    const url = registry.ready.url;
    console.log(`  preloaded in ${((registry.ready['preloadMs'] as number) / 1000).toFixed(1)} s`);
    // Touch every path that holds memory: filtered lists, searches (vectors, query cache), single reads.
    await load(url, 200, 8, (i) => ({
      method: 'POST',
      path: '/agents/search',
      body: JSON.stringify({ query: generateQuery(i), top: 10 }),
    }));
    await load(url, 2000, 16, (i) => filteredList(i));
    await load(url, 2000, 16, (i) => ({
      method: 'GET',
      path: `/agents/${generateAgent((i * 7919) % agents).document['id'] as string}`,
    }));
    const pool = new Pool(url);
    const response = await pool.request({
      method: 'GET',
      path: '/metrics',
      headers: { authorization: ADMIN },
    });
    const text = await response.body.text();
    await pool.close();
    const rss = Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]);
    report(`RSS at ${agents} agents`, rss / GB, 'GB', '≤ 1.5 GB', rss <= 1.5 * GB);
  } finally {
    await registry.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agentry-registry-bench-'));
try {
  if (args.rss) await rssBench(dir);
  else if (phases.has('replicas')) await replicasBench(dir);
  else await throughputBench(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const failed = results.filter((result) => !result.pass);
console.log(failed.length === 0 ? 'all targets met' : `${failed.length} target(s) missed`);
process.exitCode = failed.length === 0 ? 0 : 1;
