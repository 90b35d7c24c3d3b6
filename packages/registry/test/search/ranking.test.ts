import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_FUSION, fuse, rankSemantic } from '../../src/search/fusion.js';
import { QueryEmbeddingCache } from '../../src/search/semantic/query-cache.js';
import { standardize, topIndices } from '../../src/search/semantic/top-k.js';
import { VectorMatrix } from '../../src/search/semantic/vector-matrix.js';
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

describe('fusion', () => {
  const semantic = { ids: ['a', 'b', 'c', 'd'], whole: [0.9, 0.1, 0.2, 0.3], clauses: [] };

  it('puts an agent strong in both rankings first and keeps agents only one ranker found', () => {
    const hits = fuse({
      lexical: [
        { id: 'b', score: 12 },
        { id: 'a', score: 10 },
        { id: 'x', score: 1 },
      ],
      semantic,
      top: 10,
    });
    assert.equal(hits[0]?.id, 'a');
    assert.deepEqual(new Set(hits.map((hit) => hit.id)), new Set(['a', 'b', 'c', 'd', 'x']));
    const x = hits.find((hit) => hit.id === 'x')!;
    assert.equal(x.semantic, undefined);
    assert.equal(x.lexical, 1);
    assert.equal(hits.find((hit) => hit.id === 'd')!.lexical, undefined);
  });

  it('ranks the same whether the agents are placed through positionOf or found in ids (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(60), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(80), fc.float({ min: 0, max: 20, noNaN: true })), { maxLength: 30 }),
        (vectorIds, lexicalPairs) => {
          const ids = vectorIds.map((n) => `a${n}`);
          const whole = ids.map((_, i) => Math.sin(i + 1));
          const lexical = [...new Map(lexicalPairs.map(([n, score]) => [`a${n}`, score])).entries()].map(
            ([id, score]) => ({ id, score }),
          );
          const positionOf = (id: string) => (ids.includes(id) ? ids.indexOf(id) : undefined);
          const plain = fuse({ lexical, semantic: { ids, whole, clauses: [] }, top: 100 });
          const placed = fuse({ lexical, semantic: { ids, whole, clauses: [], positionOf }, top: 100 });
          assert.deepEqual(placed, plain);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('lifts agents similar to the leaders (feedback)', () => {
    const input = { lexical: [{ id: 'a', score: 5 }], semantic, top: 4 };
    const without = fuse({ ...input, settings: { ...DEFAULT_FUSION, feedbackWeight: 0 } });
    // b is last on its own; it is the one most like the leader a.
    const withFeedback = fuse({ ...input, similarToCentroid: () => [1, 0.99, 0, 0] });
    assert.equal(without[3]?.id, 'b');
    assert.equal(withFeedback[1]?.id, 'b');
  });

  it('scores a request by its best clause as well as by the whole', () => {
    const clauses = {
      ids: ['a', 'b', 'c'],
      whole: [0.5, 0.4, 0.3],
      clauses: [
        [0.5, 0.4, 0.3],
        [0, 0, 0.9],
      ],
    };
    assert.deepEqual(
      rankSemantic(clauses, 3).map((hit) => hit.id),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(
      rankSemantic({ ...clauses, clauses: [] }, 3).map((hit) => hit.id),
      ['a', 'b', 'c'],
    );
  });
});

describe('query embedding cache', () => {
  it('evicts the least recently used', () => {
    const cache = new QueryEmbeddingCache(2);
    cache.set('a', Float32Array.of(1));
    cache.set('b', Float32Array.of(2));
    assert.ok(cache.get('a'));
    cache.set('c', Float32Array.of(3));
    assert.equal(cache.get('b'), undefined);
    assert.ok(cache.get('a') && cache.get('c'));
    assert.equal(cache.size, 2);
    const off = new QueryEmbeddingCache(0);
    off.set('a', Float32Array.of(1));
    assert.equal(off.get('a'), undefined);
  });
});
