/**
 * The resolution cache (createResolver): a resolution is reused while every document it was built from is fresh by
 * its caching headers, and rebuilt (the fetcher's HTTP cache revalidating) once one is not. Against a real loopback
 * server that counts requests and answers conditional ones with 304; the HTTP cache and the resolver share a clock
 * the tests move forward.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { HttpCache } from '../src/fetch/cache.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { SecureFetcher } from '../src/fetch/types.js';
import { invoke } from '../src/invoke/index.js';
import { createResolver, type Resolution, type Resolver, resolve } from '../src/resolve/index.js';

interface Doc {
  status?: number;
  json?: unknown;
  headers?: Record<string, string>;
}

interface Seen {
  method: string;
  path: string;
  ifNoneMatch?: string;
}

interface Site {
  origin: string;
  host: string;
  docs: Map<string, Doc>;
  /** Headers of the 404 answered for paths not in `docs`. */
  notFoundHeaders: Record<string, string>;
  seen: Seen[];
  server: Server;
  close(): Promise<void>;
}

/** The shared clock, at a whole second so `Date` headers (whole seconds) give ages of exactly 0. */
const clock = { now: Math.floor(Date.now() / 1000) * 1000 };

/**
 * Serves `docs` by path, each with its headers and a `Date` on the shared clock; answers `If-None-Match` matching a
 * document's `etag` with 304 (and the document's caching headers); anything else is a 404. POSTs echo their body.
 */
async function startSite(): Promise<Site> {
  const docs = new Map<string, Doc>();
  const seen: Seen[] = [];
  const site = { docs, seen, notFoundHeaders: {} } as unknown as Site;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const headers: IncomingHttpHeaders = request.headers;
    const ifNoneMatch = headers['if-none-match'];
    seen.push({
      method: request.method ?? 'GET',
      path,
      ...(ifNoneMatch === undefined ? {} : { ifNoneMatch }),
    });
    const date = new Date(clock.now).toUTCString();
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json', date });
        response.end(JSON.stringify({ echo: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
      });
      return;
    }
    const doc = docs.get(path);
    if (doc === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain', date, ...site.notFoundHeaders });
      response.end('not here');
      return;
    }
    const etag = doc.headers?.['etag'];
    if (etag !== undefined && ifNoneMatch === etag) {
      response.writeHead(304, { date, ...doc.headers });
      response.end();
      return;
    }
    response.writeHead(doc.status ?? 200, { 'content-type': 'application/json', date, ...doc.headers });
    response.end(JSON.stringify(doc.json));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  Object.assign(site, {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  });
  return site;
}

function descriptor(origin: string, name: string, version: string, extra: Record<string, unknown> = {}) {
  return {
    '@context': 'https://example.org/agent-context.jsonld',
    name,
    description: `The ${name}.`,
    version,
    capabilities: [
      { name: 'gen-iti', description: 'Creates a travel itinerary.', input: { city: 'string' } },
      { name: 'research-location', description: 'Researches a place.', input: { place: 'string' } },
    ],
    'agentry:bindings': [{ kind: 'http', url: `${origin}/${name}/${version}/invoke`, method: 'POST' }],
    ...extra,
  };
}

/** The usual documents: an agents.json map (fresh 60 s) and descriptors (fresh 300 s), each with an ETag. */
function publish(site: Site): void {
  site.docs.clear();
  site.notFoundHeaders = {};
  site.docs.set('/.well-known/agents.json', {
    json: { agents: { planner: '/planner/agent.json', translator: '/translator/agent.json' } },
    headers: { 'cache-control': 'max-age=60', etag: '"map-1"' },
  });
  site.docs.set('/planner/agent.json', {
    json: descriptor(site.origin, 'planner', '3.1.4', { supportedVersions: { '2.0.0': '/planner/v2/' } }),
    headers: { 'cache-control': 'max-age=300', etag: '"planner-3"' },
  });
  site.docs.set('/planner/v2/agent.json', {
    json: descriptor(site.origin, 'planner', '2.0.0'),
    headers: { 'cache-control': 'max-age=300', etag: '"planner-2"' },
  });
  site.docs.set('/translator/agent.json', {
    json: descriptor(site.origin, 'translator', '1.0.0'),
    headers: { 'cache-control': 'max-age=300', etag: '"translator-1"' },
  });
}

/** A fetcher for the loopback site whose HTTP cache runs on the shared clock. */
function cachingFetcher(): SecureFetcher {
  return createSecureFetcher({
    allowHttp: true,
    allowPrivateNetwork: true,
    cache: new HttpCache({ now: () => clock.now }),
  });
}

