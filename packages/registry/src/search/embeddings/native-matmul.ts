/**
 * The native matrix multiply (`native/gemm.cc`, built by node-gyp when the package is installed) that the USE-lite
 * encoder runs on. Where it was not built (no C++ toolchain), this says so and USE-lite runs on TF.js instead.
 */
import { createRequire } from 'node:module';

/**
 * c[m×n] = a[m×k] · b[k×n] (+ bias[n]) (then max(0, ·)). a and c are row-major; b is in column panels
 * (packColumns).
 */
export type Matmul = (
  a: Float32Array,
  b: Float32Array,
  c: Float32Array,
  m: number,
  k: number,
  n: number,
  bias: Float32Array | null,
  relu: boolean,
) => void;

/**
 * Columns a panel of b holds. The kernel reads b a panel at a time, each panel k rows of PANEL contiguous floats,
 * so that a weight matrix is read in order rather than one short run per row (a run per row cost twice the time).
 */
export const PANEL = 32;

/** Built beside package.json; this module sits three folders down in both src/ and dist/. */
const ADDON = '../../../build/Release/agentry_gemm.node';

let loaded: { matmul: Matmul; PANEL: number } | Error | undefined;

/** The native multiply, or the reason it cannot be loaded. */
export function loadNativeMatmul(): Matmul | Error {
  if (loaded === undefined) {
    try {
      const addon = createRequire(import.meta.url)(ADDON) as { matmul: Matmul; PANEL: number };
      loaded =
        addon.PANEL === PANEL ? addon : new Error(`the native multiply takes panels of ${addon.PANEL}`);
    } catch (error) {
      loaded = error instanceof Error ? error : new Error(String(error));
    }
  }
  return loaded instanceof Error ? loaded : loaded.matmul;
}

/** Floats that a k×n matrix takes in panels (the last panel padded to PANEL columns). */
export function packedLength(k: number, n: number): number {
  return Math.ceil(n / PANEL) * PANEL * k;
}

/** Where element (row, column) of a k-row matrix goes in its panels. */
export function packedIndex(k: number, row: number, column: number): number {
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
