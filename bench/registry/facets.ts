/**
 * Facet counts and filtered results at scale (issue #22 item 6; docs/web.md, "Speed"): preloads N generated agents
 * (default 100,000) with the shares of a public registry — authentication, status and languages from
 * `generateAgent(i, { varied: true })`, transports, arrivals and restricted agents drawn here — then times, for a
 * table of filter combinations, `GET /facets`, the first page of `GET /agents` and (with a text query)
 * `POST /agents/search`, as an anonymous caller, a caller with a group and the admin, in process through
 * `registry.fetch`. The answer cache is off, so every answer is computed. Each line prints p50 and max, and the
 * facets' p50 as a ratio of the unfiltered anonymous `GET /facets` of the same run.
 *
 *   npm run bench:registry-facets -- [--agents 100000] [--repeats 5] [--keep <dir>] [--only <case>]
 *     [--postgres <url>]
 *
 * `--keep <dir>` keeps the database there (`facets-<agents>.db`) and measures it again, without preloading, when
 * a later run finds it. `--postgres <url>` copies the preloaded SQLite file into that PostgreSQL database (which
 * must exist; what it holds is replaced) with `moveRegistryDatabase`, and measures there instead.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Agent, Binding } from '@agentry/core';
import { loadAgents, moveRegistryDatabase, type Registry, scanAgentText } from '@agentry/registry';
import { preferredId } from '../../packages/registry/src/records/ids.js';
import { searchDocumentOf } from '../../packages/registry/src/records/search-document.js';
import { percentile } from '../measures.js';
import { random, readGeneratedAgent } from './agents.js';
import { BENCH_ADMIN_TOKEN, openMeasuringRegistry } from './measuring-registry.js';

const BATCH = 500;
/** Groups restricted agents are shared with; the caller with a group holds the first. */
const GROUPS = ['team-a', 'team-b'];

const { values: args } = parseArgs({
  options: {
    agents: { type: 'string', default: '100000' },
    repeats: { type: 'string', default: '5' },
    keep: { type: 'string' },
    only: { type: 'string' },
    postgres: { type: 'string' },
  },
});

interface Shape {
  /** The transports beside (or instead of) the AIDIP endpoint's `http`. */
  bindings: 'http' | 'http+mcp' | 'a2a' | 'mcp' | 'none';
  arrival: 'registered' | 'crawled' | 'imported';
  /** The group a restricted agent is shared with (3% of agents), else public. */
  group?: string;
}

/** Mostly plain HTTP endpoints, some MCP servers and A2A agents; most registered, some crawled, a few imported. */
function shapeOf(index: number): Shape {
  const next = random(index * 2654435761 + 11);
  const t = next();
  const bindings = t < 0.62 ? 'http' : t < 0.72 ? 'http+mcp' : t < 0.84 ? 'a2a' : t < 0.96 ? 'mcp' : 'none';
  const a = next();
  const arrival = a < 0.8 ? 'registered' : a < 0.95 ? 'crawled' : 'imported';
  const shape: Shape = { bindings, arrival };
  if (next() < 0.03) shape.group = GROUPS[Math.floor(next() * GROUPS.length)]!;
  return shape;
}

function shaped(agent: Agent, shape: Shape): Agent {
  const http = agent.bindings.filter((binding) => binding.kind === 'http');
  const url = http[0]?.kind === 'http' ? http[0].url : `https://${agent.id}.agents.example.com/invoke`;
  const mcp: Binding = {
    kind: 'mcp',
    server: url.replace(/\/invoke$/, '/mcp'),
    transport: 'streamable-http',
  };
  const a2a: Binding = { kind: 'a2a', url: url.replace(/\/invoke$/, '/a2a'), protocolBinding: 'JSONRPC' };
  const bindings: Record<Shape['bindings'], Binding[]> = {
    http,
    'http+mcp': [...http, mcp],
    a2a: [a2a],
    mcp: [mcp],
    none: [],
  };
  return { ...agent, bindings: bindings[shape.bindings] };
}

function open(path: string): Promise<Registry> {
  return openMeasuringRegistry(path);
}

/**
 * Public registered agents go through `loadAgents`, as a seeded registry's would; restricted, crawled and imported
 * ones through the store's registration with what `loadAgents` cannot say (their groups, where they were read).
 */
