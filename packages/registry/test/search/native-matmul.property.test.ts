/**
 * The native matrix multiply (native/gemm.cc) that USE-lite runs on gives the products a plain loop gives, for
 * any shape (panels of 32 columns and tiles of 8 rows, with and without remainders), with and without bias and
 * ReLU, and refuses arguments that do not fit instead of reading past an array.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadNativeMatmul, packColumns } from '../../src/search/embeddings/native-matmul.js';

const matmul = loadNativeMatmul();

function reference(a: Float32Array, b: Float32Array, m: number, k: number, n: number, bias?: Float32Array) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = bias?.[j] ?? 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p]! * b[p * n + j]!;
      c[i * n + j] = sum;
    }
  }
  return c;
}

test('the native multiply is built (npm install builds it; its absence would make USE-lite several times slower)', () => {
  assert.equal(typeof matmul, 'function', matmul instanceof Error ? matmul.message : '');
});

test('products match a plain loop for any shape, bias and ReLU', () => {
  if (matmul instanceof Error) throw matmul;
  const shape = fc.record({
    m: fc.integer({ min: 0, max: 20 }),
    k: fc.integer({ min: 0, max: 70 }),
    n: fc.integer({ min: 0, max: 100 }),
    bias: fc.boolean(),
    relu: fc.boolean(),
    seed: fc.integer(),
  });
  fc.assert(
    fc.property(shape, ({ m, k, n, bias, relu, seed }) => {
      let state = seed >>> 0;
      const random = () => {
        state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
        return state / 2 ** 32 - 0.5;
      };
      const a = Float32Array.from({ length: m * k }, random);
      const b = Float32Array.from({ length: k * n }, random);
      const offsets = bias ? Float32Array.from({ length: n }, random) : undefined;
      const c = new Float32Array(m * n).fill(Number.NaN);
      matmul(a, packColumns(b, k, n), c, m, k, n, offsets ?? null, relu);
      const expected = reference(a, b, m, k, n, offsets);
      for (let i = 0; i < m * n; i++) {
        const want = relu ? Math.max(0, expected[i]!) : expected[i]!;
        assert.ok(
          Math.abs(c[i]! - want) <= 1e-4 * (1 + Math.abs(want)),
          `c[${i}] = ${c[i]}, expected ${want}`,
        );
      }
    }),
    { numRuns: 300 },
  );
});

test('arguments that do not fit are refused', () => {
  if (matmul instanceof Error) throw matmul;
  const a = new Float32Array(6);
  const b = packColumns(new Float32Array(6), 3, 2);
  const c = new Float32Array(4);
  assert.throws(() => matmul(a, b, new Float32Array(3), 2, 3, 2, null, false), /shorter than its dimensions/);
  assert.throws(() => matmul(a, new Float32Array(6), c, 2, 3, 2, null, false), /shorter than its dimensions/);
  assert.throws(() => matmul(a, b, c, 2, 3, 2, new Float32Array(1), false), /shorter than its dimensions/);
  assert.throws(() => matmul(a, b, c, 2, 3.5, 2, null, false), /non-negative integers/);
  assert.throws(() => matmul(a, b, c, -1, 3, 2, null, false), /non-negative integers/);
  const floats64 = new Float64Array(6) as unknown as Float32Array;
  assert.throws(() => matmul(floats64, b, c, 2, 3, 2, null, false), /Float32Arrays/);
  assert.throws(() => matmul(a, b, c, 2, 3, 2, floats64, false), /bias must be/);
  matmul(a, b, c, 2, 3, 2, null, false);
  assert.deepEqual([...c], [0, 0, 0, 0]);
});
