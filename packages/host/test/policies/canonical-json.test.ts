/** RFC 8785 canonical JSON: member order, number and string forms, what it refuses, and its properties. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../src/signing/canonical-json.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);

describe('canonicalJson', () => {
  it('sorts members by UTF-16 code units and drops whitespace', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [3, { d: null, c: true }] }),
      '{"a":[3,{"c":true,"d":null}],"b":1}',
    );
    // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FB33 in UTF-16 but after it by code point.
    assert.equal(
      canonicalJson({ '\uFB33': 1, '\u{1F600}': 2, '\u00e9': 3, Z: 4 }),
      '{"Z":4,"\u00e9":3,"\u{1F600}":2,"\uFB33":1}',
    );
  });

  it('writes numbers in their shortest ECMAScript form', () => {
    assert.equal(
      canonicalJson([0, -0, 1, -1.5, 1e21, 1e-7, 0.1, 123456789012345680000, 5e-324]),
      '[0,0,1,-1.5,1e+21,1e-7,0.1,123456789012345680000,5e-324]',
    );
  });

  it('escapes only what JSON must, with lowercase hex', () => {
    assert.equal(
      canonicalJson('\u0000\b\t\n\f\r\u001f"\\/\u007f\u2028é😀'),
      '"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/\u007f\u2028é😀"',
    );
  });

  it('leaves out undefined members, as JSON.stringify does', () => {
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
    assert.equal(canonicalJson([undefined]), '[null]');
  });

  it('refuses numbers JSON cannot carry', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      assert.throws(() => canonicalJson({ a: [value] }), TypeError);
    }
    assert.throws(() => canonicalJson(undefined), TypeError);
  });

  it('round-trips every JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.deepEqual(JSON.parse(canonicalJson(value)), JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: runs },
    );
  });

  it('is idempotent and independent of member order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const canonical = canonicalJson(value);
        assert.equal(canonicalJson(JSON.parse(canonical)), canonical);
        assert.equal(canonicalJson(reverseMembers(value)), canonical);
      }),
      { numRuns: runs },
    );
  });

  it('never emits whitespace outside strings', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const outsideStrings = canonicalJson(value).replace(/"(?:[^"\\]|\\.)*"/g, '""');
        assert.doesNotMatch(outsideStrings, /\s/);
      }),
      { numRuns: runs },
    );
  });
});

function reverseMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseMembers);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) {
    Object.defineProperty(out, key, {
      value: reverseMembers((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
