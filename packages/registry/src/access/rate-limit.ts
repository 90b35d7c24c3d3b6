/**
 * Rate limits per client (AIDIP §9: "registries MUST implement rate limiting and quotas, particularly in semantic
 * search"). A token bucket per client and class of request: `burst` requests at once, refilled at
 * `burst / windowSeconds` per second. Semantic search and intent resolution cost an embedding and a ranking, so
 * they have their own, smaller buckets.
 */

export type RateClass = 'default' | 'search' | 'resolve';

export interface RateLimitRule {
  /** Requests allowed in a burst, and per window. */
  requests: number;
  windowSeconds: number;
}

export type RateLimits = Record<RateClass, RateLimitRule>;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  default: { requests: 1200, windowSeconds: 60 },
  search: { requests: 120, windowSeconds: 60 },
  resolve: { requests: 120, windowSeconds: 60 },
};

export type RateVerdict =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; rule: RateLimitRule };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Buckets kept at most; the least recently touched go first (a full bucket is the same as none). */
const MAX_BUCKETS = 100_000;

export class RateLimiter {
  readonly #limits: RateLimits;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limits: RateLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Takes one request from `client`'s bucket of `rateClass`. */
  take(rateClass: RateClass, client: string): RateVerdict {
    const rule = this.#limits[rateClass];
    const capacity = Math.max(1, rule.requests);
    const perMs = capacity / (Math.max(1, rule.windowSeconds) * 1000);
    const key = `${rateClass}\u0000${client}`;
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: capacity, updatedMs: now };
    this.#buckets.delete(key);
    bucket.tokens = Math.min(capacity, bucket.tokens + Math.max(0, now - bucket.updatedMs) * perMs);
    bucket.updatedMs = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > MAX_BUCKETS) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    const waitMs = (1 - bucket.tokens) / perMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), rule };
  }
}
