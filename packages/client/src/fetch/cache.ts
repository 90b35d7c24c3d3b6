/**
 * An in-memory private HTTP cache for GET (a subset of RFC 9111): what may be stored (`no-store` never, `Vary: *`
 * never, otherwise a response with explicit freshness or a validator), how long it is fresh (`max-age`, else
 * `Expires`; no heuristics), when it must be revalidated (`no-cache`, stale) or may be served stale while revalidating
 * in the background (`stale-while-revalidate`), the conditional headers that revalidate it (`If-None-Match` from
 * `ETag`, `If-Modified-Since` from `Last-Modified`), and what a 304 updates. Entries are keyed by URL and by the
 * request headers the response's `Vary` lists, and evicted least recently used first to stay within a byte budget.
 *
 * The cache decides; the secure fetcher does the requests (so every request, background ones included, goes
 * through the same address checks).
 *
 * Why not undici 7's cache interceptor (`interceptors.cache`, read against undici 7.30): it caches beneath the
 * fetcher, as a dispatcher, so (1) the fetcher cannot tell a hit or a revalidation from a request (a hit differs
 * only by the `age` field it adds), while `SecureFetchResult.fromCache`/`revalidated` (fetch-cache.test.ts,
 * bench/client's cached-fetch figure) say which; (2) its stale-while-revalidate and revalidation requests leave from
 * the dispatcher, outside the fetcher's deadline, size bounds and redirect checks; (3) it reads `Date.now()` itself,
 * while this cache takes a clock the tests move forward and the resolver shares (resolve-cache.test.ts "the
 * resolver and its HTTP cache agree on time"); (4) it applies heuristic freshness (10 % of the Last-Modified age, a
 * year for `immutable`) with no option to turn it off, where this cache and the resolver's reuse rule
 * (resolve/reuse.ts) have none, and it stores a response whose only freshness information is an ETag (to revalidate
 * every use, "has no heuristic freshness" in fetch-cache.test.ts) only when it says `no-cache` or `cacheByDefault`
 * is 0.
 * Why not http-cache-semantics (4.3): it judges one response, so the store above (Vary variants, byte budget, LRU,
 * invalidation, one background revalidation per entry) stays ours either way, and what it would replace, the rules
 * of freshness.ts and cache-control.ts, it reads differently: see those files. Its heuristics (`cacheHeuristic`,
 * `immutableMinTimeToLive`) and clock (`now()`) could be set, the rest could not.
 */
import { parseCacheControl } from './cache-control.js';
import { currentAgeMs, type Freshness, freshnessOf, type HeaderPairs, headerValue } from './freshness.js';
import type { HttpCacheLike } from './types.js';

export interface HttpCacheOptions {
  /** Approximate memory budget: bodies, header fields and URLs (default 32 MiB). */
  maxBytes?: number;
  /** The clock, in milliseconds (default `Date.now`); tests pass one they can move forward. */
  now?: () => number;
}

/** A request as the cache sees it: its URL and the header fields that will be sent, names in lower case. */
export interface CacheRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A complete response to store: status line, header fields (names in lower case) and the whole body. */
export interface StorableResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderPairs;
  readonly body: Uint8Array | null;
}

export interface CacheEntry extends StorableResponse {
  readonly url: string;
  readonly key: string;
  readonly freshness: Freshness;
  readonly bytes: number;
  /** `If-None-Match` and `If-Modified-Since` built from its validators; empty when it has none. */
  readonly conditionalHeaders: Readonly<Record<string, string>>;
}

/** `fresh`: serve it. `stale-while-revalidate`: serve it and revalidate in the background. `stale`: revalidate first. */
export type CacheState = 'fresh' | 'stale-while-revalidate' | 'stale';

export interface CacheHit {
  readonly entry: CacheEntry;
  readonly state: CacheState;
  /** The stored response with an `Age` field for now (RFC 9111 §5.1). */
  readonly headers: HeaderPairs;
}

export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

// Statuses a cache may store without explicit permission (RFC 9110 §15.1, "heuristically cacheable"), minus 206
// (no range support here); others are stored only with explicit freshness.
const CACHEABLE_BY_DEFAULT = new Set([200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]);
const UNDERSTOOD_STATUSES = new Set([...CACHEABLE_BY_DEFAULT, 302, 303, 307]);

