/**
 * Where one search's time and the registry's memory go on a preloaded database (issue #21: the 1,000,000-agent
 * targets). Opens a registry on the file as bench/registry/ann.ts's measure role does (stand-in provider, vector
 * index from 50,000 agents), waits until the vector index is trained and the lexical index is in memory, warms up,
 * then runs hybrid, semantic and filtered hybrid searches one at a time through `registry.fetch`, each phase under
 * the inspector's CPU profiler. CPU time per search (`process.cpuUsage`) is the figure to read on a busy machine;
 * wall time is printed beside it. The profiles are summarised by function (self and total time) and by module, and
 * written as .cpuprofile files (open them in Chrome DevTools) when `--out` is given. With `--sql`, better-sqlite3's
 * statements are timed by their SQL text (the profile cannot say which query a native `all` served: Kysely's calls
 * are asynchronous). Memory: `process.memoryUsage`,
 * V8's heap spaces, and the sizes the search's own structures report (the lexical postings, the vector index, the
 * facet index), found by walking the registry's objects and closures through the inspector.
 *
 *   node --max-old-space-size=8192 --expose-gc --import tsx bench/registry/profile-search.ts \
 *     --db /path/registry-1000000.db [--searches 100] [--filtered 50] [--out /tmp/profiles]
 *     [--sql] [--approximate-from 50000] [--lexical-in-memory-from 50000] [--interval <sampling µs, 250>]
 *   node --import tsx bench/registry/profile-search.ts --analyse /tmp/profiles/hybrid.cpuprofile
 *
 * Nothing is written to the database but what a measuring registry writes (ann.ts --role measure).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import type { Registry } from '@agentry/registry';
import { percentile } from '../measures.js';
import { generateFilter, generateQuery } from './agents.js';
import { openMeasuringRegistry, searchThroughFetch } from './measuring-registry.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    searches: { type: 'string', default: '100' },
    filtered: { type: 'string', default: '50' },
    out: { type: 'string' },
    analyse: { type: 'string' },
    interval: { type: 'string', default: '250' },
    sql: { type: 'boolean', default: false },
    'approximate-from': { type: 'string', default: '50000' },
    'lexical-in-memory-from': { type: 'string', default: '50000' },
  },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const MODULES: Array<[RegExp, string]> = [
  [/lexical\/memory-postings/, 'lexical: memory-postings'],
  [/lexical\/memory-mirror/, 'lexical: memory-mirror'],
  [/search\/lexical\//, 'lexical: other'],
  [/ann-index|vectors\/|semantic\/|vector-store/, 'vectors: ann-index / kernel / vector-store'],
  [/search\/fusion/, 'fusion'],
  [/search\/rank/, 'rank'],
  [/store\/facet/, 'store: facet index'],
  [/registry\/(src|dist)\/store\//, 'store: other'],
  [/registry\/(src|dist)\/search\//, 'search: other'],
  [/registry\/(src|dist)\/api\//, 'registry api'],
  [/registry\/(src|dist)\//, 'registry: other'],
  [/better-sqlite3|kysely/, 'SQLite / Kysely'],
  [/hono/, 'Hono'],
  [/pino/, 'pino'],
  [/zod/, 'zod'],
  [/bench\//, 'bench (queries, stand-in embeddings)'],
  [/embeddings\/(src|dist)/, 'embeddings: other'],
  [/core\/(src|dist)/, '@agentry/core'],
  [/node_modules/, 'other node_modules'],
  [/^node:|^internal\//, 'node internals'],
];

function moduleOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)' || functionName === '(idle)') return functionName;
    if (/JSON|stringify|parse/i.test(functionName)) return 'JSON (native)';
    // better-sqlite3's Statement methods are native frames without a URL.
    if (/^(all|get|run|iterate|raw|pluck|prepare|exec)$/.test(functionName))
      return 'SQLite (native statement)';
    // The inspector's own calls (starting and stopping the profiler) and the per-search cpuUsage: measurement.
    if (functionName === 'dispatch' || functionName === 'cpuUsage')
      return 'measurement (inspector, cpuUsage)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  for (const [pattern, name] of MODULES) if (pattern.test(url)) return name;
  return url.replace(/^file:\/\/\/work\/main\//, '');
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\/\/work\/main\//, '').replace(/^.*node_modules\//, 'nm/');
  return url === ''
    ? functionName || '(anonymous)'
    : `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** Self and total time by function, self and total time by module, in ms, from one CPU profile. */
