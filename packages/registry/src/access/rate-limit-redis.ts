/**
 * Token buckets in Redis, shared by every replica that names the same Redis and key prefix. One Lua script reads,
 * refills, takes from and writes back a bucket, and Redis runs a script alone, so replicas asking at the same moment
 * never admit more than the bucket holds. The script reads Redis's own clock (`TIME`), so replicas whose clocks
 * disagree still refill a bucket alike; the refill is the in-process store's (rate-limit-store.ts), so a limit means
 * the same on either. A bucket expires once it would be full again: Redis holds only clients seen within a window.
 *
 * Failure mode: when Redis does not answer (down, unreachable, slower than `timeoutMs`), the request is decided by
 * this replica's own buckets, the in-process store, with the same limits: availability and a bound both stay, and the
 * bound is per replica (a client may get N from each) until Redis answers again. A warning is logged when that
 * starts (once a minute at most) and a note when it ends, and `agentry_rate_limit_shared` (1 shared, 0 per replica) and
 * `agentry_rate_limit_local_decisions` on `GET /metrics` show it. Refusing every request (503) would let an outage of
 * a cache take the whole registry down, and admitting all would drop the limits altogether; docs/deploy.md says why.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  type BucketRule,
  type BucketVerdict,
  MemoryRateLimitStore,
  type RateLimitStore,
  type RateLimitStoreContext,
  type RateLimitStoreOptions,
} from './rate-limit-store.js';

/**
 * KEYS[1] the bucket; ARGV[1] its capacity, ARGV[2] its window in ms. A hash of `tokens` (fractional) and `at` (ms
 * of Redis's clock). Returns {1, 0} when a token was taken, else {0, ms until one is there}.
 */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local per_ms = capacity / window
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * window / capacity)
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
return {allowed, wait}
`;
const TAKE_SHA = createHash('sha1').update(TAKE_SCRIPT).digest('hex');

const DEFAULT_KEY_PREFIX = 'agentry:rate:';
const DEFAULT_TIMEOUT_MS = 500;
/** Outages closer together than this are logged once: a Redis at the edge of its timeout would flood the log. */
const WARN_INTERVAL_MS = 60_000;

const SHARED_GAUGE = 'agentry_rate_limit_shared';
const SHARED_HELP =
  'Whether rate limits are shared through Redis (1) or, Redis not answering, kept by this replica alone (0).';
const LOCAL_GAUGE = 'agentry_rate_limit_local_decisions';
const LOCAL_HELP =
  'Requests whose rate limit this replica decided alone because Redis did not answer, since start.';

type RedisOptions = Extract<RateLimitStoreOptions, { kind: 'redis' }>;

export class RedisRateLimitStore implements RateLimitStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #context: RateLimitStoreContext;
  /** Decides while Redis does not answer. */
  readonly #local: MemoryRateLimitStore;
  #shared = true;
  /** When an outage was last logged (ms), and whether the current one was. */
  #warnedAt = Number.NEGATIVE_INFINITY;
  #outageLogged = false;
  #localDecisions = 0;
  #closed = false;

  private constructor(client: Redis, prefix: string, context: RateLimitStoreContext) {
    this.#client = client;
    this.#prefix = prefix;
    this.#context = context;
    this.#local = new MemoryRateLimitStore(context.now);
  }

  /**
   * A store on the Redis at `options.url`, after one try at connecting: without an answer it starts deciding alone
   * (and says so) while the client keeps reconnecting, so a replica starts while Redis is away. A URL that is not
   * `redis://` or `rediss://` is an error.
   */
  static async connect(options: RedisOptions, context: RateLimitStoreContext): Promise<RedisRateLimitStore> {
    const url = redisUrl(options.url);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const client = new Redis(url, {
      lazyConnect: true,
      // A command while disconnected fails at once rather than waiting in a queue: the request is decided here.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(1000, timeoutMs * 4),
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    const store = new RedisRateLimitStore(client, options.keyPrefix ?? DEFAULT_KEY_PREFIX, context);
    // Without a listener the client prints each failed reconnection; the store logs the outage once instead.
    client.on('error', (error: Error) => store.#lost(error));
    client.on('ready', () => store.#regained());
    context.setGauge(SHARED_GAUGE, 1, SHARED_HELP);
    context.setGauge(LOCAL_GAUGE, 0, LOCAL_HELP);
    try {
      await client.connect();
      // The script is loaded now, so the first requests need no second round trip.
      await client.script('LOAD', TAKE_SCRIPT);
    } catch (error) {
      store.#lost(error as Error);
    }
    return store;
  }

  async take(key: string, rule: BucketRule): Promise<BucketVerdict> {
    try {
      const [allowed, waitMs] = await this.#run(this.#prefix + key, rule);
      this.#regained();
      return allowed === 1 ? { allowed: true } : { allowed: false, waitMs };
    } catch (error) {
      this.#lost(error as Error);
      this.#localDecisions += 1;
      this.#context.setGauge(LOCAL_GAUGE, this.#localDecisions, LOCAL_HELP);
      return this.#local.take(key, rule);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.status === 'ready') {
      try {
        await this.#client.quit();
        return;
      } catch {
        // Closed below.
      }
    }
    this.#client.disconnect();
  }

  async #run(key: string, rule: BucketRule): Promise<[number, number]> {
    const args = [key, String(rule.capacity), String(rule.windowMs)];
    try {
      return (await this.#client.evalsha(TAKE_SHA, 1, ...args)) as [number, number];
    } catch (error) {
      // A Redis restarted (or flushed) since the script was loaded has forgotten it.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await this.#client.eval(TAKE_SCRIPT, 1, ...args)) as [number, number];
    }
  }

  #lost(error: Error): void {
    if (this.#closed || !this.#shared) return;
    this.#shared = false;
    this.#context.setGauge(SHARED_GAUGE, 0, SHARED_HELP);
    const now = Date.now();
    this.#outageLogged = now - this.#warnedAt >= WARN_INTERVAL_MS;
    if (!this.#outageLogged) return;
    this.#warnedAt = now;
    this.#context.logger.warn(
      { err: error, redis: redactedUrl(this.#client) },
      'rate limits: Redis is not answering; this replica limits clients on its own until it does',
    );
  }

  #regained(): void {
    if (this.#closed || this.#shared) return;
    this.#shared = true;
    this.#context.setGauge(SHARED_GAUGE, 1, SHARED_HELP);
    if (!this.#outageLogged) return;
    this.#context.logger.info(
      { redis: redactedUrl(this.#client) },
      'rate limits: Redis answers again; limits are shared',
    );
  }
}

/** `text` checked to be a Redis URL. */
function redisUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('The rate-limit Redis must be a redis:// or rediss:// URL; this one does not parse.');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`The rate-limit Redis must be a redis:// or rediss:// URL; got a ${url.protocol} URL.`);
  }
  return text;
}

/** Where the client connects, without its password, for the log. */
function redactedUrl(client: Redis): string {
  const { host, port, db } = client.options;
  return `${host ?? '127.0.0.1'}:${port ?? 6379}/${db ?? 0}`;
}
