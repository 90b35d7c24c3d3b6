/**
 * bench/client: throughput of the client's hot paths. Prints figures; asserts nothing.
 *
 * (a) Cached resolution-style fetches: a secure-fetcher GET of a fresh cached discovery document, read with
 *     `.json()` (and `.text()`), with the full policy in force (name lookup table, address rules, allowAddresses
 *     for the loopback stand-in). Served without a request, as a second resolution within max-age is.
 *     Target (issue 3): ≥ 100,000 cached fetches/s.
 * (b) REST invocation throughput: `invoke` over a WoA REST binding vs a plain undici POST of the same envelope to
 *     the same loopback echo server, in the same run (target ≥ 90 % of plain undici).
 * (c) Cached resolution: `resolve('agent://agents.example:<port>/planner')` through a resolver whose resolution
 *     cache holds it (every document fresh). Target (issue 3): ≥ 100,000 cached resolutions/s.
 *
 *   npm run build && node --import tsx bench/client/run.ts          human-readable
 *   npm run build && node --import tsx bench/client/run.ts --json   machine-readable
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecureFetcher, invoke } from '@agentry/client';
import type { Agent } from '@agentry/core';
import { Agent as UndiciAgent, request as undiciRequest } from 'undici';

const CACHED_TARGET_PER_SECOND = 100_000;
const BENCH_MS = Number(process.env['BENCH_MS'] ?? 1000);
const json = process.argv.includes('--json');

/** Runs `round` (async) repeatedly for about `ms` milliseconds after a warm-up; returns rounds per second. */
async function measure(round: () => Promise<unknown>, ms = BENCH_MS): Promise<number> {
  for (let i = 0; i < 2000; i++) await round();
  let rounds = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 200; i++) await round();
    rounds += 200;
    elapsed = performance.now() - start;
  }
  return (rounds * 1000) / elapsed;
}

/** A well-known document as an origin serves it: JSON, fresh for ten minutes, with a validator. */
const document = JSON.stringify({
  version: '1.0',
  agents: Array.from({ length: 5 }, (_, i) => ({
    id: `agent-${i}`,
    name: `Agent ${i}`,
    url: `https://agents.example/agents/${i}/agent.json`,
    description: 'An agent listed for the benchmark, with a description of ordinary length.',
  })),
});

const server = createServer((_request, response) => {
  response.writeHead(200, {
    'content-type': 'application/json',
    'cache-control': 'max-age=600',
    etag: '"bench-1"',
  });
  response.end(document);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

// agents.example stands in for a public origin: the lookup maps it to the loopback server, and allowAddresses lets
// exactly that address and port through, so every rule of the default policy still runs on each fetch.
const fetcher = createSecureFetcher({
  allowHttp: true,
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  allowAddresses: [`127.0.0.1:${port}`],
});
const url = `http://agents.example:${port}/.well-known/agents.json`;
const first = await fetcher.fetch(url);
await first.response.text();

const cachedJsonPerSecond = await measure(async () => {
  const result = await fetcher.fetch(url);
  if (!result.fromCache) throw new Error('expected a cached answer');
  return result.response.json();
});
const cachedTextPerSecond = await measure(async () => (await fetcher.fetch(url)).response.text());

// ---------------------------------------------------------------------------------------------------------------
// (b) REST invocation throughput vs plain undici (target: ≥ 90 % of plain undici).
// The same loopback echo endpoint is called two ways, one request at a time on a keep-alive connection:
// Agentry's `invoke` over a WoA REST binding (input validated against the schema, the envelope built, the policy
// checked, the output validated) and a bare `undici.request` POST of the same envelope.
const echoServer = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: unknown };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ echo: envelope.input }));
  });
});
await new Promise<void>((resolve) => echoServer.listen(0, '127.0.0.1', resolve));
const echoPort = (echoServer.address() as AddressInfo).port;
const echoAgent: Agent = {
  id: 'echo',
  name: 'Echo',
  description: 'Repeats its input.',
  operations: [
    {
      name: 'default',
      input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      output: { type: 'object', properties: { echo: { type: 'object' } }, required: ['echo'] },
    },
  ],
  bindings: [
    { kind: 'woa-rest', base: `http://agents.example:${echoPort}`, invokePath: '/agents/{agent_id}/invoke' },
  ],
};
const invokeFetcher = createSecureFetcher({
  allowHttp: true,
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  allowAddresses: [`127.0.0.1:${echoPort}`],
  cache: false,
});
const input = { text: 'The quick brown fox jumps over the lazy dog.' };
const envelope = JSON.stringify({ agent: 'echo', operation: 'default', input });
const undiciAgent = new UndiciAgent({ keepAliveTimeout: 10_000 });
const echoUrl = `http://127.0.0.1:${echoPort}/agents/echo/invoke`;
const plainUndici = async () => {
  const { body } = await undiciRequest(echoUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: envelope,
    dispatcher: undiciAgent,
  });
  return body.json();
};
const viaInvoke = () => invoke({ agent: echoAgent }, input, { fetcher: invokeFetcher });
// Interleave the two in small batches for the whole window and compare the time each accumulated: load that
// drifts during the run (this is a shared 2-core machine) then falls on both alike instead of on one window.
async function interleaved(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  ms: number,
): Promise<[number, number]> {
  for (let i = 0; i < 2000; i++) {
    await a();
    await b();
  }
  const batch = 50;
  let timeA = 0;
  let timeB = 0;
  let rounds = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    let t = performance.now();
    for (let i = 0; i < batch; i++) await a();
    timeA += performance.now() - t;
    t = performance.now();
    for (let i = 0; i < batch; i++) await b();
    timeB += performance.now() - t;
    rounds += batch;
  }
  return [(rounds * 1000) / timeA, (rounds * 1000) / timeB];
}
const [plainUndiciBest, restInvokeBest] = await interleaved(plainUndici, viaInvoke, BENCH_MS * 3);
await invokeFetcher.close();
await undiciAgent.close();
await new Promise<void>((resolve) => echoServer.close(() => resolve()));
const restInvokePerSecond = restInvokeBest;
const plainUndiciPerSecond = plainUndiciBest;
const REST_TARGET_RATIO = 0.9;
// ---------------------------------------------------------------------------------------------------------------

