/**
 * Rate limits: the AWP `rate_limit` syntax (examples and properties), and the limiter on a clock the test owns —
 * bursts, refill, window roll-over, the RateLimit/Retry-After headers, per-client and per-operation isolation,
 * and the bound on memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createRateLimiter, describeRateLimit, parseRateLimit } from '../../src/policies/rate-limit.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A limiter on a clock that moves only when the test says. */
function clocked(options: { default?: string; maxKeys?: number } = {}) {
  let now = 1_700_000_000_000;
  const limiter = createRateLimiter({ ...options, now: () => now });
  return {
    limiter,
    advance(ms: number) {
      now += ms;
    },
  };
}

describe('parseRateLimit', () => {
  it('reads the AWP form and the usual spellings', () => {
    const cases: [string, number, number][] = [
      ['30/minute', 30, MINUTE],
      ['100/hour', 100, HOUR],
      ['5/second', 5, SECOND],
      ['1000/day', 1000, DAY],
      ['10/min', 10, MINUTE],
      ['2/s', 2, SECOND],
      ['7/h', 7, HOUR],
      ['3/d', 3, DAY],
      ['60 per minute', 60, MINUTE],
      ['100 requests per hour', 100, HOUR],
      ['30/5min', 30, 5 * MINUTE],
      ['30 / 5 minutes', 30, 5 * MINUTE],
      ['  12/Minute ', 12, MINUTE],
      ['1/30s', 1, 30 * SECOND],
    ];
    for (const [text, limit, windowMs] of cases) {
      assert.deepEqual(parseRateLimit(text), { limit, windowMs }, text);
    }
  });

  it('rejects what is not a rate limit', () => {
    for (const text of [
      '',
      'fast',
      '30',
      '/minute',
      '0/minute',
      '30/0min',
      '-1/minute',
      '1.5/minute',
      '30/fortnight',
      '30/month',
      '30/minute extra',
      'minute/30',
      '30//minute',
      '99999999999999999999/minute',
    ]) {
      assert.equal(parseRateLimit(text), undefined, JSON.stringify(text));
    }
  });

  it('reads back every limit it describes', () => {
    const unitMs = fc.constantFrom(SECOND, MINUTE, HOUR, DAY);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1000 }),
        unitMs,
        (limit, multiple, unit) => {
          const spec = { limit, windowMs: multiple * unit };
          assert.deepEqual(parseRateLimit(describeRateLimit(spec)), spec);
        },
      ),
      { numRuns: runs },
    );
  });

  it('reads any count over any spelled unit, with or without a multiple', () => {
    const units: [string, number][] = [
      ['s', SECOND],
      ['sec', SECOND],
      ['seconds', SECOND],
      ['m', MINUTE],
      ['mins', MINUTE],
      ['minute', MINUTE],
      ['hr', HOUR],
      ['hours', HOUR],
      ['day', DAY],
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.option(fc.integer({ min: 1, max: 999 }), { nil: undefined }),
        fc.constantFrom(...units),
        fc.constantFrom('/', ' / ', ' per '),
        (limit, multiple, [unit, ms], separator) => {
          const text = `${limit}${separator}${multiple ?? ''}${unit}`;
          assert.deepEqual(parseRateLimit(text), { limit, windowMs: (multiple ?? 1) * ms });
        },
      ),
      { numRuns: runs },
    );
  });

  it('never throws, and whatever it accepts is a positive whole count over a positive window', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        const spec = parseRateLimit(text);
        if (spec === undefined) return;
        assert.ok(Number.isSafeInteger(spec.limit) && spec.limit >= 1);
        assert.ok(Number.isSafeInteger(spec.windowMs) && spec.windowMs >= SECOND);
      }),
      { numRuns: runs },
    );
  });
});

