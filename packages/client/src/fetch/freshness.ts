/**
 * How long a stored response stays fresh and how old it is (RFC 9111 §4.2), for a private cache: `s-maxage` is
 * ignored, `max-age` wins over `Expires`, and there is no heuristic freshness (a response without either is stale at
 * once, stored only to be revalidated with its validators).
 *
 * Not http-cache-semantics (4.3), whose age is the `Age` field plus the time since it was stored: it leaves out
 * RFC 9111 §4.2.3's apparent age (the response time less `Date`) and the response delay (the time the request was
 * in flight), both of which `initialAgeMs` counts, so a response that took long to arrive, or left its origin long
 * ago, would be fresh for longer there. The resolver (resolve/reuse.ts) also needs the lifetime and the initial age
 * apart, to know when the earliest document of a resolution expires; the library gives only a time to live.
 */
import { type CacheDirectives, deltaSeconds, parseCacheControl, parseDeltaSeconds } from './cache-control.js';

export type HeaderPairs = ReadonlyArray<readonly [string, string]>;

export interface Freshness {
  /** How long the response is fresh, counted from when it was generated. */
  readonly lifetimeMs: number;
  /** Its age when it was received (RFC 9111 §4.2.3 corrected_initial_age). */
  readonly initialAgeMs: number;
  /** When it was received, on the cache's clock. */
  readonly responseTime: number;
  /** `no-cache`: may be stored, but every use needs a successful revalidation first. */
  readonly noCache: boolean;
  /** `stale-while-revalidate`: how long past its lifetime it may still be served while revalidating in the background. */
  readonly staleWhileRevalidateMs: number;
  /** `must-revalidate`: never served stale, not even while revalidating. */
  readonly mustRevalidate: boolean;
}

/** A field's value, repeated field lines joined with commas (RFC 9110 §5.3). Names are lower case. */
export function headerValue(headers: HeaderPairs, name: string): string | undefined {
  let value: string | undefined;
  for (const [field, fieldValue] of headers) {
    if (field === name) value = value === undefined ? fieldValue : `${value}, ${fieldValue}`;
  }
  return value;
}

export function freshnessOf(headers: HeaderPairs, requestTime: number, responseTime: number): Freshness {
  const directives = parseCacheControl(headerValue(headers, 'cache-control'));
  const date = httpDate(headerValue(headers, 'date'));
  const dateValue = date ?? responseTime;
  const age = parseDeltaSeconds(headerValue(headers, 'age')?.trim());
  const apparentAge = Math.max(0, responseTime - dateValue);
  const correctedAgeValue = (typeof age === 'number' ? age * 1000 : 0) + (responseTime - requestTime);
  return {
    lifetimeMs: lifetime(directives, headerValue(headers, 'expires'), dateValue),
    initialAgeMs: Math.max(apparentAge, correctedAgeValue),
    responseTime,
    noCache: directives.has('no-cache'),
    staleWhileRevalidateMs: seconds(deltaSeconds(directives, 'stale-while-revalidate')) * 1000,
    mustRevalidate: directives.has('must-revalidate'),
  };
}

function lifetime(directives: CacheDirectives, expires: string | undefined, dateValue: number): number {
  const maxAge = deltaSeconds(directives, 'max-age');
  if (maxAge !== undefined) return seconds(maxAge) * 1000;
  if (expires === undefined) return 0;
  // An Expires that is not a valid date (often "0" or "-1") means already expired (RFC 9111 §5.3).
  const expiresAt = httpDate(expires);
  return expiresAt === undefined ? 0 : Math.max(0, expiresAt - dateValue);
}

function seconds(value: number | 'invalid' | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/** Parses an HTTP date (IMF-fixdate, and the obsolete RFC 850 and asctime forms, which `Date.parse` reads too). */
export function httpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/** The response's current age at `now` (RFC 9111 §4.2.3). */
export function currentAgeMs(freshness: Freshness, now: number): number {
  return freshness.initialAgeMs + Math.max(0, now - freshness.responseTime);
}
