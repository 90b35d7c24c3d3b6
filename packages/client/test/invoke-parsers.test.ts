/**
 * The parsers of invocation, on data and under fast-check: Retry-After (the vectors in
 * vectors/retry-after.json, and round trips), NDJSON and SSE (the same events however the stream is cut), and error
 * bodies (any JSON or text reads without throwing).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { JsonValue } from '@agentry/core';
import fc from 'fast-check';
import { parseRetryAfter } from '../src/index.js';
import { readErrorBody, readErrorValue } from '../src/invoke/error-body.js';
import { agentErrorFrom } from '../src/invoke/error-mapping.js';
import { AgentError } from '../src/invoke/errors.js';
import { parseNdjson, StreamFormatError } from '../src/invoke/streams/ndjson.js';
import { parseSse } from '../src/invoke/streams/sse.js';

const retryAfter = JSON.parse(
  readFileSync(new URL('./vectors/retry-after.json', import.meta.url), 'utf8'),
) as {
  now: number;
  cases: Array<{ value: string; expectMs: number | null }>;
};

async function* pieces(text: string, cuts: number[]): AsyncGenerator<string> {
  let at = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut > at && cut < text.length) {
      yield text.slice(at, cut);
      at = cut;
    }
  }
  yield text.slice(at);
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

describe('Retry-After', () => {
  for (const { value, expectMs } of retryAfter.cases) {
    test(`${JSON.stringify(value)} → ${expectMs ?? 'ignored'}`, () => {
      assert.equal(parseRetryAfter(value, retryAfter.now), expectMs ?? undefined);
    });
  }

  test('absent values are ignored', () => {
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  test('delay-seconds round-trip', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 ** 9 }), (seconds) => parseRetryAfter(String(seconds)) === seconds * 1000),
    );
  });

  test('IMF-fixdates round-trip to the wait until them, and past dates mean now', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        (atSeconds, nowSeconds) => {
          const at = atSeconds * 1000;
          const now = nowSeconds * 1000;
          return parseRetryAfter(new Date(at).toUTCString(), now) === Math.max(0, at - now);
        },
      ),
    );
  });

  test('any string gives a non-negative wait or nothing, and never throws', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const wait = parseRetryAfter(value);
        return wait === undefined || (Number.isSafeInteger(wait) && wait >= 0);
      }),
    );
  });
});

describe('NDJSON', () => {
  const values = fc.array(fc.jsonValue() as fc.Arbitrary<JsonValue>, { maxLength: 8 });

  test('the same values however the stream is cut, with LF or CRLF and blank lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        values,
        fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\n\n'),
        async (items, cuts, newline) => {
          const text =
            items.map((item) => JSON.stringify(item)).join(newline) + (items.length > 0 ? newline : '');
          const parsed = await collect(parseNdjson(pieces(text, cuts)));
          assert.deepEqual(parsed, JSON.parse(JSON.stringify(items)));
        },
      ),
    );
  });

  test('a line that is not JSON is an error, a line over the limit too', async () => {
    await assert.rejects(collect(parseNdjson(pieces('{"a":1}\n{oops}\n', []))), StreamFormatError);
    await assert.rejects(
      collect(parseNdjson(pieces(`"${'x'.repeat(100)}"`, [10, 20]), 50)),
      (error: unknown) => error instanceof StreamFormatError && error.kind === 'too-large',
    );
  });
});

describe('SSE', () => {
  const event = fc.record({
    event: fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }),
    id: fc.option(fc.stringMatching(/^[a-z0-9]{1,6}$/), { nil: undefined }),
    data: fc.jsonValue() as fc.Arbitrary<JsonValue>,
  });

  test('the same events however the stream is cut; JSON data parsed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 6 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
        async (events, cuts) => {
          const text = events
            .map(
              (e) =>
                `${e.event === undefined ? '' : `event: ${e.event}\n`}${e.id === undefined ? '' : `id: ${e.id}\n`}data: ${JSON.stringify(e.data)}\n\n`,
            )
            .join('');
          const parsed = await collect(parseSse(pieces(text, cuts)));
          assert.deepEqual(
            parsed,
            events.map((e) => ({
              event: e.event ?? 'message',
              data: JSON.parse(JSON.stringify(e.data)),
              ...(e.id === undefined ? {} : { id: e.id }),
            })),
          );
        },
      ),
    );
  });

  test('multi-line data is joined with newlines, and kept as text when it is not JSON', async () => {
    const parsed = await collect(parseSse(pieces('data: first\ndata: second\n\n', [3, 9])));
    assert.deepEqual(parsed, [{ event: 'message', data: 'first\nsecond' }]);
  });
});

describe('error bodies', () => {
  test('any JSON value reads, and makes an AgentError, without throwing', () => {
    fc.assert(
      fc.property(
        fc.jsonValue() as fc.Arbitrary<JsonValue>,
        fc.option(fc.integer({ min: 100, max: 599 })),
        (value, status) => {
          const body = readErrorValue(value);
          const error = agentErrorFrom(body, {}, status === null ? {} : { status });
          return error instanceof AgentError && typeof error.message === 'string' && error.message.length > 0;
        },
      ),
    );
  });

  test('any text reads without throwing, and is bounded', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2000 }),
        fc.option(fc.constantFrom('application/json', 'text/plain')),
        (text, type) => {
          const body = readErrorBody(text, type);
          return body.detail === undefined || body.detail.length <= 501;
        },
      ),
    );
  });

  test('objects shaped like errors are read whatever their members hold', () => {
    const member = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object());
    fc.assert(
      fc.property(
        fc.record(
          {
            error: fc.oneof(
              member,
              fc.record({ code: member, message: member, data: member }, { requiredKeys: [] }),
            ),
            type: member,
            status: member,
            errors: fc.oneof(
              member,
              fc.array(fc.record({ pointer: member, detail: member }, { requiredKeys: [] })),
            ),
          },
          { requiredKeys: [] },
        ),
        (value) => {
          const body = readErrorValue(value as JsonValue);
          return body.status === undefined || (body.status >= 100 && body.status <= 599);
        },
      ),
    );
  });
});