describe('createRateLimiter', () => {
  it('allows a burst up to the limit, then refuses with 429, Retry-After and the RateLimit fields', () => {
    const { limiter } = clocked();
    const remaining: string[] = [];
    for (let call = 0; call < 3; call++) {
      const decision = limiter.take('client-a', 'book', '3/minute');
      assert.equal(decision.allowed, true);
      assert.equal(decision.headers.get('RateLimit-Policy'), '"default";q=3;w=60');
      remaining.push(decision.headers.get('RateLimit') ?? '');
    }
    assert.deepEqual(remaining, ['"default";r=2;t=20', '"default";r=1;t=40', '"default";r=0;t=60']);

    const refused = limiter.take('client-a', 'book', '3/minute');
    assert.equal(refused.allowed, false);
    assert.equal(refused.headers.get('Retry-After'), '20');
    assert.equal(refused.headers.get('RateLimit'), '"default";r=0;t=60');
    assert.equal(refused.headers.get('RateLimit-Policy'), '"default";q=3;w=60');
    assert.equal(refused.retryAfterSeconds, 20);
    assert.equal(refused.problem?.status, 429);
    assert.equal(refused.problem?.code, 'RateLimited');
    assert.match(refused.problem?.detail ?? '', /3 per minute/);
  });

  it('regains calls as time passes, and is full again once the window has rolled over', () => {
    const { limiter, advance } = clocked();
    for (let call = 0; call < 3; call++) assert.equal(limiter.take('a', 'op', '3/minute').allowed, true);
    assert.equal(limiter.take('a', 'op', '3/minute').allowed, false);

    advance(19 * SECOND);
    const early = limiter.take('a', 'op', '3/minute');
    assert.equal(early.allowed, false);
    assert.equal(early.headers.get('Retry-After'), '1');

    advance(SECOND);
    assert.equal(limiter.take('a', 'op', '3/minute').allowed, true, 'one call regained after 20 s');
    assert.equal(limiter.take('a', 'op', '3/minute').allowed, false);

    advance(MINUTE);
    const fresh = limiter.take('a', 'op', '3/minute');
    assert.equal(fresh.headers.get('RateLimit'), '"default";r=2;t=20');
    assert.equal(limiter.take('a', 'op', '3/minute').allowed, true);
    assert.equal(limiter.take('a', 'op', '3/minute').allowed, true);
    assert.equal(limiter.take('a', 'op', '3/minute').allowed, false);
  });

  it('never lets more calls through than the limit plus what the elapsed time regained', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(SECOND, MINUTE, 7 * SECOND),
        fc.array(fc.integer({ min: 0, max: 5 * SECOND }), { minLength: 1, maxLength: 60 }),
        (limit, windowMs, gaps) => {
          const { limiter, advance } = clocked();
          const text = `${limit}/${windowMs / SECOND}s`;
          let allowed = 0;
          let elapsed = 0;
          for (const gap of gaps) {
            advance(gap);
            elapsed += gap;
            if (limiter.take('c', 'op', text).allowed) allowed++;
            assert.ok(allowed <= limit + Math.floor((elapsed * limit) / windowMs));
          }
        },
      ),
      { numRuns: runs },
    );
  });

  it('keeps clients and operations apart', () => {
    const { limiter } = clocked();
    assert.equal(limiter.take('a', 'op', '1/minute').allowed, true);
    assert.equal(limiter.take('a', 'op', '1/minute').allowed, false);
    assert.equal(limiter.take('b', 'op', '1/minute').allowed, true, 'another client has its own bucket');
    assert.equal(
      limiter.take('a', 'other', '1/minute').allowed,
      true,
      'another operation has its own bucket',
    );
  });

  it('does not confuse keys that only concatenate alike', () => {
    const { limiter } = clocked();
    assert.equal(limiter.take('a:b', 'c', '1/minute').allowed, true);
    assert.equal(limiter.take('a', 'b:c', '1/minute').allowed, true);
  });

  it('applies the default to operations without a limit, and nothing when there is no default', () => {
    const limited = clocked({ default: '1/hour' });
    assert.equal(limited.limiter.take('a', 'op', undefined).allowed, true);
    assert.equal(limited.limiter.take('a', 'op', undefined).allowed, false);
    assert.equal(
      limited.limiter.take('a', 'op', undefined).headers.get('RateLimit-Policy'),
      '"default";q=1;w=3600',
    );

    const open = clocked();
    for (let call = 0; call < 100; call++) {
      const decision = open.limiter.take('a', 'op', undefined);
      assert.equal(decision.allowed, true);
      assert.equal(decision.headers.get('RateLimit'), null);
    }
  });

  it('starts a new bucket when the operation’s limit changes', () => {
    const { limiter } = clocked();
    assert.equal(limiter.take('a', 'op', '1/minute').allowed, true);
    assert.equal(limiter.take('a', 'op', '1/minute').allowed, false);
    assert.equal(limiter.take('a', 'op', '5/minute').allowed, true);
  });

  it('forgets the least recently used buckets beyond maxKeys', () => {
    const { limiter } = clocked({ maxKeys: 3 });
    for (const client of ['a', 'b', 'c']) assert.equal(limiter.take(client, 'op', '1/hour').allowed, true);
    assert.equal(limiter.take('a', 'op', '1/hour').allowed, false, 'a is remembered and touched');
    assert.equal(limiter.take('d', 'op', '1/hour').allowed, true, 'd evicts b, the least recently used');
    assert.equal(limiter.take('b', 'op', '1/hour').allowed, true, 'b was forgotten, so it starts full');
    assert.equal(limiter.take('a', 'op', '1/hour').allowed, false, 'a survived both evictions');
  });

  it('refuses unreadable limits loudly, naming them', () => {
    const { limiter } = clocked();
    assert.throws(() => limiter.take('a', 'op', 'lots'), /"lots" is not a rate limit/);
    assert.throws(() => createRateLimiter({ default: 'often' }), /"often"/);
  });

  it('uses the configured policy name, quoted as a structured-field string', () => {
    const limiter = createRateLimiter({ policyName: 'per "client"', now: () => 0 });
    assert.equal(
      limiter.take('a', 'op', '2/s').headers.get('RateLimit-Policy'),
      '"per \\"client\\"";q=2;w=1',
    );
  });
});
