/**
 * A resolver: `resolve` bound to one fetcher, with a resolution cache in front of it (docs/resolution.md,
 * "Resolution cache").
 *
 * The fetcher's HTTP cache saves the network; this saves the rest (reading, detecting, converting and choosing). A
 * resolution is kept while every document it was built from is fresh by its own caching headers (reuse.ts): it
 * expires with the first of them to go stale, and is never kept when one of them may not be reused (`no-store`,
 * `no-cache`, no freshness information, a failed request). Past that, the next resolve asks the fetcher again, whose
 * HTTP cache revalidates what it holds, and builds the resolution anew.
 *
 * Entries are keyed by everything that changes the result: the target as given, the version asked for, the static
 * map (by identity: pass the same object to share entries, a new one to change the map), the scheme, `webfinger`
 * and `fallback`. The fetcher is the resolver's own. At most `maxEntries` are kept, least recently used evicted
 * first; `clear()` forgets them all.
 *
 * Every resolution a resolver returns is a deep-frozen copy (structuredClone, then Object.freeze throughout), the
 * first one as well as the reused ones, so no caller can change what another will be given: writing to one throws a
 * TypeError in strict-mode code. A reused resolution is one shared frozen object whose `documents` say
 * `fromCache: true`, `revalidated: false`, `fromResolutionCache: true`. (A resolution that cannot be cloned, which
 * codecs never produce, is returned as is and not kept.)
 */
import { HttpCache } from '../fetch/cache.js';
import type { SecureFetcher } from '../fetch/types.js';
import { ResolveContext } from './context.js';
import { resolveIn } from './resolve.js';
import { classifyTarget } from './target.js';
import type { Resolution, ResolvedDocument, ResolveOptions } from './types.js';

export const DEFAULT_RESOLUTION_CACHE_ENTRIES = 1000;

export interface ResolutionCacheOptions {
  /** Resolutions kept at most, the least recently used evicted first (default 1000); 0 keeps none. */
  maxEntries?: number;
}

export interface ResolverOptions {
  /** The fetcher every document is asked of. The resolver never closes it. */
  fetcher: SecureFetcher;
  /** The resolution cache's size, or `false` for none (every resolve reads its documents again). */
  cache?: ResolutionCacheOptions | false;
  /**
   * The clock freshness is judged on, in milliseconds. Default: the clock of the fetcher's `HttpCache` when its
   * policy was given one (`cache: new HttpCache({ now })`), so both caches agree on time; else `Date.now`.
   */
  now?: () => number;
}

/** The options of one resolution through a resolver: `resolve`'s, without the fetcher (the resolver's own). */
export type ResolverResolveOptions = Omit<ResolveOptions, 'fetcher'>;

export interface Resolver {
  readonly fetcher: SecureFetcher;
  /**
   * As `resolve(target, { ...options, fetcher })`, reusing a resolution still fresh in the cache. The result is
   * deep-frozen; it throws what `resolve` throws.
   */
  resolve(target: string, options?: ResolverResolveOptions): Promise<Resolution>;
  /** Resolutions held now (stale ones count until they are next looked up or evicted). */
  readonly size: number;
  readonly maxEntries: number;
  /** Forgets every resolution held. The fetcher's HTTP cache is left as it is. */
  clear(): void;
}

/**
 * A resolver that keeps each resolution while the documents it read are fresh (their HTTP caching headers), so a
 * program that calls the same agents again asks nothing of their origins.
 *
 * @example
 * ```ts
 * import { createResolver, createSecureFetcher, invoke } from '@agentry/client';
 *
 * const fetcher = createSecureFetcher();
 * const resolver = createResolver({ fetcher, cache: { maxEntries: 500 } });
 * const resolution = await resolver.resolve('agent://planner.example.com'); // again, while fresh: no request
 * const { output } = await invoke(resolution, { city: 'Paris' }, { fetcher, operation: 'gen-iti' });
 * ```
 */
export function createResolver(options: ResolverOptions): Resolver {
  return new CachingResolver(options);
}

