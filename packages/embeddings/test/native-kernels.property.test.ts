/**
 * The native kernels (native/) that USE-lite runs on compute what plain loops compute, for any shape (panels of 32
 * columns and tiles of 6 or 8 rows, with and without remainders): the float32 multiply with and without bias and
 * ReLU, on every register tile this CPU runs (AVX-512, AVX2, portable; the narrower ones in a child process each),
 * the int8 multiply on VNNI and on AVX2,
 * the int8 and bfloat16 multiplies to within their rounding, layer normalisation (with a residual added first or
 * not), the mean of rows and self-attention; and they refuse
 * arguments that do not fit instead of reading past an array.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { loadNativeKernels, type NativeKernels, packColumns } from '../src/use-lite/index.js';

const loaded = loadNativeKernels();

function kernels(): NativeKernels {
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

/** A deterministic stream of numbers in [-0.5, 0.5) from a seed. */
function numbers(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

interface ProductCase {
  m: number;
  k: number;
  n: number;
  relu: boolean;
  a: Float32Array;
  b: Float32Array;
  bias: Float32Array | undefined;
}

/** Random products: m×k by k×n, with or without a bias and ReLU, from the shapes given. */
function productCases(shapes: { m: fc.Arbitrary<number>; k: fc.Arbitrary<number>; n: fc.Arbitrary<number> }) {
  return fc
    .record({ ...shapes, bias: fc.boolean(), relu: fc.boolean(), seed: fc.integer() })
    .map(({ m, k, n, bias, relu, seed }): ProductCase => {
      const random = numbers(seed);
      const a = Float32Array.from({ length: m * k }, random);
      const b = Float32Array.from({ length: k * n }, random);
      return { m, k, n, relu, a, b, bias: bias ? Float32Array.from({ length: n }, random) : undefined };
    });
}

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(
    Math.abs(actual - expected) <= tolerance * (1 + Math.abs(expected)),
    `${what} = ${actual}, expected ${expected}`,
  );

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

test('the native kernels are built (npm install builds them; without them USE-lite runs on TF.js, 10-25× slower)', () => {
  assert.ok(!(loaded instanceof Error), loaded instanceof Error ? loaded.message : '');
});

const FLOAT_PRODUCTS = 'float32 products match a plain loop for any shape, bias and ReLU';
/** The float kernel this process was asked to run (in the child processes of the test below). */
const askedFloatKernel = process.env['AGENTRY_FLOAT_KERNEL'];

test(FLOAT_PRODUCTS, () => {
  const { matmul, floatKernel } = kernels();
  if (askedFloatKernel !== undefined) assert.equal(floatKernel, askedFloatKernel);
  const cases = productCases({
    m: fc.integer({ min: 0, max: 20 }),
    k: fc.integer({ min: 0, max: 70 }),
    n: fc.integer({ min: 0, max: 100 }),
  });
  fc.assert(
    fc.property(cases, ({ m, k, n, relu, a, b, bias: offsets }) => {
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

/**
 * Runs one test of this file in a test run of its own under `env` (not as a child of this run, which
 * NODE_TEST_CONTEXT would make it), and asserts that it ran and passed.
 */
function passesUnder(name: string, env: Record<string, string>, what: string): void {
  const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-reporter=tap',
      `--test-name-pattern=^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
      fileURLToPath(import.meta.url),
    ],
    { env: { ...inherited, ...env }, encoding: 'utf8' },
  );
  assert.equal(child.status, 0, `${what}:\n${child.stdout}${child.stderr}`);
  assert.match(child.stdout, /# pass 1\b/, `${what}: the test ran and passed`);
}

/** Whether this process is a run under a narrower kernel than the CPU's (one started by passesUnder). */
const underNarrowerKernel =
  askedFloatKernel !== undefined || process.env['AGENTRY_INT8_KERNEL'] !== undefined;

test('float32 products match a plain loop on each narrower register tile this CPU runs', (t) => {
  if (underNarrowerKernel) {
    t.diagnostic('this is the run under one narrower kernel');
    return;
  }
  const narrower: Record<string, string[]> = {
    avx512: ['avx2', 'portable'],
    avx2: ['portable'],
    portable: [],
  };
  for (const kind of narrower[kernels().floatKernel]!) {
    passesUnder(FLOAT_PRODUCTS, { AGENTRY_FLOAT_KERNEL: kind }, `on the ${kind} tile`);
  }
});

test('arguments that do not fit are refused', () => {
  const { matmul, layerNorm, meanRows, attention, quantizeColumns } = kernels();
  const a = new Float32Array(6);
  const b = packColumns(new Float32Array(6), 3, 2);
  const c = new Float32Array(4);
  assert.throws(() => matmul(a, b, new Float32Array(3), 2, 3, 2, null, false), /shorter than its dimensions/);
  assert.throws(() => matmul(a, new Float32Array(6), c, 2, 3, 2, null, false), /shorter than its dimensions/);
  assert.throws(() => matmul(a, b, c, 2, 3, 2, new Float32Array(1), false), /bias must be null or n floats/);
  assert.throws(() => matmul(a, b, c, 2, 3.5, 2, null, false), /non-negative integers/);
  assert.throws(() => matmul(a, b, c, -1, 3, 2, null, false), /non-negative integers/);
  const floats64 = new Float64Array(6) as unknown as Float32Array;
  assert.throws(() => matmul(floats64, b, c, 2, 3, 2, null, false), /Float32Arrays/);
  assert.throws(() => matmul(a, b, c, 2, 3, 2, floats64, false), /bias must be/);
  matmul(a, b, c, 2, 3, 2, null, false);
  assert.deepEqual([...c], [0, 0, 0, 0]);
  const row = new Float32Array(8);
  assert.throws(
    () => layerNorm(row, new Float32Array(4), 2, 4, row, row, 1e-6, null),
    /shorter than its dimensions/,
  );
  assert.throws(() => layerNorm(row, row, 2, 4, row, row, 0, null), /epsilon/);
  assert.throws(
    () => layerNorm(row, row, 2, 4, row, row, 1e-6, new Float32Array(7)),
    /shorter than its dimensions/,
  );
  assert.throws(() => layerNorm(row, row, 2, 4, row, row, 1e-6, floats64), /residual must be null or/);
  assert.throws(() => meanRows(row, 3, 4, new Float32Array(4)), /shorter than its dimensions/);
  assert.throws(() => meanRows(row, 2, 4, new Float32Array(3)), /shorter than its dimensions/);
  assert.throws(() => attention(new Float32Array(11), row, 1, 4, 2, 1), /shorter than its dimensions/);
  assert.throws(() => attention(new Float32Array(12), row, 1, 4, 3, 1), /heads dividing width/);
  const weights = new Float32Array(4 * 32);
  const packed = new Int8Array(4 * 32);
  assert.throws(
    () => quantizeColumns(weights, 3, 32, packed, new Float32Array(32), new Int32Array(32)),
    /multiple/,
  );
  assert.throws(
    () => quantizeColumns(weights, 4, 32, packed, new Float32Array(31), new Int32Array(32)),
    /shorter/,
  );
});

test('layer normalisation, with and without a residual added first, matches a plain loop', () => {
  const { layerNorm } = kernels();
  const shape = fc.record({
    rows: fc.integer({ min: 0, max: 6 }),
    width: fc.integer({ min: 1, max: 80 }),
    withResidual: fc.boolean(),
    seed: fc.integer(),
  });
  fc.assert(
    fc.property(shape, ({ rows, width, withResidual, seed }) => {
      const random = numbers(seed);
      const original = Float32Array.from({ length: rows * width }, () => random() * 8);
      const residual = withResidual ? Float32Array.from({ length: rows * width }, () => random() * 8) : null;
      const scale = Float32Array.from({ length: width }, random);
      const bias = Float32Array.from({ length: width }, random);
      const input = original.slice();
      const output = new Float32Array(rows * width);
      layerNorm(input, output, rows, width, scale, bias, 1e-6, residual);
      const summed = original.map((value, i) => Math.fround(value + (residual?.[i] ?? 0)));
      assert.deepEqual(input, summed, 'the input keeps the sum');
      for (let r = 0; r < rows; r++) {
        const x = [...summed.subarray(r * width, (r + 1) * width)];
        const mean = x.reduce((sum, v) => sum + v, 0) / width;
        const variance = x.reduce((sum, v) => sum + (v - mean) ** 2, 0) / width;
        for (let i = 0; i < width; i++) {
          const expected = ((x[i]! - mean) / Math.sqrt(variance + 1e-6)) * scale[i]! + bias[i]!;
          close(output[r * width + i]!, expected, 1e-4, `row ${r}[${i}]`);
        }
      }
    }),
    { numRuns: 200 },
  );
});

test('the mean of rows matches a plain loop (zeros for no rows)', () => {
  const { meanRows } = kernels();
  const shape = fc.record({
    rows: fc.integer({ min: 0, max: 130 }),
    width: fc.integer({ min: 1, max: 100 }),
    seed: fc.integer(),
  });
  fc.assert(
    fc.property(shape, ({ rows, width, seed }) => {
      const random = numbers(seed);
      const matrix = Float32Array.from({ length: rows * width }, () => random() * 8);
      const out = Float32Array.from({ length: width }, () => 99);
      meanRows(matrix, rows, width, out);
      for (let i = 0; i < width; i++) {
        let sum = 0;
        for (let r = 0; r < rows; r++) sum += matrix[r * width + i]!;
        close(out[i]!, sum / Math.max(rows, 1), 1e-4, `column ${i}`);
      }
    }),
    { numRuns: 200 },
  );
});

test('self-attention matches a plain loop for any number of tokens and heads, and any spread of scores', () => {
  const { attention } = kernels();
  const shape = fc.record({
    t: fc.integer({ min: 1, max: 70 }),
    heads: fc.integer({ min: 1, max: 4 }),
    depth: fc.integer({ min: 1, max: 40 }),
    // Wide spreads give scores hundreds apart, whose exponentials reach float32's underflow; float32 scores that
    // large are themselves only good to a few parts in 10,000, hence the looser bound there.
    spread: fc.constantFrom(4, 40),
    seed: fc.integer(),
  });
  fc.assert(
    fc.property(shape, ({ t, heads, depth, spread, seed }) => {
      const random = numbers(seed);
      const width = heads * depth;
      const qkv = Float32Array.from({ length: t * 3 * width }, () => random() * spread);
      const out = new Float32Array(t * width);
      attention(qkv, out, t, width, heads, 0.25);
      const at = (token: number, part: number, h: number, d: number) =>
        qkv[token * 3 * width + part * width + h * depth + d]!;
      for (let h = 0; h < heads; h++) {
        for (let i = 0; i < t; i++) {
          const scores = Array.from({ length: t }, (_, j) => {
            let dot = 0;
            for (let d = 0; d < depth; d++) dot += at(i, 0, h, d) * 0.25 * at(j, 1, h, d);
            return dot;
          });
          const max = Math.max(...scores);
          const weights = scores.map((score) => Math.exp(score - max));
          const sum = weights.reduce((a, b) => a + b, 0);
          for (let d = 0; d < depth; d++) {
            const expected = weights.reduce((acc, w, j) => acc + (w / sum) * at(j, 2, h, d), 0);
            close(
              out[i * width + h * depth + d]!,
              expected,
              spread === 4 ? 1e-4 : 3e-3,
              `head ${h} token ${i} [${d}]`,
            );
          }
        }
      }
    }),
    { numRuns: 150 },
  );
});

const INT8_PRODUCTS =
  'int8 products are within their quantisation of the float products (on AVX-512 VNNI or AVX2)';

test(INT8_PRODUCTS, (t) => {
  const { int8, int8Kernel, quantizeColumns, matmulInt8 } = kernels();
  const asked = process.env['AGENTRY_INT8_KERNEL'];
  if (asked !== undefined) assert.equal(int8Kernel, asked);
  if (!int8) {
    // The float32 engine serves such a machine; the engines test covers which one is chosen.
    t.diagnostic('this CPU has neither AVX-512 VNNI nor AVX2: matmulInt8 refuses to run');
    assert.throws(
      () =>
        matmulInt8(
          new Float32Array(4),
          new Int8Array(128),
          new Float32Array(32),
          new Int32Array(32),
          new Float32Array(32),
          1,
          4,
          32,
          null,
          false,
        ),
      /VNNI nor AVX2/,
    );
    return;
  }
  // A row of a is quantised over its range to 256 steps on VNNI, 128 on AVX2.
  const rowSteps = int8Kernel === 'avx2' ? 127 : 255;
  const cases = productCases({
    m: fc.integer({ min: 0, max: 20 }),
    k: fc.integer({ min: 1, max: 40 }).map((x) => 4 * x),
    n: fc.integer({ min: 1, max: 3 }).map((x) => 32 * x),
  });
  fc.assert(
    fc.property(cases, ({ m, k, n, relu, a, b, bias: offsets }) => {
      const packed = new Int8Array(k * n);
      const scales = new Float32Array(n);
      const sums = new Int32Array(n);
      quantizeColumns(b, k, n, packed, scales, sums);
      const c = new Float32Array(m * n).fill(Number.NaN);
      matmulInt8(a, packed, scales, sums, c, m, k, n, offsets ?? null, relu);
      const expected = reference(a, b, m, k, n, offsets);
      for (let i = 0; i < m * n; i++) {
        const want = relu ? Math.max(0, expected[i]!) : expected[i]!;
        // Each operand is off by at most half a step of its scale: at most 2 · max |x| / rowSteps for a row of a,
        // scales[j] for b.
        const row = Math.floor(i / n);
        const column = i % n;
        const rowValues = [...a.subarray(row * k, (row + 1) * k)];
        const rowScale = (2 * Math.max(...rowValues.map(Math.abs))) / rowSteps;
        const columnScale = scales[column]!;
        let bound = 1e-5;
        for (let p = 0; p < k; p++) {
          bound += (Math.abs(rowValues[p]!) * columnScale + Math.abs(b[p * n + column]!) * rowScale) / 2;
          bound += (rowScale * columnScale) / 4;
        }
        assert.ok(Math.abs(c[i]! - want) <= bound, `c[${i}] = ${c[i]}, expected ${want} ± ${bound}`);
      }
    }),
    { numRuns: 200 },
  );
});

test('int8 products are within their quantisation on the AVX2 path too, where the CPU has VNNI', (t) => {
  if (underNarrowerKernel || kernels().int8Kernel !== 'avx512-vnni') {
    t.diagnostic(`the int8 products test ran on this CPU's only int8 path (${kernels().int8Kernel})`);
    return;
  }
  passesUnder(INT8_PRODUCTS, { AGENTRY_INT8_KERNEL: 'avx2' }, 'on the AVX2 path');
});

test('bfloat16 products are within their rounding of the float products (where the CPU has AVX-512 BF16)', (t) => {
  const { bf16, packBf16, matmulBf16 } = kernels();
  if (!bf16) {
    // The int8 or float32 engine serves such a machine; the engines test covers which one is chosen.
    t.diagnostic('this CPU has no AVX-512 BF16: matmulBf16 refuses to run');
    assert.throws(
      () => matmulBf16(new Float32Array(2), new Uint16Array(64), new Float32Array(32), 1, 2, 32, null, false),
      /BF16/,
    );
    return;
  }
  const cases = productCases({
    m: fc.integer({ min: 0, max: 20 }),
    k: fc.integer({ min: 1, max: 60 }).map((x) => 2 * x),
    n: fc.integer({ min: 1, max: 3 }).map((x) => 32 * x),
  });
  fc.assert(
    fc.property(cases, ({ m, k, n, relu, a, b, bias: offsets }) => {
      const packed = new Uint16Array(k * n);
      packBf16(b, k, n, packed);
      const c = new Float32Array(m * n).fill(Number.NaN);
      matmulBf16(a, packed, c, m, k, n, offsets ?? null, relu);
      const expected = reference(a, b, m, k, n, offsets);
      for (let i = 0; i < m * n; i++) {
        const want = relu ? Math.max(0, expected[i]!) : expected[i]!;
        // Rounded to 8 significant bits, each operand is off by at most 2^-8 of itself, a product by about 2^-7.
        const row = Math.floor(i / n);
        const column = i % n;
        let bound = 1e-5;
        for (let p = 0; p < k; p++) bound += Math.abs(a[row * k + p]! * b[p * n + column]!) * 2 ** -7 * 1.01;
        assert.ok(Math.abs(c[i]! - want) <= bound, `c[${i}] = ${c[i]}, expected ${want} ± ${bound}`);
      }
    }),
    { numRuns: 200 },
  );
});

test('bfloat16 products of values bfloat16 holds exactly are exact, so every weight lands in its place', (t) => {
  const { bf16, packBf16, matmulBf16 } = kernels();
  if (!bf16) {
    t.diagnostic('this CPU has no AVX-512 BF16');
    return;
  }
  // Small integers are exact in bfloat16, and so are their products' float32 sums: any misplaced weight shows.
  const shape = fc.record({
    m: fc.integer({ min: 1, max: 17 }),
    k: fc.integer({ min: 1, max: 40 }).map((x) => 2 * x),
    n: fc.integer({ min: 1, max: 3 }).map((x) => 32 * x),
    seed: fc.integer(),
  });
  fc.assert(
    fc.property(shape, ({ m, k, n, seed }) => {
      const random = numbers(seed);
      const a = Float32Array.from({ length: m * k }, () => Math.round(random() * 16));
      const b = Float32Array.from({ length: k * n }, () => Math.round(random() * 16));
      const packed = new Uint16Array(k * n);
      packBf16(b, k, n, packed);
      const c = new Float32Array(m * n);
      matmulBf16(a, packed, c, m, k, n, null, false);
      assert.deepEqual([...c], [...reference(a, b, m, k, n)]);
    }),
    { numRuns: 100 },
  );
  const packed = new Uint16Array(4 * 32);
  assert.throws(() => packBf16(new Float32Array(3 * 32), 3, 32, packed), /even/);
  assert.throws(() => packBf16(new Float32Array(4 * 32), 4, 30, packed), /multiple of 32/);
  assert.throws(
    () => matmulBf16(new Float32Array(3), packed, new Float32Array(32), 1, 4, 32, null, false),
    /shorter than its dimensions/,
  );
  assert.throws(
    () =>
      matmulBf16(
        new Float32Array(4),
        new Int16Array(128) as unknown as Uint16Array,
        new Float32Array(32),
        1,
        4,
        32,
        null,
        false,
      ),
    /Uint16Array/,
  );
});