const HTTP = { scheme: 'http' } as const;

function network(site: Site): string[] {
  return site.seen.map(({ method, path, ifNoneMatch }) =>
    [method, path, ifNoneMatch === undefined ? '' : `if-none-match ${ifNoneMatch}`].join(' ').trim(),
  );
}

function flags(resolution: Resolution) {
  return resolution.documents.map(({ url, status, fromCache, revalidated, fromResolutionCache }) => ({
    path: new URL(url).pathname,
    status,
    fromCache,
    revalidated,
    fromResolutionCache: fromResolutionCache === true,
  }));
}

let site: Site;
let fetcher: SecureFetcher;
let resolver: Resolver;
before(async () => {
  site = await startSite();
});
after(() => site.close());
beforeEach(() => {
  publish(site);
  site.seen.length = 0;
  fetcher = cachingFetcher();
  resolver = createResolver({ fetcher });
});
afterEach(() => fetcher.close());

describe('a resolution reused while its documents are fresh', () => {
  test('a second resolve within max-age makes no request and returns equal agents', async () => {
    const target = `agent://${site.host}/planner/gen-iti`;
    const first = await resolver.resolve(target, HTTP);
    assert.equal(first.agent?.id, 'planner');
    assert.equal(first.operation, 'gen-iti');
    assert.deepEqual(network(site), ['GET /.well-known/agents.json', 'GET /planner/agent.json']);
    assert.deepEqual(flags(first), [
      {
        path: '/.well-known/agents.json',
        status: 200,
        fromCache: false,
        revalidated: false,
        fromResolutionCache: false,
      },
      {
        path: '/planner/agent.json',
        status: 200,
        fromCache: false,
        revalidated: false,
        fromResolutionCache: false,
      },
    ]);

    clock.now += 59_000;
    const second = await resolver.resolve(target, HTTP);
    assert.equal(site.seen.length, 2, 'no request for the second resolution');
    assert.deepEqual(second.agents, first.agents);
    assert.deepEqual(second.agent, first.agent);
    assert.deepEqual(second.binding, first.binding);
    assert.deepEqual(second.issues, first.issues);
    assert.equal(second.operation, 'gen-iti');
    // The documents say truthfully that nothing was asked for this time.
    assert.deepEqual(
      flags(second).map(({ fromCache, revalidated, fromResolutionCache }) => ({
        fromCache,
        revalidated,
        fromResolutionCache,
      })),
      [
        { fromCache: true, revalidated: false, fromResolutionCache: true },
        { fromCache: true, revalidated: false, fromResolutionCache: true },
      ],
    );
    assert.equal(resolver.size, 1);
  });

  test('is what resolve() builds from the same documents', async () => {
    const target = `agent://${site.host}/planner`;
    const other = cachingFetcher();
    const plain = await resolve(target, { ...HTTP, fetcher: other }).finally(() => other.close());
    await resolver.resolve(target, HTTP);
    const reused = await resolver.resolve(target, HTTP);
    const { documents: _a, ...plainRest } = plain;
    const { documents: _b, ...reusedRest } = reused;
    const withoutFetchedAt = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (key, v) => (key === 'fetchedAt' ? undefined : v)));
    assert.deepEqual(withoutFetchedAt(reusedRest), withoutFetchedAt(plainRest));
    assert.deepEqual(
      reused.documents.map(({ url, step, format, status }) => ({ url, step, format, status })),
      plain.documents.map(({ url, step, format, status }) => ({ url, step, format, status })),
    );
  });

  test('after the earliest expiry it revalidates (304) and rebuilds the resolution', async () => {
    const target = `agent://${site.host}/planner`;
    await resolver.resolve(target, HTTP);
    site.seen.length = 0;

    // agents.json (max-age 60) is stale now; the descriptor (max-age 300) is not.
    clock.now += 60_000;
    const rebuilt = await resolver.resolve(target, HTTP);
    assert.deepEqual(network(site), ['GET /.well-known/agents.json if-none-match "map-1"']);
    assert.deepEqual(flags(rebuilt), [
      {
        path: '/.well-known/agents.json',
        status: 200,
        fromCache: false,
        revalidated: true,
        fromResolutionCache: false,
      },
      {
        path: '/planner/agent.json',
        status: 200,
        fromCache: true,
        revalidated: false,
        fromResolutionCache: false,
      },
    ]);
    assert.equal(rebuilt.agent?.id, 'planner');

    // Rebuilt from fresh documents, it is reused again: until the revalidated map's expiry (60 s from now), which
    // comes before the descriptor's (300 s after it was first fetched).
    clock.now += 30_000;
    const again = await resolver.resolve(target, HTTP);
    assert.equal(site.seen.length, 1);
    assert.ok(again.documents.every((document) => document.fromResolutionCache === true));
  });

  test('a changed document is read anew once the resolution expired', async () => {
    const target = `agent://${site.host}/translator`;
    const first = await resolver.resolve(target, HTTP);
    assert.equal(first.agent?.version, '1.0.0');
    site.docs.set('/translator/agent.json', {
      json: descriptor(site.origin, 'translator', '1.1.0'),
      headers: { 'cache-control': 'max-age=300', etag: '"translator-1.1"' },
    });
    clock.now += 299_000;
    assert.equal((await resolver.resolve(target, HTTP)).agent?.version, '1.0.0', 'still fresh');
    clock.now += 1_000;
    const updated = await resolver.resolve(target, HTTP);
    assert.equal(updated.agent?.version, '1.1.0');
  });

  test('the resolver and its HTTP cache agree on time: the HttpCache clock is the default', async () => {
    // No `now` was given to the resolver; had it used Date.now, the moves of the shared clock above and below
    // would not expire anything.
    const target = `agent://${site.host}/planner`;
    await resolver.resolve(target, HTTP);
    clock.now += 301_000;
    const rebuilt = await resolver.resolve(target, HTTP);
    assert.ok(rebuilt.documents.every((document) => document.revalidated));
  });
});