function summarise(profile: Profile, top = 15): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfSamples = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    selfSamples.set(profile.samples[i]!, (selfSamples.get(profile.samples[i]!) ?? 0) + delta);
  }
  const fnSelf = new Map<string, number>();
  const fnTotal = new Map<string, number>();
  const modSelf = new Map<string, number>();
  const modTotal = new Map<string, number>();
  let all = 0;
  let busy = 0;
  for (const [id, us] of selfSamples) {
    const node = byId.get(id)!;
    all += us;
    const name = node.callFrame.functionName;
    if (name !== '(idle)' && name !== '(program)') busy += us;
    fnSelf.set(label(node), (fnSelf.get(label(node)) ?? 0) + us);
    modSelf.set(moduleOf(node), (modSelf.get(moduleOf(node)) ?? 0) + us);
    // Total: each function and module on the stack once per sample.
    const seenFn = new Set<string>();
    const seenMod = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (frame.callFrame.functionName === '(root)') break;
      const fn = label(frame);
      const mod = moduleOf(frame);
      if (!seenFn.has(fn)) {
        seenFn.add(fn);
        fnTotal.set(fn, (fnTotal.get(fn) ?? 0) + us);
      }
      if (!seenMod.has(mod)) {
        seenMod.add(mod);
        modTotal.set(mod, (modTotal.get(mod) ?? 0) + us);
      }
    }
  }
  const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const lines = [
    `  sampled ${ms(all)} ms, of which not idle/program ${ms(busy)} ms (shares below are of this)`,
    '  top functions by self time:',
  ];
  for (const [fn, us] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`   ${ms(us)} ms ${pct(us)}  (total ${ms(fnTotal.get(fn) ?? 0)} ms)  ${fn}`);
  lines.push('  top functions by total time:');
  for (const [fn, us] of [...fnTotal].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`   ${ms(us)} ms ${pct(us)}  ${fn}`);
  lines.push('  modules (self / total):');
  for (const [mod, us] of [...modSelf].sort((a, b) => b[1] - a[1]))
    lines.push(`   ${ms(us)} ms ${pct(us)} / ${ms(modTotal.get(mod) ?? 0)} ms  ${mod}`);
  return lines.join('\n');
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))),
  );
}

function open(db: string): Promise<Registry> {
  return openMeasuringRegistry(db, {
    approximateFrom: Number(args['approximate-from']),
    lexicalInMemoryFrom: Number(args['lexical-in-memory-from']),
  });
}