async function preload(registry: Registry, agents: number): Promise<void> {
  const started = performance.now();
  for (let from = 0; from < agents; from += BATCH) {
    const plain: Agent[] = [];
    const other: Array<{ agent: Agent; shape: Shape }> = [];
    for (let i = from; i < Math.min(agents, from + BATCH); i++) {
      const read = readGeneratedAgent(i, { varied: true });
      const shape = shapeOf(i);
      const agent = shaped(read, shape);
      if (shape.arrival === 'registered' && shape.group === undefined) plain.push(agent);
      else other.push({ agent, shape });
    }
    await loadAgents(registry, plain, { owner: 'bench' });
    const outcome = await registry.store.agents.register(
      other.map(({ agent, shape }) => {
        const host = `${agent.id}.agents.example.com`;
        return {
          draft: {
            agent,
            owner: shape.arrival === 'registered' ? 'bench' : `crawler:${host}`,
            flags: scanAgentText(agent),
            sourceFormat: 'aidip',
            ...(shape.group === undefined ? {} : { access: { groups: [shape.group] } }),
            ...(shape.arrival === 'registered'
              ? {}
              : { fetched: { arrival: shape.arrival, host, handle: agent.id, documents: [] } }),
          },
          preferredId: preferredId(agent),
        };
      }),
      { actor: 'bench' },
    );
    if (!Array.isArray(outcome)) throw new Error(`preload refused: ${JSON.stringify(outcome)}`);
    await registry.search.upsert(outcome.map((written) => searchDocumentOf(written.record)));
    if ((from / BATCH) % 20 === 19) {
      process.stderr.write(
        `  preloaded ${from + BATCH} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
    }
  }
  process.stdout.write(`  preload ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

/** The filter combinations, as GET /agents and GET /facets take them; `q` also asks POST /agents/search. */
const CASES: ReadonlyArray<readonly [name: string, query: string]> = [
  ['none', ''],
  ['one tag', 'tags=weather'],
  ['auth=none', 'auth=none'],
  ['language=fr', 'language=fr'],
  ['status=active', 'status=active'],
  ['status=deprecated', 'status=deprecated'],
  ['transport=mcp', 'transport=mcp'],
  ['transport=http', 'transport=http'],
  ['source=registered', 'source=registered'],
  ['source=crawled', 'source=crawled'],
  ['auth=none+language=fr', 'auth=none&language=fr'],
  ['status=active+transport=http', 'status=active&transport=http'],
  ['tag+auth=none', 'tags=nlp&auth=none'],
  ['capability+language=en', 'capabilities=search&language=en'],
  ['auth=none+status=active+language=en', 'auth=none&status=active&language=en'],
  ['q', 'q=translate+a+document'],
  ['q+auth=none', 'q=translate+a+document&auth=none'],
  ['q+language=fr+status=active', 'q=translate+a+document&language=fr&status=active'],
];

type Who = 'anonymous' | 'group' | 'admin';

async function measure(registry: Registry): Promise<void> {
  const { token: groupToken } = await registry.store.tokens.create(
    { role: 'client', groups: [GROUPS[0]!] },
    'bench',
  );
  const tokens: Record<Who, string | undefined> = {
    anonymous: undefined,
    group: groupToken,
    admin: BENCH_ADMIN_TOKEN,
  };
  const repeats = Number(args.repeats);
  const ask = async (who: Who, path: string, body?: object): Promise<{ ms: number; total?: number }> => {
    const headers: Record<string, string> = {};
    const token = tokens[who];
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const at = performance.now();
    const response = await registry.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    const ms = performance.now() - at;
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
    const parsed = JSON.parse(text) as { total?: number };
    return { ms, ...(typeof parsed.total === 'number' ? { total: parsed.total } : {}) };
  };
  const timed = async (who: Who, path: string, body?: object) => {
    await ask(who, path, body); // warm-up: statements prepared, pages cached
    const times: number[] = [];
    let total: number | undefined;
    for (let i = 0; i < repeats; i++) {
      const answer = await ask(who, path, body);
      times.push(answer.ms);
      total = answer.total;
    }
    return { p50: percentile(times, 50), max: Math.max(...times), total };
  };
  const baseline = (await timed('anonymous', '/facets')).p50;
  process.stdout.write(
    `  baseline: GET /facets anonymous p50 ${baseline.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(1)})\n`,
  );
  let worst = 0;
  for (const [name, query] of CASES) {
    if (args.only !== undefined && !name.includes(args.only)) continue;
    for (const who of ['anonymous', 'group', 'admin'] as const) {
      const facets = await timed(who, `/facets?${query}`);
      const list = await timed(who, `/agents?${query}${query === '' ? '' : '&'}limit=20`);
      const params = new URLSearchParams(query);
      const q = params.get('q');
      let search = '';
      if (q !== null) {
        // The search body takes AIDIP's filters (§4.3.1); the others are GET /agents?q=… (the list above).
        const filters: Record<string, string[]> = {};
        const names: Record<string, string> = {
          tags: 'tags',
          capabilities: 'capabilities',
          language: 'languages',
          status: 'status',
        };
        for (const [key, value] of params) {
          const member = names[key];
          if (member !== undefined) filters[member] = [...(filters[member] ?? []), value];
        }
        const searched = await timed(who, '/agents/search', { query: q, top: 20, filters });
        search = `; search ${searched.p50.toFixed(0)}/${searched.max.toFixed(0)} ms`;
        worst = Math.max(worst, searched.max);
      }
      worst = Math.max(worst, facets.max, list.max);
      process.stdout.write(
        `  ${name.padEnd(38)} ${who.padEnd(9)} facets ${facets.p50.toFixed(0).padStart(5)}/${facets.max.toFixed(0).padStart(5)} ms (×${(facets.p50 / baseline).toFixed(2)}, ${facets.total ?? '?'} agents); list ${list.p50.toFixed(0)}/${list.max.toFixed(0)} ms${search}\n`,
      );
    }
  }
  process.stdout.write(`  slowest answer ${worst.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(1)})\n`);
}

/** How many agents the registry database at `location` holds (0 for an empty one). */
async function agentsIn(location: string): Promise<number> {
  const registry = await open(location);
  try {
    const row = await registry.store.db
      .selectFrom('agents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  } finally {
    await registry.close();
  }
}

async function main(): Promise<void> {
  const agents = Number(args.agents);
  const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'agentry-bench-facets-'));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `facets-${agents}.db`);
  try {
    process.stdout.write(`${agents} agents (load ${loadavg()[0]!.toFixed(1)}); p50/max of ${args.repeats}\n`);
    if (!existsSync(path)) {
      const registry = await open(path);
      try {
        await preload(registry, agents);
      } finally {
        await registry.close();
      }
    }
    let measured = path;
    if (args.postgres !== undefined && (await agentsIn(args.postgres)) !== agents) {
      const started = performance.now();
      await moveRegistryDatabase({ from: path, to: args.postgres, replace: true });
      process.stdout.write(
        `  copied to PostgreSQL in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
    }
    if (args.postgres !== undefined) measured = args.postgres;
    const registry = await open(measured);
    try {
      await measure(registry);
    } finally {
      await registry.close();
    }
  } finally {
    if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