describe('documents that make a resolution not reusable', () => {
  const target = () => `agent://${site.host}/planner`;

  async function twice(): Promise<[Resolution, Resolution]> {
    const first = await resolver.resolve(target(), HTTP);
    clock.now += 1_000;
    const second = await resolver.resolve(target(), HTTP);
    return [first, second];
  }

  test('no-store: never reused, asked for every time (whatever max-age says)', async () => {
    site.docs.get('/planner/agent.json')!.headers = { 'cache-control': 'max-age=600, no-store' };
    const [, second] = await twice();
    await resolver.resolve(target(), HTTP);
    assert.deepEqual(network(site), [
      'GET /.well-known/agents.json',
      'GET /planner/agent.json',
      'GET /planner/agent.json',
      'GET /planner/agent.json',
    ]);
    assert.ok(second.documents.every((document) => document.fromResolutionCache !== true));
    assert.equal(resolver.size, 0);
  });

  test('no-cache: revalidated through the HTTP cache every time (whatever max-age says)', async () => {
    site.docs.get('/planner/agent.json')!.headers = { 'cache-control': 'max-age=600, no-cache', etag: '"p"' };
    const [, second] = await twice();
    assert.deepEqual(network(site), [
      'GET /.well-known/agents.json',
      'GET /planner/agent.json',
      'GET /planner/agent.json if-none-match "p"',
    ]);
    assert.equal(second.documents[1]?.revalidated, true);
    assert.equal(second.documents[1]?.fromResolutionCache, undefined);
  });

  test('no freshness information (a validator only): not reused', async () => {
    site.docs.get('/planner/agent.json')!.headers = { etag: '"p"' };
    await twice();
    assert.equal(site.seen.at(-1)?.path, '/planner/agent.json');
    assert.equal(resolver.size, 0);
  });

  test('a 404 on the way counts too: reused only when the 404 says how long it holds', async () => {
    site.docs.delete('/.well-known/agents.json');
    await twice();
    // The 404 for agents.json has no freshness: the second resolution asks again.
    assert.deepEqual(
      network(site).filter((line) => line.includes('agents.json')),
      ['GET /.well-known/agents.json', 'GET /.well-known/agents.json'],
    );
    resolver.clear();
    site.notFoundHeaders = { 'cache-control': 'max-age=60' };
    site.seen.length = 0;
    const [first, second] = await twice();
    // The descriptor is still fresh in the HTTP cache; the 404 is asked for once, then reused with it.
    assert.deepEqual(network(site), ['GET /.well-known/agents.json']);
    assert.equal(first.documents[0]?.status, 404);
    assert.equal(second.documents[0]?.status, 404);
    assert.equal(second.documents[0]?.fromResolutionCache, true);
    assert.equal(second.agent?.id, 'planner');
  });

  test('a document reached through a redirect: not reused (the redirect’s freshness is unknown)', async () => {
    // The map's entry points to an old path that redirects permanently to the descriptor.
    site.docs.get('/.well-known/agents.json')!.json = { agents: { planner: '/old/planner.json' } };
    site.docs.set('/old/planner.json', {
      status: 301,
      headers: { location: '/planner/agent.json', 'cache-control': 'max-age=600' },
    });
    const [first, second] = await twice();
    assert.equal(first.agent?.id, 'planner');
    assert.equal(first.documents[1]?.finalUrl, `${site.origin}/planner/agent.json`);
    assert.equal(second.documents[1]?.fromResolutionCache, undefined);
    assert.equal(resolver.size, 0);
  });
});

