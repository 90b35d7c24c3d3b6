/**
 * AWP `rate_limit` strings (§9: `"30/minute"`): a count of calls per window. Read forms: `30/minute`,
 * `100/hour`, `5/second`, `1000/day`, abbreviated units (`10/min`, `2/s`, `5/h`, `1/d`), a window of several
 * units (`30/5min`, `30/5 minutes`), and the spelled-out `60 per minute` / `100 requests per hour`. Counts and
 * window multiples are positive integers; anything else is not a rate limit.
 */
import { unitMilliseconds } from './durations.js';

export interface RateLimitSpec {
  /** Calls allowed per window. */
  limit: number;
  windowMs: number;
}

const RATE_LIMIT = /^(\d+)\s*(?:(?:requests?|reqs?|calls?)\s*)?(?:\/|\bper\b)\s*(?:(\d+)\s*)?([a-z]+)$/i;

export function parseRateLimit(text: string): RateLimitSpec | undefined {
  const match = RATE_LIMIT.exec(text.trim());
  if (match === null) return undefined;
  const limit = Number(match[1]);
  const multiple = match[2] === undefined ? 1 : Number(match[2]);
  const unit = unitMilliseconds(match[3]!);
  if (unit === undefined) return undefined;
  const windowMs = multiple * unit;
  if (!Number.isSafeInteger(limit) || limit < 1) return undefined;
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) return undefined;
  return { limit, windowMs };
}

/** `30 per minute`, `30 per 5 minutes`: for messages. */
export function describeRateLimit(spec: RateLimitSpec): string {
  return `${spec.limit} per ${describeWindow(spec.windowMs)}`;
}

const NAMED_WINDOWS: ReadonlyArray<[number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

function describeWindow(windowMs: number): string {
  for (const [ms, name] of NAMED_WINDOWS) {
    if (windowMs % ms !== 0) continue;
    const count = windowMs / ms;
    return count === 1 ? name : `${count} ${name}s`;
  }
  return `${windowMs} ms`;
}
