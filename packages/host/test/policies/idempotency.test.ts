/**
 * Idempotency keys: where keys are read (each contract shape, matching what @agentry/client sends), the
 * new/replay/conflict/in-progress states, expiry by window on a clock the test owns, eviction, fingerprints and
 * durations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue, Operation } from '@agentry/core';
import fc from 'fast-check';
import { applyIdempotencyKey } from '../../../client/src/invoke/idempotency.js';
import { parseDuration } from '../../src/policies/durations.js';
import {
  createIdempotencyStore,
  type IdempotencyBegin,
  idempotencyScope,
  requestFingerprint,
  type StoredResponse,
} from '../../src/policies/idempotency.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function clocked(options: { windowMs?: number; maxEntries?: number } = {}) {
  let now = 1_700_000_000_000;
  return {
    store: createIdempotencyStore({ ...options, now: () => now }),
    advance(ms: number) {
      now += ms;
    },
  };
}

function response(text: string, status = 201): StoredResponse {
  return { status, headers: [['Content-Type', 'application/json']], body: new TextEncoder().encode(text) };
}

function expectNew(begin: IdempotencyBegin): Extract<IdempotencyBegin, { kind: 'new' }> {
  assert.equal(begin.kind, 'new');
  return begin as Extract<IdempotencyBegin, { kind: 'new' }>;
}

function expectReplay(begin: IdempotencyBegin): StoredResponse {
  assert.equal(begin.kind, 'replay');
  return (begin as Extract<IdempotencyBegin, { kind: 'replay' }>).response;
}

describe('idempotency store', () => {
  const scope = idempotencyScope('flights', 'book', 'client-a');
  const fingerprint = requestFingerprint('book', { flight: 'AF1' });

  it('runs a new key, then replays its response marked Idempotent-Replayed', () => {
    const { store } = clocked();
    expectNew(store.begin(scope, 'k1', fingerprint)).commit(response('{"id":1}'));
    const replay = expectReplay(store.begin(scope, 'k1', fingerprint));
    assert.equal(replay.status, 201);
    assert.equal(new TextDecoder().decode(replay.body), '{"id":1}');
    assert.deepEqual(replay.headers, [
      ['Content-Type', 'application/json'],
      ['Idempotent-Replayed', 'true'],
    ]);
  });

  it('keeps its own copy of the response', () => {
    const { store } = clocked();
    const stored = response('{"id":1}');
    expectNew(store.begin(scope, 'k1', fingerprint)).commit(stored);
    stored.body.fill(0);
    stored.headers.push(['X-Later', 'changed']);
    const first = expectReplay(store.begin(scope, 'k1', fingerprint));
    first.body.fill(0);
    const second = expectReplay(store.begin(scope, 'k1', fingerprint));
    assert.equal(new TextDecoder().decode(second.body), '{"id":1}');
    assert.equal(second.headers.length, 2);
  });

  it('answers a reused key with another request as a 409 conflict', () => {
    const { store } = clocked();
    expectNew(store.begin(scope, 'k1', fingerprint)).commit(response('{}'));
    const other = store.begin(scope, 'k1', requestFingerprint('book', { flight: 'BA2' }));
    assert.equal(other.kind, 'conflict');
    if (other.kind === 'conflict') {
      assert.equal(other.problem.status, 409);
      assert.equal(other.problem.code, 'IdempotencyKeyReused');
    }
  });

  it('answers a repeat of a request still running as a 409 in-progress, until it settles', () => {
    const { store } = clocked();
    const first = expectNew(store.begin(scope, 'k1', fingerprint));
    const again = store.begin(scope, 'k1', fingerprint);
    assert.equal(again.kind, 'in-progress');
    if (again.kind === 'in-progress') {
      assert.equal(again.problem.status, 409);
      assert.equal(again.problem.code, 'IdempotencyKeyInUse');
    }
    assert.equal(store.begin(scope, 'k1', requestFingerprint('cancel', {})).kind, 'conflict');
    first.commit(response('{}'));
    expectReplay(store.begin(scope, 'k1', fingerprint));
  });

  it('lets an abandoned key run again', () => {
    const { store } = clocked();
    expectNew(store.begin(scope, 'k1', fingerprint)).abandon();
    expectNew(store.begin(scope, 'k1', fingerprint)).commit(response('{"second":true}'));
    assert.equal(
      new TextDecoder().decode(expectReplay(store.begin(scope, 'k1', fingerprint)).body),
      '{"second":true}',
    );
  });

  it('keeps keys of different scopes apart', () => {
    const { store } = clocked();
    expectNew(store.begin(scope, 'k1', fingerprint)).commit(response('{}'));
    expectNew(store.begin(idempotencyScope('flights', 'book', 'client-b'), 'k1', fingerprint));
    expectNew(store.begin(idempotencyScope('flights', 'book', 'anonymous'), 'k1', fingerprint));
    expectNew(store.begin(idempotencyScope('hotels', 'book', 'client-a'), 'k1', fingerprint));
  });

  it('forgets a key once its window has passed since the commit', () => {
    const { store, advance } = clocked({ windowMs: 10 * MINUTE });
    const claim = expectNew(store.begin(scope, 'k1', fingerprint));
    advance(5 * MINUTE);
    claim.commit(response('{}'));
    advance(10 * MINUTE - 1);
    expectReplay(store.begin(scope, 'k1', fingerprint));
    advance(1);
    expectNew(store.begin(scope, 'k1', fingerprint));
  });

  it('uses the window given to begin over its default', () => {
    const { store, advance } = clocked({ windowMs: HOUR });
    expectNew(store.begin(scope, 'k1', fingerprint, MINUTE)).commit(response('{}'));
    advance(MINUTE);
    expectNew(store.begin(scope, 'k1', fingerprint));
  });

  it('expires a running claim that is never settled, and ignores its late commit', () => {
    const { store, advance } = clocked({ windowMs: MINUTE });
    const stale = expectNew(store.begin(scope, 'k1', fingerprint));
    advance(MINUTE);
    const fresh = expectNew(store.begin(scope, 'k1', fingerprint));
    stale.commit(response('{"stale":true}'));
    assert.equal(store.begin(scope, 'k1', fingerprint).kind, 'in-progress');
    stale.abandon();
    assert.equal(
      store.begin(scope, 'k1', fingerprint).kind,
      'in-progress',
      'the stale claim cannot drop the fresh one',
    );
    fresh.commit(response('{"fresh":true}'));
    assert.equal(
      new TextDecoder().decode(expectReplay(store.begin(scope, 'k1', fingerprint)).body),
      '{"fresh":true}',
    );
  });

  it('holds at most maxEntries keys, forgetting the least recently used', () => {
    const { store } = clocked({ maxEntries: 2 });
    expectNew(store.begin(scope, 'k1', fingerprint)).commit(response('1'));
    expectNew(store.begin(scope, 'k2', fingerprint)).commit(response('2'));
    expectReplay(store.begin(scope, 'k1', fingerprint));
    expectNew(store.begin(scope, 'k3', fingerprint)).commit(response('3'));
    expectReplay(store.begin(scope, 'k1', fingerprint));
    expectNew(store.begin(scope, 'k2', fingerprint));
  });
});

describe('keyFor', () => {
  const { store } = clocked();
  const op = (idempotency?: Operation['idempotency']): Operation =>
    idempotency === undefined ? { name: 'book' } : { name: 'book', idempotency };

  it('reads the key where our client sends it, for every contract shape', () => {
    const shapes: (Operation['idempotency'] | undefined)[] = [
      undefined,
      { supported: true },
      { supported: true, keyField: 'idempotency_key' },
      { supported: true, header: 'X-Request-Key' },
      { supported: true, keyField: 'idempotency_key', header: 'X-Request-Key' },
      { supported: true, keyField: 'idempotency_key', window: '24h' },
    ];
    for (const shape of shapes) {
      for (const input of [{ flight: 'AF1' }, ['not', 'an', 'object'], 'text'] as JsonValue[]) {
        const sent = applyIdempotencyKey(op(shape), input, 'key-123');
        const key = store.keyFor(op(shape), new Headers(sent.headers), sent.input);
        assert.equal(key, 'key-123', `${JSON.stringify(shape)} with ${JSON.stringify(input)}`);
      }
    }
  });

  it('prefers the key in the input field, then the contract header, then Idempotency-Key', () => {
    const contract = { supported: true, keyField: 'k', header: 'X-Request-Key' };
    const headers = new Headers({ 'X-Request-Key': 'from-header', 'Idempotency-Key': 'conventional' });
    assert.equal(store.keyFor(op(contract), headers, { k: 'from-input' }), 'from-input');
    assert.equal(store.keyFor(op(contract), headers, { k: '' }), 'from-header');
    assert.equal(
      store.keyFor(op(contract), new Headers({ 'Idempotency-Key': 'conventional' }), {}),
      'conventional',
    );
    assert.equal(store.keyFor(op(contract), new Headers(), { k: 42 }), undefined);
  });

  it('unquotes the structured-field form of Idempotency-Key', () => {
    assert.equal(store.keyFor(op(), new Headers({ 'Idempotency-Key': '"abc-1"' }), {}), 'abc-1');
  });

  it('takes no key for an operation whose contract says it does not support them', () => {
    const headers = new Headers({ 'Idempotency-Key': 'k' });
    assert.equal(store.keyFor(op({ supported: false, keyField: 'k' }), headers, { k: 'v' }), undefined);
  });

  it('gives no key when there is none', () => {
    assert.equal(store.keyFor(op(), new Headers(), { flight: 'AF1' }), undefined);
    assert.equal(store.keyFor(op(), new Headers({ 'Idempotency-Key': '  ' }), {}), undefined);
  });

  it('reads the window of the contract, else the default', () => {
    const defaults = createIdempotencyStore({ windowMs: 5 * MINUTE });
    assert.equal(defaults.windowFor(op({ supported: true, window: '24h' })), 24 * HOUR);
    assert.equal(defaults.windowFor(op({ supported: true, window: 'PT10M' })), 10 * MINUTE);
    assert.equal(defaults.windowFor(op({ supported: true, window: 'soon' })), 5 * MINUTE);
    assert.equal(defaults.windowFor(op()), 5 * MINUTE);
    assert.equal(createIdempotencyStore().windowFor(op()), 24 * HOUR);
  });
});

describe('requestFingerprint', () => {
  it('is the same for the same request whatever its key order', () => {
    assert.equal(
      requestFingerprint('book', { flight: 'AF1', seats: 2, meta: { a: 1, b: [1, 2] } }),
      requestFingerprint('book', { meta: { b: [1, 2], a: 1 }, seats: 2, flight: 'AF1' }),
    );
  });

  it('tells operations and inputs apart', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const same = requestFingerprint('op', a) === requestFingerprint('op', b);
        assert.equal(same, JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b)));
        assert.notEqual(requestFingerprint('op', a), requestFingerprint('other', a));
      }),
      { numRuns: runs },
    );
  });

  it('is a SHA-256 hex digest', () => {
    assert.match(requestFingerprint('op', undefined), /^[0-9a-f]{64}$/);
    assert.equal(requestFingerprint('op', undefined), requestFingerprint('op', null));
  });
});

describe('parseDuration', () => {
  it('reads short forms, spelled-out units and ISO 8601 day-time durations', () => {
    const cases: [string, number][] = [
      ['24h', 24 * HOUR],
      ['7d', 7 * 24 * HOUR],
      ['10m', 10 * MINUTE],
      ['30s', 30_000],
      ['1 hour', HOUR],
      ['90 minutes', 90 * MINUTE],
      ['1.5h', 90 * MINUTE],
      ['PT24H', 24 * HOUR],
      ['P1D', 24 * HOUR],
      ['PT1H30M', 90 * MINUTE],
      ['P1DT1S', 24 * HOUR + 1000],
      ['PT0.5S', 500],
      ['pt5m', 5 * MINUTE],
    ];
    for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
  });

  it('refuses what is not a duration, or has no fixed length', () => {
    for (const text of [
      '',
      'P',
      'PT',
      'P1DT',
      '24',
      'h',
      '1 fortnight',
      'P1M',
      'P1Y',
      '0h',
      'PT0S',
      '-1h',
      '1h30m',
    ]) {
      assert.equal(parseDuration(text), undefined, text);
    }
  });

  it('reads back any whole number of any unit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom(['s', 1000], ['m', MINUTE], ['h', HOUR]),
        (n, [unit, ms]) => {
          assert.equal(parseDuration(`${n}${unit}`), n * (ms as number));
          assert.equal(parseDuration(`PT${n}${String(unit).toUpperCase()}`), n * (ms as number));
        },
      ),
      { numRuns: runs },
    );
  });
});

/** JSON with object keys sorted, -0 as 0: what canonical equality means. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'number' && Object.is(value, -0)) return 0;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
