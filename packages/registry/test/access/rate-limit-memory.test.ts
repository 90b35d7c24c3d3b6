/**
 * The default rate-limit store, in the process: token buckets per class and client on a pinned clock, and what it
 * means for several registries (each counts on its own; shared limits need the Redis store).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_RATE_LIMITS, MemoryRateLimitStore, RateLimiter } from '../../src/index.js';
import { startRegistry, type TestRegistry } from '../support.js';

describe('RateLimiter on the in-process store', () => {
  test('a burst of `requests`, then a refusal saying when the next token comes, then the refill', async () => {
    let clock = 5_000_000;
    const limiter = new RateLimiter(
      { ...DEFAULT_RATE_LIMITS, search: { requests: 3, windowSeconds: 60 } },
      () => clock,
    );
    for (let i = 0; i < 3; i++) assert.deepEqual(await limiter.take('search', 'a'), { allowed: true });
    assert.deepEqual(await limiter.take('search', 'a'), {
      allowed: false,
      retryAfterSeconds: 20,
      rule: { requests: 3, windowSeconds: 60 },
    });
    assert.deepEqual(await limiter.take('search', 'b'), { allowed: true }, 'each client has its own');
    assert.deepEqual(await limiter.take('default', 'a'), { allowed: true }, 'each class has its own');
    clock += 5_000;
    const early = await limiter.take('search', 'a');
    assert.equal(early.allowed, false);
    assert.equal(early.allowed === false && early.retryAfterSeconds, 15);
    clock += 15_000;
    assert.deepEqual(await limiter.take('search', 'a'), { allowed: true }, 'one token back after 20 s');
    assert.equal((await limiter.take('search', 'a')).allowed, false);
    await limiter.close();
  });

  test('a store passed in keeps the buckets: two limiters on one store share them', async () => {
    let clock = 0;
    const store = new MemoryRateLimitStore(() => clock);
    const limits = { ...DEFAULT_RATE_LIMITS, default: { requests: 2, windowSeconds: 10 } };
    const one = new RateLimiter(limits, store);
    const two = new RateLimiter(limits, store);
    assert.equal((await one.take('default', 'c')).allowed, true);
    assert.equal((await two.take('default', 'c')).allowed, true);
    assert.equal((await one.take('default', 'c')).allowed, false);
    assert.equal((await two.take('default', 'c')).allowed, false);
    clock += 5_000;
    assert.equal((await two.take('default', 'c')).allowed, true);
  });
});

describe('two registries on the default store', () => {
  let a: TestRegistry;
  let b: TestRegistry;
  before(async () => {
    const options = {
      trustProxy: true,
      rateLimits: { default: { requests: 2, windowSeconds: 3600 } },
      clockMs: () => 1_000_000,
    };
    a = await startRegistry(options);
    b = await startRegistry(options);
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  test('each counts on its own: a client gets the limit from each', async () => {
    const client = { headers: { 'x-forwarded-for': '198.51.100.7' } };
    for (const registry of [a, b]) {
      assert.equal((await registry.request('/agents', client)).status, 200);
      assert.equal((await registry.request('/agents', client)).status, 200);
      const refused = await registry.request('/agents', client);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '1800');
    }
    const metrics = await a.request('/metrics', { token: a.admin });
    assert.doesNotMatch(metrics.text, /agentry_rate_limit_shared/, 'no Redis, no gauge of it');
  });
});
