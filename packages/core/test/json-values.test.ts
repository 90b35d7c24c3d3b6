/** Helpers that copy untrusted JSON keep every field, including ones named like Object.prototype members. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { IssueCollector } from '../src/index.js';
import { ObjectReader } from '../src/json/reader.js';
import { compact, copyJson, JsonValueSet, jsonEqual, jsonKey } from '../src/json/values.js';

const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "kept": "yes"}') as Record<
  string,
  unknown
>;

test('copyJson keeps a "__proto__" key as data and does not change the prototype', () => {
  const copy = copyJson(hostile) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ['__proto__', 'constructor', 'kept']);
  assert.equal((copy as { polluted?: unknown }).polluted, undefined);
});

test('compact drops undefined fields and keeps "__proto__" as data', () => {
  const out = compact({ ...hostile, gone: undefined });
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ['__proto__', 'constructor', 'kept']);
});

test('unknown fields kept for extensions include "__proto__"', () => {
  const reader = new ObjectReader(hostile as never, '', new IssueCollector('test'), 'test');
  const rest = reader.rest(['kept']) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(rest), Object.prototype);
  assert.deepEqual(Object.keys(rest), ['__proto__', 'constructor']);
});

test('copyJson drops what JSON cannot hold and cuts cycles', () => {
  const cyclic: Record<string, unknown> = { a: 1, f: () => 1, s: Symbol('x'), n: Number.NaN, big: 1n };
  cyclic['self'] = cyclic;
  assert.deepEqual(copyJson(cyclic), { a: 1 });
  assert.deepEqual(copyJson([1, undefined, () => 1]), [1, null, null]);
});

test('jsonKey agrees with jsonEqual: equal keys exactly for equal values, whatever the key order', () => {
  const reordered = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reordered);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).reverse())
      Object.defineProperty(out, key, {
        value: reordered((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  };
  const small = fc.jsonValue({ maxDepth: 3 });
  fc.assert(
    fc.property(small, small, (a, b) => {
      assert.equal(jsonKey(a) === jsonKey(b), jsonEqual(a, b));
      assert.equal(jsonKey(reordered(a)), jsonKey(a));
    }),
    { numRuns: 500, seed: 20 },
  );
  assert.equal(jsonKey({ a: 1, b: undefined }), jsonKey({ a: 1 }));
  assert.notEqual(jsonKey(['1']), jsonKey([1]));
  const set = new JsonValueSet([{ x: [1, { y: 2 }] }]);
  assert.equal(set.has({ x: [1, { y: 2 }] }), true);
  assert.equal(set.add({ x: [1, { y: 3 }] }), true);
  assert.equal(set.add({ x: [1, { y: 3 }] }), false);
});