// Fields a 304 must not overwrite (RFC 9111 §3.2): they describe the stored body or the connection, not the resource.
const NOT_UPDATED_BY_304 = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'content-range',
  'connection',
  'keep-alive',
  'age',
]);

// Fields that describe one connection, not the response (RFC 9111 §3.1); they are not stored.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'transfer-encoding',
  'upgrade',
]);

// Bookkeeping per entry (key, maps, object headers) counted on top of body, header fields and URL.
const ENTRY_OVERHEAD_BYTES = 256;

export class HttpCache implements HttpCacheLike {
  readonly maxBytes: number;
  readonly now: () => number;
  // Insertion order is recency order: a hit moves its entry to the end, eviction takes from the front.
  readonly #entries = new Map<string, CacheEntry>();
  readonly #varyByUrl = new Map<string, readonly string[]>();
  readonly #keysByUrl = new Map<string, Set<string>>();
  readonly #revalidating = new Map<string, Promise<void>>();
  #bytes = 0;

  constructor(options: HttpCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** Number of stored responses. */
  get size(): number {
    return this.#entries.size;
  }

  /** Approximate bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#varyByUrl.clear();
    this.#keysByUrl.clear();
    this.#bytes = 0;
  }

  /** The stored response for this request, if any, with what may be done with it now. */
  lookup(request: CacheRequest): CacheHit | undefined {
    const key = keyFor(request, this.#varyByUrl.get(request.url) ?? []);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    const age = currentAgeMs(entry.freshness, this.now());
    return {
      entry,
      state: stateAt(entry.freshness, age),
      headers: [...entry.headers, ['age', String(Math.floor(age / 1000))]],
    };
  }

  /**
   * Stores a complete response to a GET when RFC 9111 allows it and it can be of use (fresh for a while, or
   * revalidatable). `requestTime` and `responseTime` are on this cache's clock. Returns whether it was stored.
   */
  store(
    request: CacheRequest,
    response: StorableResponse,
    requestTime: number,
    responseTime: number,
  ): boolean {
    const vary = varyNames(response.headers);
    const freshness = freshnessOf(response.headers, requestTime, responseTime);
    const explicitlyFresh = freshness.lifetimeMs > 0 || freshness.staleWhileRevalidateMs > 0;
    if (
      vary === '*' ||
      parseCacheControl(headerValue(response.headers, 'cache-control')).has('no-store') ||
      parseCacheControl(request.headers['cache-control']).has('no-store') ||
      !UNDERSTOOD_STATUSES.has(response.status) ||
      !(explicitlyFresh || CACHEABLE_BY_DEFAULT.has(response.status)) ||
      !(explicitlyFresh || hasValidator(response.headers))
    ) {
      this.invalidate(request.url);
      return false;
    }
    const key = keyFor(request, vary);
    return this.#put(this.#entryFor(request.url, key, response, freshness), vary);
  }

  /**
   * Applies a 304 to the entry it revalidated: the 304's header fields replace the stored ones (so its Cache-Control,
   * Expires, Date and validators set the new freshness), and the stored body is kept. Returns the refreshed entry.
   */
  refresh(
    entry: CacheEntry,
    notModified: HeaderPairs,
    requestTime: number,
    responseTime: number,
  ): CacheEntry {
    const replaced = new Set(
      notModified.map(([name]) => name).filter((name) => !NOT_UPDATED_BY_304.has(name)),
    );
    const headers: Array<readonly [string, string]> = [
      ...entry.headers.filter(([name]) => !replaced.has(name)),
      ...notModified.filter(([name]) => replaced.has(name)),
    ];
    // The 304's own Age counts towards the refreshed response's age.
    const ageOf304 = notModified.filter(([name]) => name === 'age');
    const freshness = freshnessOf([...headers, ...ageOf304], requestTime, responseTime);
    const refreshed = this.#entryFor(entry.url, entry.key, { ...entry, headers }, freshness);
    const vary = varyNames(headers);
    // The entry stays under the key it was stored with (the request's values of the Vary fields); if the resource
    // now varies on other fields, that key means nothing any more and the entry is dropped.
    if (vary === '*' || !sameNames(vary, this.#varyByUrl.get(entry.url) ?? vary)) {
      this.invalidate(entry.url);
      return refreshed;
    }
    this.#put(refreshed, vary);
    return refreshed;
  }

  /** Forgets every stored response for a URL (after an unsafe method changed the resource, RFC 9111 §4.4). */
  invalidate(url: string): void {
    const keys = this.#keysByUrl.get(url);
    if (keys === undefined) return;
    for (const key of keys) this.#remove(key);
    this.#varyByUrl.delete(url);
  }

  /**
   * Runs one background revalidation per entry at a time: returns the running revalidation, or undefined when one
   * for the entry is already running (the request joins it).
   */
  revalidateInBackground(entry: CacheEntry, revalidate: () => Promise<void>): Promise<void> | undefined {
    if (this.#revalidating.has(entry.key)) return undefined;
    const running = revalidate()
      .catch(() => {
        // A failed background revalidation leaves the stale entry as it was; the next use tries again.
      })
      .finally(() => this.#revalidating.delete(entry.key));
    this.#revalidating.set(entry.key, running);
    return running;
  }

  /** Resolves once no background revalidation is running. */
  async idle(): Promise<void> {
    while (this.#revalidating.size > 0) await Promise.all(this.#revalidating.values());
  }

  #entryFor(url: string, key: string, response: StorableResponse, freshness: Freshness): CacheEntry {
    // The Age field is generated afresh on every hit; the received one is already counted in the freshness.
    const headers = response.headers.filter(([name]) => name !== 'age' && !HOP_BY_HOP.has(name));
    const body = response.body === null ? null : compact(response.body);
    let bytes = ENTRY_OVERHEAD_BYTES + key.length + url.length + (body?.byteLength ?? 0);
    for (const [name, value] of headers) bytes += name.length + value.length;
    return {
      url,
      key,
      status: response.status,
      statusText: response.statusText,
      headers,
      body,
      freshness,
      bytes,
      conditionalHeaders: conditionalHeaders(headers),
    };
  }

  #put(entry: CacheEntry, vary: readonly string[]): boolean {
    if (entry.bytes > this.maxBytes) {
      this.invalidate(entry.url);
      return false;
    }
    const known = this.#varyByUrl.get(entry.url);
    // Entries stored under a different Vary list can no longer be found; drop them rather than let them linger.
    if (known !== undefined && !sameNames(known, vary)) this.invalidate(entry.url);
    this.#remove(entry.key);
    this.#varyByUrl.set(entry.url, vary);
    let keys = this.#keysByUrl.get(entry.url);
    if (keys === undefined) {
      keys = new Set();
      this.#keysByUrl.set(entry.url, keys);
    }
    keys.add(entry.key);
    this.#entries.set(entry.key, entry);
    this.#bytes += entry.bytes;
    for (const [oldest] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldest);
    }
    return true;
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    const keys = this.#keysByUrl.get(entry.url);
    keys?.delete(key);
    if (keys?.size === 0) {
      this.#keysByUrl.delete(entry.url);
      this.#varyByUrl.delete(entry.url);
    }
  }
}

function stateAt(freshness: Freshness, ageMs: number): CacheState {
  if (freshness.noCache) return 'stale';
  if (ageMs < freshness.lifetimeMs) return 'fresh';
  if (!freshness.mustRevalidate && ageMs < freshness.lifetimeMs + freshness.staleWhileRevalidateMs) {
    return 'stale-while-revalidate';
  }
  return 'stale';
}

/** The Vary field's names in lower case, sorted; `*` when it varies on everything. */
export function varyNames(headers: HeaderPairs): readonly string[] | '*' {
  const value = headerValue(headers, 'vary');
  if (value === undefined) return [];
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.includes('*')) return '*';
  return [...new Set(names)].sort();
}

function keyFor(request: CacheRequest, vary: readonly string[]): string {
  if (vary.length === 0) return request.url;
  let key = request.url;
  for (const name of vary) key += `\n${name}:${(request.headers[name] ?? '').trim()}`;
  return key;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

function hasValidator(headers: HeaderPairs): boolean {
  return headerValue(headers, 'etag') !== undefined || headerValue(headers, 'last-modified') !== undefined;
}

function conditionalHeaders(headers: HeaderPairs): Record<string, string> {
  const conditional: Record<string, string> = {};
  const etag = headerValue(headers, 'etag');
  const lastModified = headerValue(headers, 'last-modified');
  if (etag !== undefined) conditional['if-none-match'] = etag;
  if (lastModified !== undefined) conditional['if-modified-since'] = lastModified;
  return conditional;
}

/** A copy that owns exactly its bytes, so a small body does not pin a larger network buffer it was sliced from. */
function compact(body: Uint8Array): Uint8Array {
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : body.slice();
}