// ===============================================================================================================
// (c) Cached resolution per second (target, issue 3: ≥ 100,000/s). `resolve('agent://agents.example:<port>/planner')`
// through a resolver (`createResolver`) whose resolution cache holds it: every document it was built from (the
// agents.json map and the planner's descriptor, both `max-age=600`) is fresh, so nothing is fetched or read again.
// agents.example points at a loopback server through the lookup table and allowAddresses, as in (a), so the full
// policy runs on the resolution that does fetch. For contrast: the same resolution through plain `resolve()` on
// the same fetcher, whose documents all come from the HTTP cache but are read again every time.
// (Imported here so that this section stays in one piece.)
const { createResolver, resolve: resolveAfresh } = await import('@agentry/client');
const RESOLUTION_TARGET_PER_SECOND = 100_000;
const plannerDescriptor = (origin: string) =>
  JSON.stringify({
    '@context': 'https://example.org/agent-context.jsonld',
    name: 'planner',
    description: 'Plans trips: itineraries, places to see, the weather on the way.',
    version: '3.1.4',
    capabilities: [
      {
        name: 'gen-iti',
        description: 'Creates a travel itinerary.',
        input: { city: 'string', days: 'integer' },
      },
      { name: 'research-location', description: 'Researches a place.', input: { place: 'string' } },
      {
        name: 'forecast',
        description: 'The weather at a place on a day.',
        input: { place: 'string', day: 'string' },
      },
    ],
    'agentry:bindings': [{ kind: 'http', url: `${origin}/planner/invoke`, method: 'POST' }],
  });
