/**
 * Rate limits shared through Redis (the local one, or AGENTRY_TEST_REDIS_URL): two registries on their own SQLite
 * files and one Redis hold one limit between them, concurrent requests never get more than it, and a Redis that
 * does not answer leaves each registry limiting on its own, saying so in its log and metrics, until it answers again.
 * Each run's keys are under a prefix of its own, removed at the end.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import pino from 'pino';
import { createRateLimitStore, createRegistry, type RateLimitStoreOptions } from '../../src/index.js';
import { type Answer, silentLogger, startRegistry, type TestRegistry, tempDir } from '../support.js';

const REDIS_URL = process.env['AGENTRY_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const PREFIX = `agentry-test:${randomUUID()}:`;
/** One hour: no bucket regains a token while a test runs. */
const HOUR = 3600;

const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });

before(async () => {
  await redis.connect();
});

after(async () => {
  const left = await keysUnder(PREFIX);
  if (left.length > 0) await redis.del(...left);
  assert.deepEqual(await keysUnder(PREFIX), [], 'the run leaves no keys behind');
  await redis.quit();
});

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/**
 * A store under this run's prefix. Its timeout is long: on a busy machine a request decided in the process after a
 * slow answer would be one admitted too many, which is the failure mode, not what these tests look at.
 */
function shared(suffix: string): RateLimitStoreOptions {
  return { kind: 'redis', url: REDIS_URL, keyPrefix: `${PREFIX}${suffix}:`, timeoutMs: 10_000 };
}

/** An anonymous GET /agents from `client` (the registries trust X-Forwarded-For). */
function list(registry: TestRegistry, client: string): Promise<Answer> {
  return registry.request('/agents', { headers: { 'x-forwarded-for': client } });
}

describe('the Redis store', () => {
  test('stores on two connections admit a bucket’s capacity in all, however they interleave', async () => {
    const context = { logger: silentLogger, setGauge: () => {} };
    const one = await createRateLimitStore(shared('store'), context);
    const two = await createRateLimitStore(shared('store'), context);
    try {
      const rule = { capacity: 7, windowMs: HOUR * 1000 };
      const verdicts = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? one : two).take('default:client', rule)),
      );
      assert.equal(verdicts.filter((verdict) => verdict.allowed).length, 7);
      for (const verdict of verdicts.filter((v) => !v.allowed)) {
        // One token comes back every hour / 7, about 514 s.
        assert.ok(verdict.waitMs > 500_000 && verdict.waitMs <= 514_286, String(verdict.waitMs));
      }
      assert.equal((await one.take('default:other', rule)).allowed, true, 'another key has its own bucket');
      const bucket = `${PREFIX}store:default:client`;
      const ttl = await redis.pttl(bucket);
      assert.ok(ttl > 0 && ttl <= HOUR * 1000 + 1000, `the bucket expires once full again (ttl ${ttl})`);
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('a URL that is not redis:// is refused before anything opens', async () => {
    const dir = tempDir();
    try {
      await assert.rejects(
        createRegistry({
          databasePath: `${dir.path}/registry.db`,
          embeddings: 'none',
          logger: silentLogger,
          rateLimitStore: { kind: 'redis', url: 'http://127.0.0.1:6379' },
        }),
        /rate-limit Redis must be a redis:\/\/ or rediss:\/\/ URL/,
      );
    } finally {
      dir.remove();
    }
  });
});

describe('two registries sharing one Redis', () => {
  const limit = 5;
  let a: TestRegistry;
  let b: TestRegistry;

  before(async () => {
    const options = {
      trustProxy: true,
      rateLimits: { default: { requests: limit, windowSeconds: HOUR } },
      rateLimitStore: shared('replicas'),
    };
    a = await startRegistry(options);
    b = await startRegistry(options);
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  test('a client limited to N gets 429 with Retry-After on its N+1th request across both', async () => {
    for (let i = 0; i < limit; i++) {
      const answer = await list(i % 2 === 0 ? a : b, '203.0.113.1');
      assert.equal(answer.status, 200, `request ${i + 1}: ${answer.text}`);
    }
    for (const registry of [a, b]) {
      const refused = await list(registry, '203.0.113.1');
      assert.equal(refused.status, 429, refused.text);
      assert.equal((refused.json as { code?: string }).code, 'RateLimited');
      // One request comes back every hour / 5 (720 s), less the moments since the bucket was last full.
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter > 700 && retryAfter <= 720, String(retryAfter));
    }
    assert.equal((await list(b, '203.0.113.2')).status, 200, 'another client has its own budget');
  });

  test('concurrent requests over both registries are admitted N times, never more', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 * limit }, (_, i) => list(i % 2 === 0 ? a : b, '203.0.113.3')),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 200).length, limit, statuses.join(' '));
    assert.equal(statuses.filter((status) => status === 429).length, 3 * limit, statuses.join(' '));
  });

  test('the admin is not limited, and the metrics say the limits are shared', async () => {
    for (let i = 0; i < limit + 2; i++) {
      assert.equal((await a.request('/agents', { token: a.admin })).status, 200);
    }
    const metrics = await a.request('/metrics', { token: a.admin });
    assert.match(metrics.text, /^agentry_rate_limit_shared 1$/m);
    assert.match(metrics.text, /^agentry_rate_limit_local_decisions 0$/m);
  });
});

