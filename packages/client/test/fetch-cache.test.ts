/**
 * The HTTP cache through the fetcher, against a real server that counts requests: freshness (max-age, Expires, Age),
 * revalidation with validators (304 refreshes the entry from its own headers), no-store, no-cache,
 * stale-while-revalidate, Vary, invalidation by unsafe methods, and the byte budget with LRU eviction. Time moves
 * on a clock the test owns, so nothing waits and nothing is timed.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import { BufferedResponse } from '../src/fetch/buffered-response.js';
import { HttpCache } from '../src/fetch/cache.js';
import { parseCacheControl } from '../src/fetch/cache-control.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { FetchPolicy, SecureFetcher } from '../src/fetch/types.js';
import { type LoopbackServer, startLoopback } from './fetch-support.js';

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

type Route = (request: IncomingMessage, count: number) => Answer;

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);
const SECOND = 1000;

describe('HTTP cache', () => {
  let server: LoopbackServer;
  let now = Date.now();
  const routes = new Map<string, Route>();
  const fetchers: SecureFetcher[] = [];

  /** A fetcher with its own cache on the test clock. */
  const setup = (options: { maxBytes?: number } & FetchPolicy = {}) => {
    const { maxBytes, ...policy } = options;
    const cache = new HttpCache({ now: () => now, ...(maxBytes === undefined ? {} : { maxBytes }) });
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache, ...policy });
    fetchers.push(fetcher);
    return { cache, fetcher };
  };

  const hits = (path: string) => server.requests.filter((request) => request.url === path);
  const route = (path: string, answer: Route): string => {
    routes.set(path, answer);
    return `${server.origin}${path}`;
  };

  before(async () => {
    server = await startLoopback((request, response) => {
      const path = request.url ?? '/';
      // The request is already recorded, so the count of earlier ones is one less.
      const answer = routes.get(path)?.(request, hits(path).length - 1) ?? { status: 404 };
      // The server's clock is the test clock, so Date agrees with the cache.
      response.writeHead(answer.status ?? 200, { date: new Date(now).toUTCString(), ...answer.headers });
      response.end(answer.body ?? '');
    });
  });

  beforeEach(() => {
    now = Date.now();
  });

  after(async () => {
    await Promise.all(fetchers.map((each) => each.close()));
    await server.close();
  });

  it('serves a second GET within max-age from the cache, making no request', async () => {
    const { fetcher } = setup();
    const url = route('/fresh', () => ({
      headers: { 'cache-control': 'max-age=60', 'content-type': 'application/json' },
      body: '{"v":1}',
    }));
    const first = await fetcher.fetch(url);
    assert.equal(first.fromCache, false);
    assert.deepEqual(await first.response.json(), { v: 1 });
    now += 30 * SECOND;
    const second = await fetcher.fetch(url);
    assert.equal(second.fromCache, true);
    assert.equal(second.revalidated, false);
    assert.deepEqual(await second.response.json(), { v: 1 });
    assert.equal(second.response.headers.get('age'), '30');
    assert.equal(second.response.headers.get('content-type'), 'application/json');
    assert.equal(hits('/fresh').length, 1);
  });

  it('revalidates with If-None-Match after max-age, and a 304 refreshes the entry from its own headers', async () => {
    const { fetcher } = setup();
    const url = route('/etag', (request) =>
      request.headers['if-none-match'] === '"v1"'
        ? { status: 304, headers: { etag: '"v1"', 'cache-control': 'max-age=120' } }
        : { headers: { etag: '"v1"', 'cache-control': 'max-age=60' }, body: 'version one' },
    );
    await (await fetcher.fetch(url)).response.text();
    now += 61 * SECOND;
    const revalidated = await fetcher.fetch(url);
    assert.equal(revalidated.fromCache, false);
    assert.equal(revalidated.revalidated, true);
    assert.equal(revalidated.response.status, 200);
    assert.equal(await revalidated.response.text(), 'version one');
    const requests = hits('/etag');
    assert.equal(requests.length, 2);
    assert.equal(requests[1]!.headers['if-none-match'], '"v1"');
    // The 304 said max-age=120: 90 s later the entry is still fresh, which the original max-age=60 would not allow.
    now += 90 * SECOND;
    const afterwards = await fetcher.fetch(url);
    assert.equal(afterwards.fromCache, true);
    assert.equal(hits('/etag').length, 2);
  });

  it('revalidates with If-Modified-Since from Last-Modified', async () => {
    const { fetcher } = setup();
    const lastModified = new Date(now - 3600 * SECOND).toUTCString();
    const url = route(
      '/last-modified',
      (request): Answer =>
        request.headers['if-modified-since'] === lastModified
          ? { status: 304, headers: {} }
          : { headers: { 'last-modified': lastModified, 'cache-control': 'max-age=10' }, body: 'dated' },
    );
    await fetcher.fetch(url);
    now += 11 * SECOND;
    const result = await fetcher.fetch(url);
    assert.equal(result.revalidated, true);
    assert.equal(await result.response.text(), 'dated');
    assert.equal(hits('/last-modified')[1]!.headers['if-modified-since'], lastModified);
  });

  it('stores a new 200 in place of a stale entry', async () => {
    const { fetcher } = setup();
    const url = route('/changed', (_request, count) => ({
      headers: { etag: `"v${count}"`, 'cache-control': 'max-age=10' },
      body: `version ${count}`,
    }));
    await fetcher.fetch(url);
    now += 11 * SECOND;
    const changed = await fetcher.fetch(url);
    assert.equal(changed.revalidated, false);
    assert.equal(await changed.response.text(), 'version 1');
    assert.equal((await fetcher.fetch(url)).fromCache, true);
  });

  it('never stores a no-store response', async () => {
    const { fetcher, cache } = setup();
    const url = route('/no-store', () => ({
      headers: { 'cache-control': 'no-store, max-age=600', etag: '"x"' },
      body: 'secret',
    }));
    await fetcher.fetch(url);
    const second = await fetcher.fetch(url);
    assert.equal(second.fromCache, false);
    assert.equal(hits('/no-store').length, 2);
    assert.equal(hits('/no-store')[1]!.headers['if-none-match'], undefined);
    assert.equal(cache.size, 0);
  });

  it('stores a no-cache response but revalidates it on every use', async () => {
    const { fetcher, cache } = setup();
    const url = route(
      '/no-cache',
      (request): Answer =>
        request.headers['if-none-match'] === '"nc"'
          ? { status: 304, headers: { etag: '"nc"' } }
          : {
              headers: { 'cache-control': 'no-cache, max-age=600', etag: '"nc"' },
              body: 'checked each time',
            },
    );
    await fetcher.fetch(url);
    assert.equal(cache.size, 1);
    for (let i = 0; i < 2; i++) {
      const result = await fetcher.fetch(url);
      assert.equal(result.fromCache, false);
      assert.equal(result.revalidated, true);
      assert.equal(await result.response.text(), 'checked each time');
    }
    assert.equal(hits('/no-cache').length, 3);
  });

  it('serves a stale entry within stale-while-revalidate at once, and refreshes it in the background', async () => {
    const { fetcher, cache } = setup();
    const url = route('/swr', (_request, count) => ({
      headers: { 'cache-control': 'max-age=10, stale-while-revalidate=60' },
      body: `generation ${count}`,
    }));
    await fetcher.fetch(url);
    now += 30 * SECOND;
    const stale = await fetcher.fetch(url);
    assert.equal(stale.fromCache, true);
    assert.equal(await stale.response.text(), 'generation 0');
    await cache.idle();
    assert.equal(hits('/swr').length, 2, 'one background request');
    const refreshed = await fetcher.fetch(url);
    assert.equal(refreshed.fromCache, true);
    assert.equal(await refreshed.response.text(), 'generation 1');
    assert.equal(hits('/swr').length, 2);
  });

  it('starts one background revalidation however many stale hits arrive', async () => {
    const { fetcher, cache } = setup();
    const url = route('/swr-once', () => ({
      headers: { 'cache-control': 'max-age=1, stale-while-revalidate=600' },
      body: 'x',
    }));
    await fetcher.fetch(url);
    now += 5 * SECOND;
    await Promise.all([fetcher.fetch(url), fetcher.fetch(url), fetcher.fetch(url)]);
    await cache.idle();
    assert.equal(hits('/swr-once').length, 2);
  });

  it('revalidates before answering once past the stale-while-revalidate window, or with must-revalidate', async () => {
    const { fetcher } = setup();
    const past = route('/swr-past', (_request, count) => ({
      headers: { 'cache-control': 'max-age=10, stale-while-revalidate=20' },
      body: `generation ${count}`,
    }));
    await fetcher.fetch(past);
    now += 31 * SECOND;
    const result = await fetcher.fetch(past);
    assert.equal(result.fromCache, false);
    assert.equal(await result.response.text(), 'generation 1');

    const strict = route('/swr-must', (_request, count) => ({
      headers: { 'cache-control': 'max-age=10, stale-while-revalidate=600, must-revalidate' },
      body: `generation ${count}`,
    }));
    await fetcher.fetch(strict);
    now += 20 * SECOND;
    assert.equal((await fetcher.fetch(strict)).fromCache, false);
  });

  it('uses Expires when there is no max-age, and treats an invalid one as expired', async () => {
    const { fetcher, cache } = setup();
    const expires = route('/expires', () => ({
      headers: { expires: new Date(now + 60 * SECOND).toUTCString() },
      body: 'e',
    }));
    await fetcher.fetch(expires);
    now += 30 * SECOND;
    assert.equal((await fetcher.fetch(expires)).fromCache, true);
    now += 31 * SECOND;
    assert.equal((await fetcher.fetch(expires)).fromCache, false);

    const invalid = route('/expires-invalid', () => ({ headers: { expires: '0' }, body: 'e' }));
    const sizeBefore = cache.size;
    await fetcher.fetch(invalid);
    assert.equal(cache.size, sizeBefore, 'stale at once and without a validator: nothing to store');
  });

  it('prefers max-age to Expires and ignores s-maxage (a private cache)', async () => {
    const { fetcher } = setup();
    const url = route('/max-age-wins', () => ({
      headers: {
        'cache-control': 'max-age=10, s-maxage=600',
        expires: new Date(now + 600 * SECOND).toUTCString(),
      },
      body: 'm',
    }));
    await fetcher.fetch(url);
    now += 20 * SECOND;
    assert.equal((await fetcher.fetch(url)).fromCache, false);
  });

  it('counts the Age the response arrived with', async () => {
    const { fetcher } = setup();
    const url = route('/aged', () => ({
      headers: { 'cache-control': 'max-age=60', age: '50' },
      body: 'old',
    }));
    await fetcher.fetch(url);
    now += 5 * SECOND;
    const hit = await fetcher.fetch(url);
    assert.equal(hit.fromCache, true);
    assert.equal(hit.response.headers.get('age'), '55');
    now += 6 * SECOND;
    assert.equal((await fetcher.fetch(url)).fromCache, false);
  });

  it('has no heuristic freshness: a response with only a validator is revalidated every time', async () => {
    const { fetcher, cache } = setup();
    const url = route('/validator-only', (request) =>
      request.headers['if-none-match'] === '"only"'
        ? { status: 304 }
        : { headers: { etag: '"only"' }, body: 'v' },
    );
    await fetcher.fetch(url);
    assert.equal(cache.size, 1);
    assert.equal((await fetcher.fetch(url)).revalidated, true);

    const bare = route('/bare', () => ({ headers: { 'last-modified-not': 'x' }, body: 'nothing to go on' }));
    const sizeBefore = cache.size;
    await fetcher.fetch(bare);
    assert.equal(cache.size, sizeBefore);
  });

  it('keys on the request fields Vary names, and never stores Vary: *', async () => {
    const { fetcher, cache } = setup();
    const url = route('/vary', (request) => ({
      headers: { 'cache-control': 'max-age=600', vary: 'Accept-Language' },
      body: `lang ${request.headers['accept-language'] ?? 'none'}`,
    }));
    const english = { headers: { 'Accept-Language': 'en' } };
    const french = { headers: { 'Accept-Language': 'fr' } };
    assert.equal(await (await fetcher.fetch(url, english)).response.text(), 'lang en');
    assert.equal(await (await fetcher.fetch(url, french)).response.text(), 'lang fr');
    const again = await fetcher.fetch(url, english);
    assert.equal(again.fromCache, true);
    assert.equal(await again.response.text(), 'lang en');
    assert.equal((await fetcher.fetch(url, french)).fromCache, true);
    assert.equal(hits('/vary').length, 2);

    const star = route('/vary-star', () => ({
      headers: { 'cache-control': 'max-age=600', vary: '*' },
      body: 's',
    }));
    const sizeBefore = cache.size;
    await fetcher.fetch(star);
    assert.equal(cache.size, sizeBefore);
  });

  it('forgets a resource after an unsafe method succeeds on it', async () => {
    const { fetcher } = setup();
    const url = route('/resource', () => ({ headers: { 'cache-control': 'max-age=600' }, body: 'r' }));
    await fetcher.fetch(url);
    assert.equal((await fetcher.fetch(url)).fromCache, true);
    await fetcher.fetch(url, { method: 'POST', body: '{}' });
    assert.equal((await fetcher.fetch(url)).fromCache, false);
  });

  it('bypasses the cache for cacheMode no-store, streams, and when the policy turns it off', async () => {
    const { fetcher } = setup();
    const url = route('/bypass', () => ({ headers: { 'cache-control': 'max-age=600' }, body: 'b' }));
    await fetcher.fetch(url);
    assert.equal((await fetcher.fetch(url, { cacheMode: 'no-store' })).fromCache, false);
    const streamed = await fetcher.fetch(url, { responseType: 'stream' });
    assert.equal(streamed.fromCache, false);
    assert.equal(await streamed.response.text(), 'b');
    assert.equal((await fetcher.fetch(url)).fromCache, true);

    const uncached = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    fetchers.push(uncached);
    await uncached.fetch(url);
    assert.equal((await uncached.fetch(url)).fromCache, false);
  });

  it('revalidates when the request says Cache-Control: no-cache', async () => {
    const { fetcher } = setup();
    const url = route('/request-no-cache', (request) =>
      request.headers['if-none-match'] === '"r"'
        ? { status: 304 }
        : { headers: { 'cache-control': 'max-age=600', etag: '"r"' }, body: 'r' },
    );
    await fetcher.fetch(url);
    const forced = await fetcher.fetch(url, { headers: { 'Cache-Control': 'no-cache' } });
    assert.equal(forced.revalidated, true);
  });

  it('has a default in-memory cache', async () => {
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true });
    fetchers.push(fetcher);
    const url = route('/default-cache', () => ({ headers: { 'cache-control': 'max-age=600' }, body: 'd' }));
    await fetcher.fetch(url);
    assert.equal((await fetcher.fetch(url)).fromCache, true);
  });

  it('stays within its byte budget, evicting the least recently used entry', async () => {
    const body = 'x'.repeat(1000);
    const { fetcher, cache } = setup({ maxBytes: 3 * 1700 });
    const url = (name: string) =>
      route(`/lru-${name}`, () => ({ headers: { 'cache-control': 'max-age=600' }, body }));
    await fetcher.fetch(url('a'));
    await fetcher.fetch(url('b'));
    await fetcher.fetch(url('c'));
    assert.equal(cache.size, 3);
    assert.equal((await fetcher.fetch(url('a'))).fromCache, true, 'a is now the most recently used');
    await fetcher.fetch(url('d'));
    assert.equal(cache.size, 3);
    assert.ok(cache.bytes <= cache.maxBytes);
    assert.equal((await fetcher.fetch(url('a'))).fromCache, true);
    assert.equal((await fetcher.fetch(url('c'))).fromCache, true);
    assert.equal((await fetcher.fetch(url('d'))).fromCache, true);
    assert.equal((await fetcher.fetch(url('b'))).fromCache, false, 'b was evicted');
  });

  it('does not store a response larger than the whole budget', async () => {
    const { fetcher, cache } = setup({ maxBytes: 2000 });
    const url = route('/too-big', () => ({
      headers: { 'cache-control': 'max-age=600' },
      body: 'y'.repeat(5000),
    }));
    await fetcher.fetch(url);
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
  });

  it('hands out a Response each time that reads like any other', async () => {
    const { fetcher } = setup();
    const url = route('/response', () => ({
      headers: { 'cache-control': 'max-age=600', 'content-type': 'application/json' },
      body: '{"a":[1,2]}',
    }));
    await fetcher.fetch(url);
    const hit = await fetcher.fetch(url);
    assert.ok(hit.response instanceof Response);
    const copy = hit.response.clone();
    assert.deepEqual(await hit.response.json(), { a: [1, 2] });
    assert.equal(hit.response.bodyUsed, true);
    await assert.rejects(hit.response.text(), TypeError);
    assert.equal(new TextDecoder().decode(await copy.arrayBuffer()), '{"a":[1,2]}');
    const streamed = await fetcher.fetch(url);
    const chunks: Uint8Array[] = [];
    for await (const chunk of streamed.response.body!) chunks.push(chunk);
    assert.equal(Buffer.concat(chunks).toString(), '{"a":[1,2]}');
    const blob = await (await fetcher.fetch(url)).response.blob();
    assert.equal(blob.type, 'application/json');
  });

  it('keys on the URL without its fragment', async () => {
    const { fetcher } = setup();
    const url = route('/fragment', () => ({ headers: { 'cache-control': 'max-age=600' }, body: 'f' }));
    await fetcher.fetch(`${url}#one`);
    const other = await fetcher.fetch(`${url}#two`);
    assert.equal(other.fromCache, true);
    assert.equal(other.url, `${url}#two`);
  });

  it('clears', async () => {
    const { fetcher, cache } = setup();
    const url = route('/clear', () => ({ headers: { 'cache-control': 'max-age=600' }, body: 'c' }));
    await fetcher.fetch(url);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal((await fetcher.fetch(url)).fromCache, false);
  });
});