describe('keys', () => {
  test('different versions do not share entries; the same version does', async () => {
    const target = `agent://${site.host}/planner`;
    const current = await resolver.resolve(target, HTTP);
    const v2 = await resolver.resolve(target, { ...HTTP, version: '2.0.0' });
    assert.equal(current.agent?.version, '3.1.4');
    assert.equal(v2.agent?.version, '2.0.0');
    assert.equal(v2.version, '2.0.0');
    assert.equal(v2.documents.at(-1)?.fromResolutionCache, undefined);
    const queried = await resolver.resolve(`${target}?version=2.0.0`, HTTP);
    assert.equal(queried.agent?.version, '2.0.0');
    assert.equal(queried.documents[0]?.fromResolutionCache, undefined, 'another target, another entry');
    const v2again = await resolver.resolve(target, { ...HTTP, version: '2.0.0' });
    assert.equal(v2again.agent?.version, '2.0.0');
    assert.equal(v2again.documents[0]?.fromResolutionCache, true);
    const currentAgain = await resolver.resolve(target, { ...HTTP, version: '' });
    assert.equal(currentAgain.agent?.version, '3.1.4', 'an empty version is no version');
    assert.equal(currentAgain.documents[0]?.fromResolutionCache, true);
    assert.equal(resolver.size, 3);
  });

  test('scheme, webfinger, fallback and the static map each make their own entries', async () => {
    const target = `agent://${site.host}/planner`;
    const map = { [`agent://${site.host}/planner`]: `${site.origin}/translator/agent.json` };
    const variants = [
      HTTP,
      { ...HTTP, webfinger: true },
      { ...HTTP, fallback: false },
      { ...HTTP, staticMap: map },
      { ...HTTP, staticMap: { ...map } },
    ];
    for (const options of variants) {
      const resolution = await resolver.resolve(target, options);
      assert.notEqual(resolution.documents[0]?.fromResolutionCache, true, JSON.stringify(options));
    }
    assert.equal(resolver.size, variants.length);
    // The static map changes the result: its entry wins over the site's documents.
    const mapped = await resolver.resolve(target, { ...HTTP, staticMap: map });
    assert.equal(mapped.source, 'static-map');
    assert.equal(mapped.documents[0]?.fromResolutionCache, true, 'the same map object shares its entry');
    // https: the loopback server speaks plain HTTP, so this one fails to fetch and is not kept.
    const overHttps = await resolver.resolve(target, { scheme: 'https', fallback: false });
    assert.equal(overHttps.agent, undefined);
    assert.equal(resolver.size, variants.length);
  });

  test('explicit transport targets read no documents and are kept as they are', async () => {
    const first = await resolver.resolve('agent+https://agents.example.com/planner');
    const second = await resolver.resolve('agent+https://agents.example.com/planner');
    assert.equal(first.binding?.kind, 'http');
    assert.deepEqual(second, first);
    assert.equal(resolver.size, 1);
  });
});