const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MB`;

function memoryLine(what: string): string {
  const usage = process.memoryUsage();
  return `${what}: rss ${mb(usage.rss)}, heapTotal ${mb(usage.heapTotal)}, heapUsed ${mb(usage.heapUsed)}, external ${mb(usage.external)}, arrayBuffers ${mb(usage.arrayBuffers)}`;
}

/** Time spent in each SQL statement (`--sql`), while `timing` is on; `iterate` is timed to its first row only. */
const statementTimes = new Map<string, { calls: number; ms: number }>();
const statementTiming = { on: false };

function timeStatements(): void {
  const require = createRequire(join(process.cwd(), 'packages/registry/package.json'));
  const Database = require('better-sqlite3') as new (
    path: string,
  ) => {
    prepare(source: string): object;
    close(): void;
  };
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = prototype[method] as (...values: unknown[]) => unknown;
    prototype[method] = function (this: { source: string }, ...values: unknown[]) {
      if (!statementTiming.on) return original.apply(this, values);
      const at = performance.now();
      try {
        return original.apply(this, values);
      } finally {
        const key = `${method} ${this.source.replace(/\s+/g, ' ').slice(0, 200)}`;
        const entry = statementTimes.get(key) ?? { calls: 0, ms: 0 };
        entry.calls++;
        entry.ms += performance.now() - at;
        statementTimes.set(key, entry);
      }
    };
  }
}

function statementLines(searches: number): string[] {
  const entries = [...statementTimes].sort((a, b) => b[1].ms - a[1].ms);
  const total = entries.reduce((sum, [, entry]) => sum + entry.ms, 0);
  const lines = [`  SQL statements: ${(total / searches).toFixed(2)} ms wall per search in all`];
  for (const [source, entry] of entries.slice(0, 8))
    lines.push(
      `   ${(entry.ms / searches).toFixed(2).padStart(7)} ms/search, ${(entry.calls / searches).toFixed(1)} calls/search: ${source}`,
    );
  return lines;
}

interface RemoteProperty {
  name: string;
  value?: { type: string; subtype?: string; className?: string; objectId?: string; description?: string };
}

/**
 * Walks the registry's objects and the closures of its functions (through the inspector's internal [[Scopes]]) for
 * the search's own structures, and asks each for the size it reports. Breadth first, bounded.
 */
async function structureSizes(session: Session, registry: Registry): Promise<string[]> {
  (globalThis as { __profiledRegistry?: Registry }).__profiledRegistry = registry;
  const root = await post<{ result: { objectId: string } }>(session, 'Runtime.evaluate', {
    expression: 'globalThis.__profiledRegistry',
  });
  const wanted =
    /^(MemoryPostings|AnnIndex|FacetIndex|FacetPostings|FacetDictionary|RowBlock|WordPages|SlotList)$/;
  const skip =
    /^(Array|Map|Set|Uint8Array|Uint16Array|Uint32Array|Int32Array|Float32Array|Float64Array|Buffer|Database|Statement|Logger|Pino|EventEmitter|Socket)$/;
  const queue: Array<{ id: string; path: string; depth: number }> = [
    { id: root.result.objectId, path: 'registry', depth: 0 },
  ];
  const found: Array<{ id: string; path: string; className: string }> = [];
  const seenClasses = new Map<string, number>();
  let visited = 0;
  while (queue.length > 0 && visited < 20000) {
    const { id, path, depth } = queue.shift()!;
    visited++;
    let properties: {
      result: RemoteProperty[];
      internalProperties?: RemoteProperty[];
      privateProperties?: RemoteProperty[];
    };
    try {
      properties = await post(session, 'Runtime.getProperties', {
        objectId: id,
        ownProperties: true,
        generatePreview: false,
      });
    } catch {
      continue;
    }
    const entries = [
      ...properties.result,
      ...(properties.internalProperties ?? []),
      ...(properties.privateProperties ?? []),
    ];
    for (const entry of entries) {
      const value = entry.value;
      if (!value?.objectId || depth >= 12) continue;
      const className = value.className ?? '';
      if (wanted.test(className)) {
        const count = seenClasses.get(className) ?? 0;
        seenClasses.set(className, count + 1);
        if (count < 8 && !found.some((f) => f.path === `${path}.${entry.name}`))
          found.push({ id: value.objectId, path: `${path}.${entry.name}`, className });
        if (className === 'MemoryPostings' || className === 'AnnIndex' || className === 'FacetPostings')
          continue;
      }
      const internal = value.subtype?.startsWith('internal#') === true;
      if (
        !internal &&
        (skip.test(className) || value.subtype === 'typedarray' || value.subtype === 'arraybuffer')
      )
        continue;
      if (entry.name === '[[Prototype]]' || entry.name === '__proto__') continue;
      // The global scope is everyone's; the walk keeps to what the registry's closures hold.
      if (value.subtype === 'internal#scope' && value.description === 'Global') continue;
      if (value.type === 'function') {
        queue.push({ id: value.objectId, path: `${path}.${entry.name}()`, depth: depth + 1 });
      } else if (value.type === 'object') {
        queue.push({ id: value.objectId, path: internal ? path : `${path}.${entry.name}`, depth: depth + 1 });
      }
    }
  }
  const lines = [
    `  walked ${visited} objects; found ${[...seenClasses].map(([c, n]) => `${c}×${n}`).join(', ')}`,
  ];
  const report = `function () {
    const out = {};
    const typed = (value, seen = new Set(), depth = 0) => {
      if (value === null || typeof value !== 'object' || seen.has(value) || depth > 4) return 0;
      seen.add(value);
      if (ArrayBuffer.isView(value)) return value.byteLength;
      if (value instanceof ArrayBuffer) return value.byteLength;
      let sum = 0;
      if (value instanceof Map) { let n = 0; for (const [k, v] of value) { sum += typed(k, seen, depth + 1) + typed(v, seen, depth + 1); if (++n > 200000) break; } return sum; }
      if (Array.isArray(value)) { for (let i = 0; i < Math.min(value.length, 200000); i++) sum += typed(value[i], seen, depth + 1); return sum; }
      for (const key of Object.keys(value)) sum += typed(value[key], seen, depth + 1);
      return sum;
    };
    for (const key of ['bytes', 'byteParts', 'size', 'count', 'length', 'agents', 'dimensions', 'lists']) {
      try { const v = this[key]; if (v !== undefined && typeof v !== 'function' && (typeof v !== 'object' || key === 'byteParts')) out[key] = v; } catch (e) { out[key] = String(e); }
    }
    const own = {};
    for (const key of Object.keys(this)) {
      const v = this[key];
      if (v && typeof v === 'object') { const n = typed(v); if (n > 1e6) own[key] = Math.round(n / 1048576) + ' MB'; }
      else if (typeof v === 'number') own[key] = v;
    }
    out.typedArraysByField = own;
    return JSON.stringify(out);
  }`;
  const reported = new Set<string>();
  // Classes with #private fields: each field sized on its own (an injected function cannot read them).
  const sizeField = `function () {
    if (ArrayBuffer.isView(this)) return this.constructor.name + ' ' + Math.round(this.byteLength / 1024) + ' KB';
    if (this instanceof Map) return 'Map of ' + this.size;
    if (Array.isArray(this)) {
      let typed = 0; let bytes = 0; let strings = 0; let chars = 0;
      for (const v of this) {
        if (ArrayBuffer.isView(v)) { typed++; bytes += v.byteLength; }
        else if (typeof v === 'string') { strings++; chars += v.length; }
      }
      return 'Array of ' + this.length + (typed ? ', ' + typed + ' typed arrays of ' + Math.round(bytes / 1048576) + ' MB' : '') + (strings ? ', ' + strings + ' strings of ' + Math.round(chars / 1048576) + ' M chars' : '');
    }
    return typeof this;
  }`;
  for (const structure of found.filter((f) => /^Facet/.test(f.className))) {
    const own = await post<{ privateProperties?: RemoteProperty[] }>(session, 'Runtime.getProperties', {
      objectId: structure.id,
      ownProperties: true,
    });
    const parts: string[] = [];
    for (const field of own.privateProperties ?? []) {
      if (!field.value?.objectId) continue;
      const sized = await post<{ result: { value?: string } }>(session, 'Runtime.callFunctionOn', {
        objectId: field.value.objectId,
        functionDeclaration: sizeField,
        returnByValue: true,
      });
      parts.push(`${field.name}: ${sized.result.value}`);
    }
    const line = `  ${structure.className} private fields: ${parts.join('; ')}`;
    if (!lines.includes(line)) lines.push(line);
  }
  for (const structure of found) {
    try {
      const result = await post<{ result: { value?: string } }>(session, 'Runtime.callFunctionOn', {
        objectId: structure.id,
        functionDeclaration: report,
        returnByValue: true,
      });
      // The same structure is reached through many closures: each is reported once.
      if (reported.has(`${structure.className} ${result.result.value}`)) continue;
      reported.add(`${structure.className} ${result.result.value}`);
      lines.push(`  ${structure.className} at ${structure.path}: ${result.result.value}`);
    } catch (error) {
      lines.push(`  ${structure.className} at ${structure.path}: ${String(error)}`);
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const db = args.db;
  if (db === undefined) throw new Error('--db is required');
  const out = args.out;
  if (out !== undefined) mkdirSync(out, { recursive: true });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${new Date().toISOString()}`,
  );
  if (args.sql) timeStatements();
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const registry = await open(db);
  const openMs = performance.now() - started;
  const openCpu = process.cpuUsage(cpuAtStart);
  log(
    `open ${(openMs / 1000).toFixed(0)} s wall, ${((openCpu.user + openCpu.system) / 1e6).toFixed(0)} s CPU; load ${loadavg()[0]!.toFixed(1)}`,
  );
  log(memoryLine('  memory after open'));
  for (;;) {
    const stats = await registry.search.stats();
    if (stats.approximate === true && stats.vectorIndexBuilding !== true && stats.lexicalInMemory === true)
      break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await registry.store.facets.current();
  const readyCpu = process.cpuUsage(cpuAtStart);
  log(
    `ready (approximate and built, lexical in memory, facets read) ${((performance.now() - started) / 1000).toFixed(0)} s wall, ${((readyCpu.user + readyCpu.system) / 1e6).toFixed(0)} s CPU; load ${loadavg()[0]!.toFixed(1)}`,
  );
  log(`  stats ${JSON.stringify(await registry.search.stats())}`);
  log(memoryLine('  memory when ready'));

  const search = (body: object) => searchThroughFetch(registry, body);
  for (let i = 0; i < 20; i++) await search({ query: generateQuery(900_000 + i), top: 10, mode: 'hybrid' });
  for (let i = 0; i < 5; i++) await search({ query: generateQuery(900_100 + i), top: 10, mode: 'semantic' });
  for (let i = 0; i < 5; i++) {
    const { tags, capabilities } = generateFilter(1000 + i);
    await search({
      query: generateQuery(900_200 + i),
      top: 10,
      mode: 'hybrid',
      filters: { tags: [tags], capabilities: [capabilities] },
    });
  }

  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: Number(args.interval) });
  let gcMs = 0;
  let gcCount = 0;
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcCount++;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });

  const phases: Array<{ name: string; count: number; body: (i: number) => object }> = [
    {
      name: 'hybrid',
      count: Number(args.searches),
      body: (i) => ({ query: generateQuery(100_000 + i), top: 10, mode: 'hybrid' }),
    },
    {
      name: 'semantic',
      count: Number(args.searches),
      body: (i) => ({ query: generateQuery(100_000 + i), top: 10, mode: 'semantic' }),
    },
    {
      name: 'filtered',
      count: Number(args.filtered),
      body: (i) => {
        const { tags, capabilities } = generateFilter(i);
        return {
          query: generateQuery(300_000 + i),
          top: 10,
          mode: 'hybrid',
          filters: { tags: [tags], capabilities: [capabilities] },
        };
      },
    },
  ];
  const summaries: string[] = [];
  for (const phase of phases) {
    const cpu: number[] = [];
    const wall: number[] = [];
    gcMs = 0;
    gcCount = 0;
    const load = loadavg()[0]!;
    statementTimes.clear();
    statementTiming.on = true;
    await post(session, 'Profiler.start');
    const phaseCpu = process.cpuUsage();
    for (let i = 0; i < phase.count; i++) {
      const cpuAt = process.cpuUsage();
      const at = performance.now();
      await search(phase.body(i));
      wall.push(performance.now() - at);
      const used = process.cpuUsage(cpuAt);
      cpu.push((used.user + used.system) / 1000);
    }
    const phaseUsed = process.cpuUsage(phaseCpu);
    statementTiming.on = false;
    const { profile } = await post<{ profile: Profile }>(session, 'Profiler.stop');
    await new Promise((resolve) => setImmediate(resolve));
    if (out !== undefined) writeFileSync(join(out, `${phase.name}.cpuprofile`), JSON.stringify(profile));
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    log(
      `${phase.name} ×${phase.count} (load ${load.toFixed(1)}): CPU p50 ${percentile(cpu, 50).toFixed(1)} / p90 ${percentile(cpu, 90).toFixed(1)} / p99 ${percentile(cpu, 99).toFixed(1)} / mean ${(sum(cpu) / cpu.length).toFixed(1)} ms (user ${(phaseUsed.user / 1000 / phase.count).toFixed(1)}, system ${(phaseUsed.system / 1000 / phase.count).toFixed(1)} ms/search); wall p50 ${percentile(wall, 50).toFixed(1)} / p99 ${percentile(wall, 99).toFixed(1)} ms; GC ${gcCount} pauses, ${gcMs.toFixed(0)} ms (${(gcMs / phase.count).toFixed(1)} ms/search)`,
    );
    if (args.sql) for (const line of statementLines(phase.count)) log(line);
    summaries.push(`${phase.name} profile:\n${summarise(profile)}`);
  }
  gcObserver.disconnect();
  for (const summary of summaries) log(summary);

  log(memoryLine('memory after searches'));
  log(
    `  heap spaces: ${v8
      .getHeapSpaceStatistics()
      .map((s) => `${s.space_name} ${mb(s.space_used_size)}`)
      .join(', ')}`,
  );
  const heap = v8.getHeapStatistics();
  log(
    `  heap statistics: used ${mb(heap.used_heap_size)}, total ${mb(heap.total_heap_size)}, malloced ${mb(heap.malloced_memory)}, external ${mb(heap.external_memory)}`,
  );
  try {
    for (const line of await structureSizes(session, registry)) log(line);
  } catch (error) {
    log(`  structure walk failed: ${String(error)}`);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) {
    gc();
    log(memoryLine('memory after a full GC'));
  }
  session.disconnect();
  await registry.close();
}

if (args.analyse !== undefined) {
  process.stdout.write(`${summarise(JSON.parse(readFileSync(args.analyse, 'utf8')) as Profile, 25)}\n`);
} else {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