describe('BufferedResponse', () => {
  it('reads its bytes as text, JSON, bytes and through its stream, once', async () => {
    const bytes = new TextEncoder().encode('\uFEFF{"k":"v"}');
    const init = {
      status: 201,
      statusText: 'Created',
      headers: [['content-type', 'application/json']] as [string, string][],
    };
    const response = new BufferedResponse(bytes, init, 'https://a.test/x', true);
    assert.equal(response.status, 201);
    assert.equal(response.statusText, 'Created');
    assert.equal(response.url, 'https://a.test/x');
    assert.equal(response.redirected, true);
    assert.equal(response.bodyUsed, false);
    assert.deepEqual(
      await response.clone().json(),
      { k: 'v' },
      'a byte-order mark is skipped, as fetch does',
    );
    const view = new Uint8Array(await response.clone().arrayBuffer());
    view[0] = 0;
    assert.equal(bytes[0], 0xef, 'the stored bytes are never handed out to be written to');
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.equal(first.value?.byteLength, bytes.byteLength);
    assert.equal(response.bodyUsed, true);
    await assert.rejects(response.text(), TypeError);
  });

  it('has a null body when there are no bytes', async () => {
    const response = new BufferedResponse(null, { status: 204 });
    assert.equal(response.body, null);
    assert.equal(await response.text(), '');
  });
});

