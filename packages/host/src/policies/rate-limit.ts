/**
 * Per-client, per-operation rate limits (AWP `rate_limit`, agent:// and AIDIP's 429).
 *
 * Contract:
 * - `take(client, operation, limit)` spends one call from the bucket of that (client, operation) pair under
 *   `limit` (an AWP string such as `30/minute`, else the limiter's default; no limit at all allows the call and
 *   sends no headers). An unreadable limit string throws: it is a mistake in the agent's definition, which the
 *   host should catch up front with `parseRateLimit`.
 * - The algorithm is a token bucket (GCRA form): `30/minute` lets a client burst up to 30 calls, and regains one
 *   call every 2 s, so the sustained rate is 30 a minute. State is one number per bucket, kept in integer units
 *   (milliseconds × limit) so no rounding lets an extra call through.
 * - Every decision under a limit carries the IETF RateLimit fields in the syntax of
 *   draft-ietf-httpapi-ratelimit-headers-09/-10: `RateLimit-Policy: "default";q=30;w=60` (quota, window in
 *   seconds) and `RateLimit: "default";r=12;t=40` (calls left now, seconds until the bucket is full again).
 *   A refusal adds `Retry-After` (whole seconds, at least 1: when the next call will be allowed) and a 429
 *   problem with code `RateLimited`.
 * - Memory is bounded: at most `maxKeys` buckets (default 10,000), least recently used forgotten first. A
 *   forgotten bucket starts full again, which only ever favours the client.
 */
import type { Problem } from '../errors.js';
import { policyProblem } from './problems.js';
import { describeRateLimit, parseRateLimit, type RateLimitSpec } from './rate-limit-syntax.js';
import { RecentMap } from './recent-map.js';

export { describeRateLimit, parseRateLimit, type RateLimitSpec } from './rate-limit-syntax.js';

export interface RateDecision {
  allowed: boolean;
  headers: Headers;
  /** The 429 problem, when refused. */
  problem?: Problem;
  /** Seconds until a call will be allowed again, when refused (also in `Retry-After`). */
  retryAfterSeconds?: number;
}

export interface RateLimiter {
  take(clientKey: string, operationKey: string, limit: string | undefined): RateDecision;
  /** Whether calls under `limit` are limited at all: not when it is undefined and there is no default. */
  limits(limit: string | undefined): boolean;
}

export interface RateLimiterOptions {
  /** The limit for operations that declare none (an AWP string such as `100/minute`). */
  default?: string;
  /** Milliseconds since the epoch (default `Date.now`); tests inject a clock. */
  now?: () => number;
  /** Most buckets kept at once (default 10,000). */
  maxKeys?: number;
  /** The policy identifier in the RateLimit fields (default `default`). */
  policyName?: string;
}

interface Bucket {
  limit: number;
  windowMs: number;
  /** How far the bucket is from full, in milliseconds × limit, as of `at`. */
  debt: number;
  at: number;
}

const DEFAULT_MAX_KEYS = 10_000;
const PARSED_LIMITS_KEPT = 256;

export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const policy = structuredFieldString(options.policyName ?? 'default');
  const buckets = new RecentMap<string, Bucket>(options.maxKeys ?? DEFAULT_MAX_KEYS);
  const parsed = new RecentMap<string, RateLimitSpec>(PARSED_LIMITS_KEPT);

  const specFor = (text: string, source: string): RateLimitSpec => {
    const known = parsed.get(text);
    if (known !== undefined) return known;
    const spec = parseRateLimit(text);
    if (spec === undefined) {
      throw new RangeError(
        `${source} rate limit "${text}" is not a rate limit: write a count per window such as "30/minute", "100/hour" or "10/5min".`,
      );
    }
    parsed.set(text, spec);
    return spec;
  };
  const fallback = options.default === undefined ? undefined : specFor(options.default, 'The default');

  return {
    limits: (limit) => limit !== undefined || fallback !== undefined,
    take(clientKey, operationKey, limit) {
      const spec = limit === undefined ? fallback : specFor(limit, `Operation "${operationKey}"'s`);
      if (spec === undefined) return { allowed: true, headers: new Headers() };
      const at = now();
      const key = JSON.stringify([clientKey, operationKey]);
      const stored = buckets.get(key);
      const bucket = stored?.limit === spec.limit && stored.windowMs === spec.windowMs ? stored : undefined;
      const capacity = spec.windowMs * spec.limit;
      const cost = spec.windowMs;
      const debt =
        bucket === undefined ? 0 : Math.max(0, bucket.debt - Math.max(0, at - bucket.at) * spec.limit);

      if (debt + cost > capacity) {
        const waitMs = (debt + cost - capacity) / spec.limit;
        const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
        const headers = rateHeaders(policy, spec, 0, debt);
        headers.set('Retry-After', String(retryAfterSeconds));
        const problem = policyProblem({
          status: 429,
          title: 'Too Many Requests',
          code: 'RateLimited',
          detail: `"${operationKey}" allows ${describeRateLimit(spec)} per client, and this client has used them. Retry in ${retryAfterSeconds} s.`,
          extensions: { retryAfterSeconds },
        });
        return { allowed: false, headers, problem, retryAfterSeconds };
      }
      const owed = debt + cost;
      buckets.set(key, { limit: spec.limit, windowMs: spec.windowMs, debt: owed, at });
      return {
        allowed: true,
        headers: rateHeaders(policy, spec, Math.floor((capacity - owed) / cost), owed),
      };
    },
  };
}

function rateHeaders(policy: string, spec: RateLimitSpec, remaining: number, debt: number): Headers {
  const windowSeconds = Math.max(1, Math.ceil(spec.windowMs / 1000));
  const resetSeconds = Math.ceil(debt / spec.limit / 1000);
  return new Headers({
    'RateLimit-Policy': `${policy};q=${spec.limit};w=${windowSeconds}`,
    RateLimit: `${policy};r=${remaining};t=${resetSeconds}`,
  });
}

/** An RFC 8941 sf-string: printable ASCII, with `"` and `\` escaped. */
function structuredFieldString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) {
    throw new RangeError(`A rate-limit policy name must be printable ASCII (got ${JSON.stringify(text)}).`);
  }
  return `"${text.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}
