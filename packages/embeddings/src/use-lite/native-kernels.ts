/**
 * The native kernels (`native/`, built by node-gyp when the package is installed) that the USE-lite encoder runs
 * on: float32, int8 and bfloat16 matrix multiplies, layer normalisation (with the residual added first), row means
 * and self-attention. Where they were not built (no C++ toolchain), this says why and USE-lite runs on TF.js
 * instead.
 */
import { createRequire } from 'node:module';

/** c[m×n] = a[m×k] · b[k×n] (+ bias[n]) (then max(0, ·)), a and c row-major, b packed as the multiply reads it. */
type Product<Packed> = (
  a: Float32Array,
  b: Packed,
  c: Float32Array,
  m: number,
  k: number,
  n: number,
  bias: Float32Array | null,
  relu: boolean,
) => void;

/** The float32 product, b in column panels (packColumns). */
export type Matmul = Product<Float32Array>;

/**
 * Normalises each row of input[rows × width] into output: (x - mean) / sqrt(variance + epsilon) · scale + bias.
 * With a residual (rows × width), input += residual first and keeps the sum: a residual connection and the
 * normalisation after it in one pass.
 */
export type LayerNorm = (
  input: Float32Array,
  output: Float32Array,
  rows: number,
  width: number,
  scale: Float32Array,
  bias: Float32Array,
  epsilon: number,
  residual: Float32Array | null,
) => void;

/** out[width] = the mean of the rows of matrix[rows × width] (zeros when rows is 0). */
export type MeanRows = (matrix: Float32Array, rows: number, width: number, out: Float32Array) => void;

/**
 * Self-attention of t tokens: qkv[t × 3·width] holds each token's query, key and value side by side; for each of
 * `heads` heads (width / heads columns each), out = softmax((q · scale) · kᵀ) · v, into out[t × width].
 */
export type Attention = (
  qkv: Float32Array,
  out: Float32Array,
  t: number,
  width: number,
  heads: number,
  scale: number,
) => void;

/**
 * Quantises a row-major k×n float matrix (k a multiple of 4, n of PANEL) for matmulInt8: each column scaled by its
 * largest magnitude to int8 (scales), in panels (packed, k·n bytes), with each column's sum of quantised values.
 */
export type QuantizeColumns = (
  b: Float32Array,
  k: number,
  n: number,
  packed: Int8Array,
  scales: Float32Array,
  sums: Int32Array,
) => void;

/** c = a · b as Matmul, with b from quantizeColumns and each row of a quantised to int8 by its own scale. */
export type MatmulInt8 = (
  a: Float32Array,
  packed: Int8Array,
  scales: Float32Array,
  sums: Int32Array,
  c: Float32Array,
  m: number,
  k: number,
  n: number,
  bias: Float32Array | null,
  relu: boolean,
) => void;

/** Rounds a row-major k×n float matrix (k even, n a multiple of PANEL) to bfloat16 panels for matmulBf16. */
export type PackBf16 = (b: Float32Array, k: number, n: number, packed: Uint16Array) => void;

/** c = a · b as Matmul, with b from packBf16 and each row of a rounded to bfloat16; sums in float32. */
export type MatmulBf16 = Product<Uint16Array>;

export type FloatKernel = 'avx512' | 'avx2' | 'portable';

export interface NativeKernels {
  matmul: Matmul;
  layerNorm: LayerNorm;
  meanRows: MeanRows;
  attention: Attention;
  quantizeColumns: QuantizeColumns;
  matmulInt8: MatmulInt8;
  packBf16: PackBf16;
  matmulBf16: MatmulBf16;
  /**
   * The register tile `matmul` runs on this CPU: `avx512`, `avx2` (with FMA) or `portable`. The environment
   * variable AGENTRY_FLOAT_KERNEL (`avx2`, `portable`) asks for a narrower one, as the tests do for each.
   */
  floatKernel: FloatKernel;
  /** Whether matmulInt8 runs on this CPU (it needs AVX-512 VNNI or AVX2). */
  int8: boolean;
  /**
   * What matmulInt8 runs on: `avx512-vnni` (rows of a quantised to 8 bits), `avx2` (to 7 bits: see
   * native/gemm_int8.cc) or `none`. AGENTRY_INT8_KERNEL=avx2 asks for the AVX2 path on a CPU with VNNI.
   */
  int8Kernel: 'avx512-vnni' | 'avx2' | 'none';
  /** Whether matmulBf16 runs on this CPU (it needs AVX-512 BF16). */
  bf16: boolean;
}

/**
 * Columns a panel of b holds. The kernel reads b a panel at a time, each panel k rows of PANEL contiguous floats,
 * so that a weight matrix is read in order rather than one short run per row (a run per row cost twice the time).
 */
export const PANEL = 32;

/** Built beside package.json; this module sits two folders down in both src/ and dist/. */
const ADDON = '../../build/Release/agentry_kernels.node';

let loaded: NativeKernels | Error | undefined;

/** The native kernels, or the reason they cannot be loaded. */
export function loadNativeKernels(): NativeKernels | Error {
  if (loaded === undefined) {
    try {
      const addon = createRequire(import.meta.url)(ADDON) as NativeKernels & { PANEL: number };
      const { matmul, layerNorm, meanRows, attention, quantizeColumns, matmulInt8, packBf16, matmulBf16 } =
        addon;
      const { floatKernel, int8, int8Kernel, bf16 } = addon;
      loaded =
        addon.PANEL === PANEL
          ? {
              matmul,
              layerNorm,
              meanRows,
              attention,
              quantizeColumns,
              matmulInt8,
              packBf16,
              matmulBf16,
              floatKernel,
              int8,
              int8Kernel,
              bf16,
            }
          : new Error(`the native multiply takes panels of ${addon.PANEL} columns, not ${PANEL}`);
    } catch (error) {
      loaded = error instanceof Error ? error : new Error(String(error));
    }
  }
  return loaded;
}

/** Floats that a k×n matrix takes in panels (the last panel padded to PANEL columns). */
function packedLength(k: number, n: number): number {
  return Math.ceil(n / PANEL) * PANEL * k;
}

/** Where element (row, column) of a k-row matrix goes in its panels. */
function packedIndex(k: number, row: number, column: number): number {
  const panel = Math.floor(column / PANEL);
  return panel * k * PANEL + row * PANEL + (column - panel * PANEL);
}

/** A row-major k×n matrix in panels. */
export function packColumns(matrix: Float32Array, k: number, n: number): Float32Array {
  if (matrix.length < k * n)
    throw new RangeError(`packColumns: ${matrix.length} floats cannot hold ${k}×${n}`);
  const packed = new Float32Array(packedLength(k, n));
  for (let row = 0; row < k; row++) {
    for (let column = 0; column < n; column++) {
      packed[packedIndex(k, row, column)] = matrix[row * n + column]!;
    }
  }
  return packed;
}
