/**
 * Where the rate limiter's token buckets are kept. `memory` (the default) keeps them in this process: right for one
 * registry, and each replica of several would count apart. `redis` keeps them in one Redis that every replica
 * shares, so a client limited to N requests a minute gets N in all, whichever replicas answer them
 * (rate-limit-redis.ts). Both refill a bucket the same way, so the limits mean the same on either.
 */
import type { Logger } from 'pino';

/** A bucket's shape: `capacity` requests at once, refilled evenly over `windowMs`. */
export interface BucketRule {
  capacity: number;
  windowMs: number;
}

export type BucketVerdict = { allowed: true } | { allowed: false; waitMs: number };

/** Keeps token buckets by key; a replacement (a database, another cache) implements this. */
export interface RateLimitStore {
  /** Takes one token from the bucket `key` (created full), or says how long until one is there. */
  take(key: string, rule: BucketRule): BucketVerdict | Promise<BucketVerdict>;
  /** Releases what the store holds open. Idempotent. */
  close(): Promise<void>;
}

/** `createRegistry({ rateLimitStore })`: see docs/deploy.md, "Shared rate limits". */
export type RateLimitStoreOptions =
  | { kind: 'memory' }
  | {
      kind: 'redis';
      /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
      url: string;
      /** Put before every key (default `agentry:rate:`); registries sharing a Redis each need their own. */
      keyPrefix?: string;
      /**
       * How long a request waits for Redis before it is decided in this process instead (default 500 ms; see
       * "Failure mode" in rate-limit-redis.ts).
       */
      timeoutMs?: number;
    };

/** What a store reports through: its log, and gauges on `GET /metrics`. */
export interface RateLimitStoreContext {
  logger: Logger;
  setGauge(name: string, value: number, help?: string): void;
  /** The clock of the in-process buckets, ms (tests pin it). */
  now?: () => number;
}

/** The store `options` names; a Redis store has tried its first connection (it works on without one). */
export async function createRateLimitStore(
  options: RateLimitStoreOptions | undefined,
  context: RateLimitStoreContext,
): Promise<RateLimitStore> {
  if (options === undefined || options.kind === 'memory') return new MemoryRateLimitStore(context.now);
  // Loaded only when asked for: a registry without Redis never loads its client.
  const { RedisRateLimitStore } = await import('./rate-limit-redis.js');
  return RedisRateLimitStore.connect(options, context);
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Buckets kept at most; the least recently touched go first (a full bucket is the same as none). */
const MAX_BUCKETS = 100_000;

/** Token buckets in this process's memory. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  take(key: string, rule: BucketRule): BucketVerdict {
    const capacity = rule.capacity;
    const perMs = capacity / rule.windowMs;
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
    // Multiplied before dividing, so that a whole number of seconds comes out whole (1 / (2 / 3.6e6) does not).
    return { allowed: false, waitMs: ((1 - bucket.tokens) * rule.windowMs) / capacity };
  }

  async close(): Promise<void> {}
}