describe('results cannot corrupt the cache', () => {
  test('every result is deep-frozen: writing throws and the next result is unchanged', async () => {
    const target = `agent://${site.host}/planner/gen-iti`;
    const first = await resolver.resolve(target, HTTP);
    const second = await resolver.resolve(target, HTTP);
    for (const result of [first, second]) {
      assert.ok(Object.isFrozen(result));
      assert.ok(Object.isFrozen(result.agents));
      assert.ok(Object.isFrozen(result.documents[0]));
      assert.equal(typeof result.agent?.operations[0]?.input, 'object');
      assert.ok(Object.isFrozen(result.agent?.operations[0]?.input));
      assert.throws(() => {
        result.agent!.name = 'mallory';
      }, TypeError);
      assert.throws(() => {
        result.agents.push(result.agents[0]!);
      }, TypeError);
      assert.throws(() => {
        result.agent!.operations.length = 0;
      }, TypeError);
      assert.throws(() => {
        (result.binding as { url: string }).url = 'http://evil.example/';
      }, TypeError);
      assert.throws(() => {
        result.documents[0]!.fromCache = false;
      }, TypeError);
    }
    const third = await resolver.resolve(target, HTTP);
    assert.equal(third.agent?.name, 'planner');
    assert.equal(third.agents.length, first.agents.length);
    assert.equal(third.agent?.operations.length, 2);
    assert.equal((third.binding as { url: string }).url, `${site.origin}/planner/3.1.4/invoke`);
    assert.equal(third, second, 'reuses hand out one shared frozen object');
  });

  test('a frozen resolution invokes as any other', async () => {
    const target = `agent://${site.host}/planner/gen-iti`;
    await resolver.resolve(target, HTTP);
    const reused = await resolver.resolve(target, HTTP);
    const result = await invoke(reused, { city: 'Paris' }, { fetcher });
    assert.equal(result.operation, 'gen-iti');
    assert.deepEqual(result.output, { echo: { city: 'Paris' } });
  });
});

describe('bounds and clearing', () => {
  test('least recently used entries are evicted beyond maxEntries', async () => {
    const small = createResolver({ fetcher, cache: { maxEntries: 2 } });
    const planner = `agent://${site.host}/planner`;
    const translator = `agent://${site.host}/translator`;
    const document = `${site.origin}/planner/v2/agent.json`;
    const reusedFrom = async (target: string) =>
      (await small.resolve(target, HTTP)).documents[0]?.fromResolutionCache === true;
    assert.equal(await reusedFrom(planner), false);
    assert.equal(await reusedFrom(translator), false);
    assert.equal(await reusedFrom(planner), true, 'planner is now the most recently used');
    assert.equal(await reusedFrom(document), false);
    assert.equal(small.size, 2);
    assert.equal(await reusedFrom(translator), false, 'translator was evicted');
    assert.equal(await reusedFrom(document), true);
    assert.equal(await reusedFrom(planner), false, 'planner was evicted by translator');
    assert.equal(small.size, 2);
    assert.equal(small.maxEntries, 2);
  });

  test('clear() forgets every resolution; cache: false keeps none', async () => {
    const target = `agent://${site.host}/planner`;
    await resolver.resolve(target, HTTP);
    assert.equal(resolver.size, 1);
    resolver.clear();
    assert.equal(resolver.size, 0);
    assert.equal((await resolver.resolve(target, HTTP)).documents[0]?.fromResolutionCache, undefined);

    const none = createResolver({ fetcher, cache: false });
    await none.resolve(target, HTTP);
    const again = await none.resolve(target, HTTP);
    assert.equal(none.size, 0);
    assert.equal(again.documents[0]?.fromResolutionCache, undefined);
    assert.equal(again.documents[0]?.fromCache, true, 'the HTTP cache still answers');
    assert.throws(() => createResolver({ fetcher, cache: { maxEntries: -1 } }), RangeError);
  });

  test('an explicit clock is honoured, with a fetcher that has no HTTP cache', async () => {
    let now = 0;
    const plain = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    try {
      const timed = createResolver({ fetcher: plain, now: () => now });
      // The server's Date is on the shared clock; this resolver's clock starts there too.
      now = clock.now;
      const target = `agent://${site.host}/planner`;
      await timed.resolve(target, HTTP);
      now += 59_999;
      assert.equal((await timed.resolve(target, HTTP)).documents[0]?.fromResolutionCache, true);
      now += 1;
      const rebuilt = await timed.resolve(target, HTTP);
      assert.equal(rebuilt.documents[0]?.fromResolutionCache, undefined);
      assert.deepEqual(network(site), [
        'GET /.well-known/agents.json',
        'GET /planner/agent.json',
        'GET /.well-known/agents.json',
        'GET /planner/agent.json',
      ]);
    } finally {
      await plain.close();
    }
  });

  test('a reused resolution still honours an aborted signal', async () => {
    const target = `agent://${site.host}/planner`;
    await resolver.resolve(target, HTTP);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await assert.rejects(resolver.resolve(target, { ...HTTP, signal: controller.signal }), /stop/);
  });

  test('plain resolve() keeps no resolution cache', async () => {
    const target = `agent://${site.host}/planner`;
    await resolve(target, { ...HTTP, fetcher });
    const second = await resolve(target, { ...HTTP, fetcher });
    assert.ok(second.documents.every((document) => document.fromCache && !document.fromResolutionCache));
    assert.ok(!Object.isFrozen(second));
  });
});