describe('when Redis does not answer', () => {
  test('a registry on a closed port starts, limits each client on its own, and says so', async () => {
    const port = await closedPort();
    const log = new LogLines();
    const r = await startRegistry({
      trustProxy: true,
      logger: log.logger,
      rateLimits: { default: { requests: 3, windowSeconds: HOUR } },
      rateLimitStore: { kind: 'redis', url: `redis://127.0.0.1:${port}`, keyPrefix: `${PREFIX}closed:` },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await list(r, '203.0.113.9')).status);
      assert.deepEqual(statuses, [200, 200, 200, 429], 'the limit still holds, in this registry');
      const warnings = log.lines.filter((line) => line.level === 40);
      assert.equal(warnings.length, 1, 'one warning for the outage, not one per request or reconnection');
      assert.match(
        String(warnings[0]?.msg),
        /Redis is not answering; this replica limits clients on its own/,
      );
      assert.equal(warnings[0]?.redis, `127.0.0.1:${port}/0`);
      const metrics = await r.request('/metrics', { token: r.admin });
      assert.match(metrics.text, /^agentry_rate_limit_shared 0$/m);
      assert.match(metrics.text, /^agentry_rate_limit_local_decisions 4$/m);
    } finally {
      await r.close();
    }
  });

  test('an outage in the middle falls back to per-replica limits, and sharing resumes when Redis is back', async () => {
    const proxy = new RedisProxy(new URL(REDIS_URL));
    const port = await proxy.open(0);
    const log = new LogLines();
    const r = await startRegistry({
      trustProxy: true,
      logger: log.logger,
      rateLimits: { default: { requests: 2, windowSeconds: HOUR } },
      rateLimitStore: {
        kind: 'redis',
        url: `redis://127.0.0.1:${port}`,
        keyPrefix: `${PREFIX}outage:`,
        timeoutMs: 10_000,
      },
    });
    try {
      assert.equal((await list(r, '203.0.113.20')).status, 200);
      assert.equal((await list(r, '203.0.113.20')).status, 200);
      assert.equal((await list(r, '203.0.113.20')).status, 429, 'decided in Redis');

      await proxy.close();
      // The bucket in Redis is empty, but this replica's own is full: a client gets the limit again, once.
      const during = [];
      for (let i = 0; i < 3; i++) during.push((await list(r, '203.0.113.20')).status);
      assert.deepEqual(during, [200, 200, 429]);
      let metrics = await r.request('/metrics', { token: r.admin });
      assert.match(metrics.text, /^agentry_rate_limit_shared 0$/m);

      await proxy.open(port);
      await until(async () => {
        const text = (await r.request('/metrics', { token: r.admin })).text;
        return /^agentry_rate_limit_shared 1$/m.test(text);
      });
      assert.equal((await list(r, '203.0.113.20')).status, 429, 'the shared bucket decides again');
      assert.equal((await list(r, '203.0.113.21')).status, 200);
      metrics = await r.request('/metrics', { token: r.admin });
      assert.match(metrics.text, /^agentry_rate_limit_local_decisions 3$/m);
      const messages = log.lines.filter((line) => line.level >= 30).map((line) => String(line.msg));
      assert.ok(messages.some((msg) => /Redis is not answering/.test(msg)));
      assert.ok(messages.some((msg) => /Redis answers again; limits are shared/.test(msg)));
    } finally {
      await r.close();
      await proxy.close();
    }
  });
});

describe('an existing bucket after a restart of Redis', () => {
  test('a script Redis has forgotten is sent again', async () => {
    const store = await createRateLimitStore(shared('flush'), { logger: silentLogger, setGauge: () => {} });
    try {
      const rule = { capacity: 2, windowMs: HOUR * 1000 };
      assert.equal((await store.take('k', rule)).allowed, true);
      // What a restarted Redis does to loaded scripts (clients of scripts expect this at any time).
      await redis.script('FLUSH');
      assert.equal((await store.take('k', rule)).allowed, true);
      assert.equal((await store.take('k', rule)).allowed, false);
    } finally {
      await store.close();
    }
  });
});

/** A port nothing listens on: one the system handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP relay to Redis that a test can take away (closing every connection) and bring back on the same port. */
class RedisProxy {
  readonly #target: URL;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();

  constructor(target: URL) {
    this.#target = target;
  }

  async open(port: number): Promise<number> {
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(this.#target.port || 6379), this.#target.hostname);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.#server = server;
    return (server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Log lines, parsed, as pino writes them. */
class LogLines {
  readonly lines: Array<{ level: number; msg?: string; redis?: string }> = [];
  readonly logger = pino(
    { level: 'info' },
    new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line !== '') this.lines.push(JSON.parse(line));
        done();
      },
    }),
  );
}

/** Waits, polling, until `check` holds; fails after 20 s (the client reconnects within 2 s of Redis coming back). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('the condition did not come to hold');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