describe('parseCacheControl', () => {
  const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
  const value = fc.oneof(
    fc.constant(true as const),
    fc.stringMatching(/^[0-9]{1,6}$/),
    fc.stringMatching(/^[a-z ,=";]{0,8}$/),
  );

  it('reads back any list of directives, however it is spaced, cased and quoted', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(token, value), { selector: ([name]) => name, maxLength: 6 }),
        fc.boolean(),
        (directives, upper) => {
          const text = directives
            .map(([name, v]) => {
              const spelled = upper ? name.toUpperCase() : name;
              if (v === true) return spelled;
              const quoted =
                /^[0-9]+$/.test(v) && !v.includes('"') ? v : `"${v.replace(/(["\\])/g, '\\$1')}"`;
              return `${spelled} = ${quoted}`.replace(' = ', '=');
            })
            .join(' ,  ');
          const parsed = parseCacheControl(text);
          assert.deepEqual([...parsed.entries()], directives);
        },
      ),
      { numRuns: runs },
    );
  });

  it('keeps the first of repeated directives and lower-cases names', () => {
    assert.deepEqual(
      [...parseCacheControl('Max-Age=5, max-age=10, NO-CACHE')],
      [
        ['max-age', '5'],
        ['no-cache', true],
      ],
    );
    assert.deepEqual(
      [...parseCacheControl('private="a, b", max-age="60"')],
      [
        ['private', 'a, b'],
        ['max-age', '60'],
      ],
    );
    assert.equal(parseCacheControl('').size, 0);
    assert.equal(parseCacheControl(undefined).size, 0);
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        parseCacheControl(text);
      }),
      { numRuns: runs },
    );
  });
});