let resolutionDescriptor = '';
const resolutionServer = createServer((request, response) => {
  const headers = { 'content-type': 'application/json', 'cache-control': 'max-age=600' };
  if (request.url === '/.well-known/agents.json') {
    response.writeHead(200, { ...headers, etag: '"map-1"' });
    response.end(
      JSON.stringify({ agents: { planner: '/planner/agent.json', translator: '/translator/agent.json' } }),
    );
  } else if (request.url === '/planner/agent.json') {
    response.writeHead(200, { ...headers, etag: '"planner-3.1.4"' });
    response.end(resolutionDescriptor);
  } else {
    response.writeHead(404, headers);
    response.end();
  }
});
await new Promise<void>((resolve) => resolutionServer.listen(0, '127.0.0.1', resolve));
const resolutionPort = (resolutionServer.address() as AddressInfo).port;
resolutionDescriptor = plannerDescriptor(`http://agents.example:${resolutionPort}`);
const resolutionFetcher = createSecureFetcher({
  allowHttp: true,
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  allowAddresses: [`127.0.0.1:${resolutionPort}`],
});
const resolver = createResolver({ fetcher: resolutionFetcher });
const agentTarget = `agent://agents.example:${resolutionPort}/planner`;
// The server speaks plain HTTP: the agent's documents are asked for over http (the fetcher allows it).
const agentResolveOptions = { scheme: 'http' as const };
const builtResolution = await resolver.resolve(agentTarget, agentResolveOptions);
const reusedResolution = await resolver.resolve(agentTarget, agentResolveOptions);
let cachedResolutionBest = 0;
for (let round = 0; round < 3; round++) {
  cachedResolutionBest = Math.max(
    cachedResolutionBest,
    await measure(() => resolver.resolve(agentTarget, agentResolveOptions)),
  );
}
const afreshResolutionPerSecond = await measure(() =>
  resolveAfresh(agentTarget, { ...agentResolveOptions, fetcher: resolutionFetcher }),
);
await resolutionFetcher.close();
await new Promise<void>((resolve) => resolutionServer.close(() => resolve()));
const cachedResolutionFigures = {
  perSecond: Math.round(cachedResolutionBest),
  microsecondsPerResolution: Number((1e6 / cachedResolutionBest).toFixed(2)),
  withoutResolutionCachePerSecond: Math.round(afreshResolutionPerSecond),
  agent: builtResolution.agent?.id ?? null,
  documents: builtResolution.documents.length,
  reusedEveryDocument: reusedResolution.documents.every((doc) => doc.fromResolutionCache === true),
  target: RESOLUTION_TARGET_PER_SECOND,
  meetsTarget: cachedResolutionBest >= RESOLUTION_TARGET_PER_SECOND,
};
// ===============================================================================================================

await fetcher.close();
await new Promise<void>((resolve) => server.close(() => resolve()));

const figures = {
  cachedFetch: {
    jsonPerSecond: Math.round(cachedJsonPerSecond),
    textPerSecond: Math.round(cachedTextPerSecond),
    microsecondsPerFetch: Number((1e6 / cachedJsonPerSecond).toFixed(2)),
    documentBytes: Buffer.byteLength(document),
    target: CACHED_TARGET_PER_SECOND,
    meetsTarget: cachedJsonPerSecond >= CACHED_TARGET_PER_SECOND,
  },
  restInvocation: {
    invokePerSecond: Math.round(restInvokePerSecond),
    plainUndiciPerSecond: Math.round(plainUndiciPerSecond),
    ratio: Number((restInvokePerSecond / plainUndiciPerSecond).toFixed(3)),
    target: REST_TARGET_RATIO,
    meetsTarget: restInvokePerSecond / plainUndiciPerSecond >= REST_TARGET_RATIO,
  },
  // (c)
  cachedResolution: cachedResolutionFigures,
};

if (json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const c = figures.cachedFetch;
  console.log('bench/client');
  console.log(
    `  (a) cached fetch of a fresh ${c.documentBytes}-byte document: ${c.jsonPerSecond.toLocaleString('en')}/s with .json(), ` +
      `${c.textPerSecond.toLocaleString('en')}/s with .text() (${c.microsecondsPerFetch} µs each; target ` +
      `≥ ${c.target.toLocaleString('en')}/s: ${c.meetsTarget ? 'met' : 'NOT met'})`,
  );
  const r = figures.restInvocation;
  console.log(
    `  (b) REST invocation (WoA envelope, validated) ${r.invokePerSecond.toLocaleString('en')}/s vs plain undici ` +
      `${r.plainUndiciPerSecond.toLocaleString('en')}/s: ${(r.ratio * 100).toFixed(1)} % (target ≥ ${r.target * 100} %: ${r.meetsTarget ? 'met' : 'NOT met'})`,
  );
  // (c)
  const cr = figures.cachedResolution;
  console.log(
    `  (c) cached resolution of agent://agents.example:<port>/planner (${cr.documents} documents, all fresh): ` +
      `${cr.perSecond.toLocaleString('en')}/s (${cr.microsecondsPerResolution} µs each; without the resolution ` +
      `cache ${cr.withoutResolutionCachePerSecond.toLocaleString('en')}/s; target ≥ ${cr.target.toLocaleString('en')}/s: ` +
      `${cr.meetsTarget ? 'met' : 'NOT met'})${cr.reusedEveryDocument ? '' : ' [the resolution was NOT reused]'}`,
  );
}
