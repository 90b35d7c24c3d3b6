/** Top-k selection, standardising, and the int8 vector matrix against exact cosine similarities. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { standardize, topIndices, VectorMatrix } from '../src/index.js';
import { cosine } from './helpers.js';

describe('top-k and standardising', () => {
  it('returns the indexes of the k best, best first (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { maxLength: 200 }),
        fc.nat(30),
        (scores, k) => {
          const top = topIndices(scores, k);
          const expected = scores
            .map((score, i) => ({ score, i }))
            .sort((a, b) => b.score - a.score)
            .slice(0, k)
            .map((entry) => entry.score);
          assert.deepEqual(
            top.map((i) => scores[i]),
            expected,
          );
          assert.equal(new Set(top).size, top.length);
        },
      ),
    );
  });

  it('gives z-scores, and zeros for constant input', () => {
    assert.deepEqual(Array.from(standardize([1, 2, 3])), [-Math.sqrt(1.5), 0, Math.sqrt(1.5)]);
    assert.deepEqual(Array.from(standardize([4, 4])), [0, 0]);
    assert.deepEqual(Array.from(standardize([])), []);
  });
});

describe('vector matrix', () => {
  it('stores unit vectors, scores them, and stays contiguous on delete', () => {
    const matrix = new VectorMatrix(2, { initialCapacity: 1 });
    assert.equal(matrix.accelerated, false);
    matrix.set('a', Float32Array.of(3, 4));
    matrix.set('b', Float32Array.of(0, 2));
    matrix.set('c', Float32Array.of(1, 0));
    matrix.set('a', Float32Array.of(1, 0));
    assert.equal(matrix.size, 3);
    const round = (values: Float32Array) => Array.from(values, (v) => Math.round(v * 1000) / 1000);
    let { ids, scores } = matrix.similarities([Float32Array.of(1, 0), Float32Array.of(0, 1)]);
    assert.deepEqual(ids, ['a', 'b', 'c']);
    assert.deepEqual(scores.map(round), [
      [1, 0, 1],
      [0, 1, 0],
    ]);
    matrix.delete('a');
    matrix.delete('missing');
    ({ ids, scores } = matrix.similarities([Float32Array.of(0, 1)]));
    assert.deepEqual(ids, ['c', 'b']);
    assert.deepEqual(scores.map(round), [[0, 1]]);
    ({ ids } = matrix.similarities([Float32Array.of(0, 1)], { candidates: new Set(['b', 'zz']) }));
    assert.deepEqual(ids, ['b']);
    ({ ids } = matrix.similarities([Float32Array.of(0, 1)], { excluded: new Set(['b', 'zz']) }));
    assert.deepEqual(ids, ['c']);
    ({ ids } = matrix.similarities([Float32Array.of(0, 1)], {
      candidates: new Set(['b', 'c']),
      excluded: new Set(['c']),
    }));
    assert.deepEqual(ids, ['b']);
    const centroid = matrix.centroid(['b', 'c', 'zz'])!;
    assert.ok(Math.abs(centroid[0]! - Math.SQRT1_2) < 1e-6 && Math.abs(centroid[1]! - Math.SQRT1_2) < 1e-6);
    assert.equal(matrix.centroid(['zz']), undefined);
    assert.throws(() => matrix.set('d', Float32Array.of(1, 2, 3)), /3 dimensions, the index 2/);
  });

  it('scores the same in the SIMD kernel as in JavaScript, through growth, deletes and candidates (property)', () => {
    const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 1, maxLength: 40 }),
        vector,
        fc.array(fc.nat(39)),
        (rows, query, removed) => {
          const simd = new VectorMatrix(32, { initialCapacity: 2 });
          const plain = new VectorMatrix(32, { initialCapacity: 2, simd: false });
          assert.equal(simd.accelerated, true);
          rows.forEach((row, i) => {
            simd.set(`r${i}`, Float32Array.from(row));
            plain.set(`r${i}`, Float32Array.from(row));
          });
          for (const i of removed) {
            simd.delete(`r${i}`);
            plain.delete(`r${i}`);
          }
          const q = Float32Array.from(query);
          const candidates = new Set(rows.map((_, i) => `r${i}`).filter((_, i) => i % 3 !== 1));
          const excluded = new Set(rows.map((_, i) => `r${i}`).filter((_, i) => i % 4 === 2));
          for (const subset of [undefined, { candidates }, { excluded }, { candidates, excluded }]) {
            const a = simd.similarities([q, q], subset);
            const b = plain.similarities([q], subset);
            assert.deepEqual(a.ids, b.ids);
            const inScope = rows
              .map((_, i) => `r${i}`)
              .filter((id, i) => !removed.includes(i) && (subset?.candidates?.has(id) ?? true))
              .filter((id) => !subset?.excluded?.has(id));
            assert.deepEqual([...a.ids].sort(), inScope.sort());
            // Fusion places lexical matches through positionOf: it must agree with the ids it came with.
            for (let i = 0; i < rows.length; i++) {
              const at = a.ids.indexOf(`r${i}`);
              assert.equal(a.positionOf(`r${i}`), at === -1 ? undefined : at);
            }
            assert.equal(a.positionOf('absent'), undefined);
            // Both sum the same integers: the scores are equal, not merely close.
            assert.deepEqual(a.scores[1], b.scores[0]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('vector matrix precision', () => {
  /** Half a rounding step of each side, times the other side's L1 norm (both unit vectors), plus float error. */
  const roundingBound = (a: readonly number[], b: readonly number[]) => {
    const unit = (v: readonly number[]) => {
      const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
      return v.map((x) => x / norm);
    };
    const [ua, ub] = [unit(a), unit(b)];
    const largest = (v: number[]) => Math.max(...v.map(Math.abs));
    const l1 = (v: number[]) => v.reduce((sum, x) => sum + Math.abs(x), 0);
    return ((0.5 * largest(ua)) / 127) * l1(ub) + ((0.5 * largest(ub)) / 4096) * l1(ua) + 1e-5;
  };

  it('scores within the rounding of int8 rows and int16 queries of the exact cosine similarity (property)', () => {
    const component = fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true });
    const vector = fc
      .array(component, { minLength: 64, maxLength: 64 })
      .filter((v) => v.some((x) => x !== 0));
    fc.assert(
      fc.property(fc.array(vector, { minLength: 1, maxLength: 8 }), vector, (rows, query) => {
        for (const simd of [true, false]) {
          const matrix = new VectorMatrix(64, { simd });
          for (const [i, row] of rows.entries()) matrix.set(`r${i}`, Float32Array.from(row));
          const { scores } = matrix.similarities([Float32Array.from(query)]);
          rows.forEach((row, i) => {
            const exact = cosine(row, query);
            const error = Math.abs(scores[0]![i]! - exact);
            assert.ok(error <= roundingBound(row, query), `${scores[0]![i]} against ${exact}`);
          });
        }
      }),
      { numRuns: 100 },
    );
  });

  it('scores embedding-like vectors within 0.002 of the exact cosine similarity', () => {
    // 512 components of one order of magnitude (as USE-lite's are), from a fixed pseudo-random sequence.
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    const rows = Array.from({ length: 200 }, () => Array.from({ length: 512 }, next));
    const query = Array.from({ length: 512 }, next);
    const matrix = new VectorMatrix(512);
    for (const [i, row] of rows.entries()) matrix.set(`r${i}`, Float32Array.from(row));
    const { scores } = matrix.similarities([Float32Array.from(query)]);
    for (const [i, row] of rows.entries()) assert.ok(Math.abs(scores[0]![i]! - cosine(row, query)) < 0.002);
  });

  it('does not overflow on wide vectors whose components are all as large as they can be', () => {
    for (const dims of [512, 1536, 3072]) {
      const matrix = new VectorMatrix(dims);
      assert.equal(matrix.accelerated, true);
      const flat = new Float32Array(dims).fill(1);
      const alternating = flat.map((_, i) => (i % 2 === 0 ? 1 : -1));
      matrix.set('flat', flat);
      matrix.set(
        'negated',
        flat.map((value) => -value),
      );
      matrix.set('alternating', alternating);
      const [scores] = matrix.similarities([flat]).scores;
      assert.ok(Math.abs(scores![0]! - 1) < 1e-4, `${dims}: ${scores![0]}`);
      assert.ok(Math.abs(scores![1]! + 1) < 1e-4, `${dims}: ${scores![1]}`);
      assert.ok(Math.abs(scores![2]!) < 1e-4, `${dims}: ${scores![2]}`);
    }
  });

  it('scores a zero or non-finite vector 0 against everything', () => {
    const matrix = new VectorMatrix(32);
    matrix.set('zero', new Float32Array(32));
    matrix.set('nan', new Float32Array(32).fill(Number.NaN));
    matrix.set('one', new Float32Array(32).fill(1));
    const { scores } = matrix.similarities([new Float32Array(32).fill(1)]);
    assert.deepEqual(
      Array.from(scores[0]!, (score) => Math.round(score * 1000) / 1000),
      [0, 0, 1],
    );
  });
});
