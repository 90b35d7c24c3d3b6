/**
 * The crawl compares stored due times as text where it can: the answer is always the one parsing them gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isAfter, isoTime } from '../../src/crawl/iso-time.js';

const MAX_TIME = 8.64e15;
const time = fc.oneof(
  fc.integer({ min: -MAX_TIME - 5, max: MAX_TIME + 5 }),
  fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2040-01-01') }),
);

/** Times a Date holds. */
const valid = time.filter((t) => Math.abs(t) <= MAX_TIME);

test('isoTime is toISOString, for the same time asked again or another', () => {
  fc.assert(
    fc.property(valid, valid, (a, b) => {
      assert.equal(isoTime(a), new Date(a).toISOString());
      assert.equal(isoTime(a), new Date(a).toISOString());
      assert.equal(isoTime(b), new Date(b).toISOString());
    }),
    { seed: 20 },
  );
});

test('isAfter answers as comparing the parsed times, for stored times in any form', () => {
  const stored = fc.oneof(
    valid.map((t) => new Date(t).toISOString()),
    valid.map((t) => new Date(t).toUTCString()),
    valid.map((t) => new Date(t).toISOString().replace('.000Z', 'Z')),
    fc.string(),
  );
  fc.assert(
    fc.property(stored, time, (at, now) => {
      assert.equal(isAfter(at, now), Date.parse(at) > now, `${at} after ${now}`);
    }),
    { numRuns: 2000, seed: 20 },
  );
  // Times a millisecond or two apart, or the same: the boundary of "after" (also just past the times a Date holds,
  // where the stored time is still after a time before it).
  const near = fc.tuple(valid, fc.integer({ min: -2, max: 2 }));
  fc.assert(
    fc.property(near, ([at, delta]) => {
      assert.equal(isAfter(new Date(at).toISOString(), at + delta), delta < 0);
    }),
    { seed: 20 },
  );
  assert.equal(isAfter(new Date(-MAX_TIME + 1).toISOString(), -MAX_TIME - 1), true);
  assert.equal(isAfter(new Date(MAX_TIME - 1).toISOString(), MAX_TIME + 1), false);
});