interface Entry {
  /** On the resolver's clock: reusable while `now < freshUntil`. */
  readonly freshUntil: number;
  /** The frozen resolution handed out on every reuse. */
  readonly reused: Resolution;
}

class CachingResolver implements Resolver {
  readonly fetcher: SecureFetcher;
  readonly maxEntries: number;
  readonly #now: () => number;
  // Insertion order is recency order: a hit moves its entry to the end, eviction takes from the front.
  readonly #entries = new Map<string, Entry>();

  constructor(options: ResolverOptions) {
    this.fetcher = options.fetcher;
    const maxEntries =
      options.cache === false ? 0 : (options.cache?.maxEntries ?? DEFAULT_RESOLUTION_CACHE_ENTRIES);
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError(`cache.maxEntries must be a whole number ≥ 0, not ${maxEntries}.`);
    }
    this.maxEntries = maxEntries;
    const httpCache = options.fetcher.policy.cache;
    this.#now = options.now ?? (httpCache instanceof HttpCache ? () => httpCache.now() : () => Date.now());
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#entries.clear();
  }

  async resolve(target: string, options: ResolverResolveOptions = {}): Promise<Resolution> {
    options.signal?.throwIfAborted();
    const caching = this.maxEntries > 0;
    const key = caching ? keyOf(target, options) : '';
    if (caching) {
      const entry = this.#entries.get(key);
      if (entry !== undefined) {
        this.#entries.delete(key);
        if (this.#now() < entry.freshUntil) {
          this.#entries.set(key, entry);
          return entry.reused;
        }
      }
    }
    const kind = classifyTarget(target);
    const ctx = new ResolveContext(this.fetcher, options.signal, caching ? this.#now : undefined);
    const resolution = await resolveIn(ctx, kind, target, options);
    const frozen = frozenCopy(resolution);
    if (frozen === undefined) return resolution;
    if (caching && ctx.reusableUntil > this.#now()) {
      this.#entries.set(key, { freshUntil: ctx.reusableUntil, reused: reusedView(frozen) });
      for (const [oldest] of this.#entries) {
        if (this.#entries.size <= this.maxEntries) break;
        this.#entries.delete(oldest);
      }
    }
    return frozen;
  }
}

const staticMapIds = new WeakMap<object, number>();
let nextStaticMapId = 1;

/** Everything that changes a resolution but the fetcher (the resolver's own); the target last, as given. */
function keyOf(target: string, options: ResolverResolveOptions): string {
  let map = 0;
  if (options.staticMap !== undefined) {
    map = staticMapIds.get(options.staticMap) ?? 0;
    if (map === 0) {
      map = nextStaticMapId++;
      staticMapIds.set(options.staticMap, map);
    }
  }
  // An empty version is no version (versions.ts); the length prefix keeps the version and the target apart.
  const version = options.version ?? '';
  const scheme = options.scheme ?? 'https';
  const webfinger = options.webfinger ? 1 : 0;
  const fallback = options.fallback === false ? 0 : 1;
  return `${map} ${scheme} ${webfinger}${fallback} ${version.length}:${version} ${target}`;
}

/** A deep-frozen copy, or undefined when the resolution holds something structuredClone cannot copy. */
function frozenCopy(resolution: Resolution): Resolution | undefined {
  let copy: Resolution;
  try {
    copy = structuredClone(resolution);
  } catch {
    return undefined;
  }
  return deepFreeze(copy);
}

/** The resolution as handed out again: the same parts, its documents marked as not asked for this time. */
function reusedView(resolution: Resolution): Resolution {
  const documents = resolution.documents.map(
    (document): ResolvedDocument => ({
      ...document,
      fromCache: true,
      revalidated: false,
      fromResolutionCache: true,
    }),
  );
  return deepFreeze({ ...resolution, documents });
}

function deepFreeze<T>(value: T): T {
  // Typed arrays cannot be frozen; resolutions hold none, but a copy of one must not make freezing throw.
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) {
    return value;
  }
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  return value;
}
