/**
 * Rate limits per client (AIDIP §9: "registries MUST implement rate limiting and quotas, particularly in semantic
 * search"). A token bucket per client and class of request: `burst` requests at once, refilled at
 * `burst / windowSeconds` per second. Semantic search and intent resolution cost an embedding and a ranking, so
 * they have their own, smaller buckets. Where the buckets are kept is the store's affair (rate-limit-store.ts): in
 * this process by default, in Redis for limits shared by several replicas.
 */
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.js';

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

export class RateLimiter {
  readonly #limits: RateLimits;
  readonly #store: RateLimitStore;

  /**
   * `store` keeps the buckets; a clock (ms) instead keeps them in this process on that clock (tests pin it), as
   * does nothing (`Date.now`).
   */
  constructor(limits: RateLimits, store: RateLimitStore | (() => number) = Date.now) {
    this.#limits = limits;
    this.#store = typeof store === 'function' ? new MemoryRateLimitStore(store) : store;
  }

  /** Takes one request from `client`'s bucket of `rateClass`. */
  async take(rateClass: RateClass, client: string): Promise<RateVerdict> {
    const rule = this.#limits[rateClass];
    const wait = await this.#store.take(`${rateClass}:${client}`, {
      capacity: Math.max(1, rule.requests),
      windowMs: Math.max(1, rule.windowSeconds) * 1000,
    });
    if (wait.allowed) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait.waitMs / 1000)), rule };
  }

  /** Releases the store (a Redis connection). Idempotent. */
  close(): Promise<void> {
    return this.#store.close();
  }
}
