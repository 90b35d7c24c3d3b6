/**
 * Retries against a server that counts attempts: 429 and 503 are retried only for calls safe to repeat
 * (idempotent or safe operations, idempotent HTTP methods, calls with an idempotency key), Retry-After is honoured
 * (seconds and HTTP-dates; a wait longer than allowed is handed to the caller), and AWP idempotency contracts put
 * the key where they say. Backoff bounds are property-tested.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent, JsonValue, Operation } from '@agentry/core';
import fc from 'fast-check';
import { type InvokeOptions, invoke, RateLimitedError, RemoteError, type RetryNotice } from '../src/index.js';
import { backoffDelay, retryPolicy } from '../src/invoke/retry.js';
import {
  documentRoute,
  jsonOf,
  loadAgent,
  loopbackFetcher,
  rejection,
  sendJson,
  startServer,
  type TestServer,
} from './invoke-support.js';

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: JsonValue;
}

const fetcher = loopbackFetcher();
let server: TestServer;
/** Per path: the answers to give, in order; the last repeats. */
const scripts = new Map<string, Scripted[]>();

before(async () => {
  server = await startServer({
    '*': (request, response) => {
      const script = scripts.get(request.path);
      if (script === undefined) return sendJson(response, 404, { title: 'no script' });
      const count = server.requests.filter((seen) => seen.path === request.path).length;
      const answer = script[Math.min(count, script.length) - 1]!;
      sendJson(response, answer.status, answer.body ?? { ok: true, attempt: count }, answer.headers);
    },
  });
  const { origin } = server;
  server.routes.set(
    'GET /agent.json',
    documentRoute({
      awp_version: '0.1',
      domain: new URL(origin).host,
      intent: 'Send payments.',
      actions: [
        {
          id: 'pay',
          description: 'Pay someone.',
          auth_required: false,
          inputs: {
            to: { type: 'string', required: true },
            idempotency_key: { type: 'string' },
          },
          outputs: { ok: 'boolean' },
          endpoint: `${origin}/pay`,
          method: 'POST',
          idempotency: { supported: true, key_field: 'idempotency_key', window: '24h' },
        },
      ],
    }),
  );
});

after(async () => {
  await server.close();
  await fetcher.close();
});

let counter = 0;
/** An agent whose one operation POSTs (or GETs) to a fresh scripted path. */
function scripted(answers: Scripted[], operation: Partial<Operation> = {}, method: 'POST' | 'GET' = 'POST') {
  const path = `/call/${++counter}`;
  scripts.set(path, answers);
  const agent: Agent = {
    id: 'flaky',
    name: 'Flaky',
    description: 'Sometimes busy.',
    operations: [{ name: 'run', ...operation }],
    bindings: [{ kind: 'http', url: `${server.origin}${path}`, method }],
  };
  return { agent, requests: () => server.requests.filter((request) => request.path === path) };
}

const fast = { baseDelayMs: 1, maxDelayMs: 20 };

function retryOptions(extra: InvokeOptions = {}): { options: InvokeOptions; notices: RetryNotice[] } {
  const notices: RetryNotice[] = [];
  return { options: { fetcher, retry: fast, onRetry: (notice) => notices.push(notice), ...extra }, notices };
}

const BUSY: Scripted = { status: 503, body: { title: 'Busy' } };
const OK: Scripted = { status: 200, body: { done: true } };

describe('which calls are retried', () => {
  test('an idempotent operation is retried after 503, with backoff', async () => {
    const { agent, requests } = scripted([BUSY, OK], { idempotent: true });
    const { options, notices } = retryOptions();
    const result = await invoke({ agent }, {}, options);
    assert.deepEqual(result.output, { done: true });
    assert.equal(result.attempts, 2);
    assert.equal(requests().length, 2);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]?.fromRetryAfter, false);
    assert.ok(notices[0]!.delayMs <= fast.baseDelayMs);
    assert.ok(notices[0]?.error instanceof RemoteError);
  });

  test('a safe operation is retried after 429', async () => {
    const { agent, requests } = scripted([{ status: 429 }, OK], { safe: true });
    const result = await invoke({ agent }, {}, retryOptions().options);
    assert.equal(result.attempts, 2);
    assert.equal(requests().length, 2);
  });

  test('a GET endpoint is idempotent by HTTP semantics and is retried', async () => {
    const { agent, requests } = scripted([BUSY, OK], {}, 'GET');
    await invoke({ agent }, {}, retryOptions().options);
    assert.equal(requests().length, 2);
  });

  test('a non-idempotent operation is not retried', async () => {
    const { agent, requests } = scripted([BUSY, OK]);
    const { options, notices } = retryOptions();
    const error = await rejection(invoke({ agent }, {}, options));
    assert.ok(error instanceof RemoteError);
    assert.equal(error.status, 503);
    assert.equal(requests().length, 1);
    assert.equal(notices.length, 0);
  });

  test('an idempotency key makes it safe: retried, with the same Idempotency-Key each time', async () => {
    const { agent, requests } = scripted([BUSY, OK]);
    const result = await invoke({ agent }, {}, retryOptions({ idempotencyKey: 'key-123' }).options);
    assert.equal(result.attempts, 2);
    assert.deepEqual(
      requests().map((request) => request.headers['idempotency-key']),
      ['key-123', 'key-123'],
    );
  });

  test('errors other than 429 and 503 are not retried', async () => {
    const { agent, requests } = scripted([{ status: 500 }, OK], { idempotent: true });
    await rejection(invoke({ agent }, {}, retryOptions().options));
    assert.equal(requests().length, 1);
  });

  test('retries stop after the attempts allowed, and the last error is thrown', async () => {
    const { agent, requests } = scripted([BUSY], { idempotent: true });
    const { options, notices } = retryOptions({ retry: { ...fast, attempts: 3 } });
    const error = await rejection(invoke({ agent }, {}, options));
    assert.ok(error instanceof RemoteError);
    assert.equal(requests().length, 3);
    assert.deepEqual(
      notices.map((notice) => notice.attempt),
      [1, 2],
    );
  });

  test('attempts: 1 disables retries', async () => {
    const { agent, requests } = scripted([BUSY, OK], { idempotent: true });
    await rejection(invoke({ agent }, {}, retryOptions({ retry: { attempts: 1 } }).options));
    assert.equal(requests().length, 1);
  });
});

