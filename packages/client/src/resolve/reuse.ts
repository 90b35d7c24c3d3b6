/**
 * How long a fetched document lets a resolution built from it be reused (the resolution cache, resolver.ts): while
 * the response is fresh by its own caching headers (RFC 9111 §4.2, as the fetcher's HTTP cache judges it, through
 * the same helpers: `max-age`, else `Expires`, less the response's age; no heuristic freshness).
 *
 * Never reusable: a response marked `no-store` or `no-cache`, one with `Vary: *`, one with no freshness
 * information, one reached through redirects (the redirects' own freshness is not known here), a status that is
 * not a final answer about the document (anything but 2xx, 404 and 410: a 5xx, a 429 or a 403 may well be
 * different next time), and a request that failed. The fetcher's HTTP cache states a stored response's `Age` in
 * whole seconds, rounded down, so a response it served (or revalidated) counts as up to a second older than it says.
 */
import { varyNames } from '../fetch/cache.js';
import { parseCacheControl } from '../fetch/cache-control.js';
import { freshnessOf, type HeaderPairs, headerValue } from '../fetch/freshness.js';
import type { FetchResult } from '../fetch/types.js';

/** The expiry of a document that cannot be reused at all. */
export const NOT_REUSABLE = Number.NEGATIVE_INFINITY;

const AGE_ROUNDING_MS = 1000;

/**
 * The time (on the clock `requestTime` and `responseTime` were read from: before the request, and when its answer
 * came) until which `result`'s document is fresh; `NOT_REUSABLE` when it may not be reused.
 */
export function freshUntil(result: FetchResult, requestTime: number, responseTime: number): number {
  const { status } = result.response;
  if (result.redirects.length > 0) return NOT_REUSABLE;
  if (!((status >= 200 && status < 300) || status === 404 || status === 410)) return NOT_REUSABLE;
  const headers: HeaderPairs = [...result.response.headers];
  if (parseCacheControl(headerValue(headers, 'cache-control')).has('no-store')) return NOT_REUSABLE;
  if (varyNames(headers) === '*') return NOT_REUSABLE;
  const freshness = freshnessOf(headers, requestTime, responseTime);
  if (freshness.noCache || freshness.lifetimeMs <= 0) return NOT_REUSABLE;
  const rounding = result.fromCache || result.revalidated ? AGE_ROUNDING_MS : 0;
  // Fresh while its age, initialAge + (now − responseTime), is below its lifetime (RFC 9111 §4.2).
  return freshness.responseTime - freshness.initialAgeMs - rounding + freshness.lifetimeMs;
}