describe('Retry-After', () => {
  test('a wait in seconds is honoured exactly', async () => {
    const { agent } = scripted([{ status: 429, headers: { 'retry-after': '1' } }, OK], { idempotent: true });
    const { options, notices } = retryOptions({ retry: { ...fast, maxDelayMs: 5000 } });
    const result = await invoke({ agent }, {}, options);
    assert.equal(result.attempts, 2);
    assert.deepEqual(
      notices.map(({ delayMs, fromRetryAfter }) => ({ delayMs, fromRetryAfter })),
      [{ delayMs: 1000, fromRetryAfter: true }],
    );
  });

  test('an HTTP-date in the past means now', async () => {
    const { agent } = scripted(
      [{ status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' } }, OK],
      { idempotent: true },
    );
    const { options, notices } = retryOptions();
    await invoke({ agent }, {}, options);
    assert.equal(notices[0]?.delayMs, 0);
    assert.equal(notices[0]?.fromRetryAfter, true);
  });

  test('a wait longer than maxDelayMs is not waited out: the caller gets retryAfterMs', async () => {
    const { agent, requests } = scripted([{ status: 429, headers: { 'retry-after': '60' } }, OK], {
      idempotent: true,
    });
    const error = await rejection(invoke({ agent }, {}, retryOptions().options));
    assert.ok(error instanceof RateLimitedError);
    assert.equal(error.retryAfterMs, 60_000);
    assert.equal(requests().length, 1);
    assert.match(error.message, /Try again in 60 s/);
  });
});

describe('AWP idempotency contract', () => {
  test('key_field: a generated key goes in the input, the same on every attempt', async () => {
    scripts.set('/pay', [{ status: 429 }, OK]);
    const agent = await loadAgent(`${server.origin}/agent.json`);
    assert.equal(agent.operations[0]?.idempotency?.keyField, 'idempotency_key');
    const result = await invoke({ agent }, { to: 'ada' }, retryOptions().options);
    assert.equal(result.attempts, 2);
    const bodies = server.hits('POST', '/pay').map((request) => jsonOf(request) as Record<string, string>);
    assert.equal(bodies.length, 2);
    assert.match(bodies[0]!['idempotency_key'] ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(bodies[1]!['idempotency_key'], bodies[0]!['idempotency_key']);
    assert.equal(server.hits('POST', '/pay')[0]?.headers['idempotency-key'], undefined);
  });

  test("key_field: the caller's key is used", async () => {
    scripts.set('/pay', [OK]);
    const agent = await loadAgent(`${server.origin}/agent.json`);
    await invoke({ agent }, { to: 'ada' }, retryOptions({ idempotencyKey: 'mine' }).options);
    const last = jsonOf(server.hits('POST', '/pay').at(-1)!) as Record<string, string>;
    assert.equal(last['idempotency_key'], 'mine');
  });

  test("a contract header carries the key under the contract's name", async () => {
    const { agent, requests } = scripted([BUSY, OK], {
      idempotency: { supported: true, header: 'X-Request-Key' },
    });
    await invoke({ agent }, {}, retryOptions().options);
    const keys = requests().map((request) => request.headers['x-request-key']);
    assert.equal(keys.length, 2);
    assert.ok(keys[0] !== undefined && keys[0] === keys[1]);
    assert.equal(requests()[0]?.headers['idempotency-key'], undefined);
  });
});

describe('backoff', () => {
  test('full jitter stays within [0, min(max, base · 2^(n-1))]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, max, random) => {
          const policy = retryPolicy({ baseDelayMs: base, maxDelayMs: max });
          const delay = backoffDelay(attempt, policy, () => random);
          return delay >= 0 && delay <= Math.min(policy.maxDelayMs, base * 2 ** (attempt - 1));
        },
      ),
    );
  });

  test('the policy is clamped to sane values', () => {
    assert.deepEqual(retryPolicy({ attempts: 0, baseDelayMs: -5, maxDelayMs: -1 }), {
      attempts: 1,
      baseDelayMs: 0,
      maxDelayMs: 0,
    });
    assert.deepEqual(retryPolicy(undefined), { attempts: 3, baseDelayMs: 250, maxDelayMs: 30_000 });
  });
});
