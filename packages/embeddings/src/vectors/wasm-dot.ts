/**
 * Dot products of one query with many rows, in WebAssembly SIMD. The rows are int8 (a quarter of float32's bytes:
 * a pass over 10,000 × 512 is memory-bound, so reading a quarter of the bytes is most of the gain) and the query
 * int16; each step widens 8 row components to int16 and multiplies-and-adds them into int32 lanes
 * (`i32x4.dot_i16x8_s`), with four accumulators, 32 components a step. The caller scales the integer sums back
 * (vector-matrix.ts). The module is small enough to assemble here, byte by byte, so nothing is fetched or compiled
 * at build time.
 *
 *   dots(matrix, slots, useSlots, count, dims, query, out):
 *     for r in 0..count: row = useSlots ? slots[r] : r
 *                        out[r] = Σ matrix_i8[row·dims + i] · query_i16[i]   (int32; dims a multiple of 32; byte
 *                                                                               addresses)
 */

/** The parts of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
export interface KernelMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => KernelMemory;
}

export interface DotKernel {
  readonly memory: KernelMemory;
  dots(
    matrix: number,
    slots: number,
    useSlots: number,
    count: number,
    dims: number,
    query: number,
    out: number,
  ): void;
}

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i32Store: 0x36,
  i32Const: 0x41,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32Shl: 0x74,
  simd: 0xfd,
} as const;
const simd = {
  load: [0x00],
  /** v128.load8x8_s: 8 int8 widened to 8 int16. */
  load8x8: [0x01],
  const: [0x0c],
  extractLane: [0x1b],
  add: [0xae, 0x01],
  dot: [0xba, 0x01],
} as const;

// Parameters 0–6 as in the signature above; then locals.
const [MATRIX, SLOTS, USE_SLOTS, COUNT, DIMS, QUERY, OUT] = [0, 1, 2, 3, 4, 5, 6];
const [R, ROW, END, Q] = [7, 8, 9, 10];
const ACC = [11, 12, 13, 14];
/** Row components a loop step takes: 8 per accumulator. */
export const DOT_STEP = 32;

function unsigned(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** Signed LEB128 for the small non-negative constants used here. */
function signed(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      bytes.push(byte);
      return bytes;
    }
    bytes.push(byte | 0x80);
  }
}

function section(id: number, content: number[]): number[] {
  return [id, ...unsigned(content.length), ...content];
}

function name(text: string): number[] {
  const bytes = Array.from(new TextEncoder().encode(text));
  return [...unsigned(bytes.length), ...bytes];
}

const get = (local: number) => [op.localGet, local];
const set = (local: number) => [op.localSet, local];
const i32 = (value: number) => [op.i32Const, ...signed(value)];
const simdOp = (code: readonly number[], ...immediates: number[]) => [op.simd, ...code, ...immediates];

/** acc_k += dot(int16(8 row components at ROW + 8k), the 8 query components at Q + 16k). */
function accumulate(accumulator: number, k: number): number[] {
  return [
    ...get(accumulator),
    ...get(ROW),
    ...simdOp(simd.load8x8, 3, ...unsigned(8 * k)),
    ...get(Q),
    ...simdOp(simd.load, 4, ...unsigned(16 * k)),
    ...simdOp(simd.dot),
    ...simdOp(simd.add),
    ...set(accumulator),
  ];
}

function body(): number[] {
  const zero = simdOp(simd.const, ...new Array<number>(16).fill(0));
  const code = [
    op.block,
    0x40,
    op.loop,
    0x40,
    // if r >= count: done
    ...get(R),
    ...get(COUNT),
    op.i32GeU,
    op.brIf,
    1,
    // row = matrix + (useSlots ? slots[r] : r) * dims; end = row + dims; q = query
    ...get(MATRIX),
    ...get(SLOTS),
    ...get(R),
    ...i32(2),
    op.i32Shl,
    op.i32Add,
    op.i32Load,
    2,
    0,
    ...get(R),
    ...get(USE_SLOTS),
    op.select,
    ...get(DIMS),
    op.i32Mul,
    op.i32Add,
    op.localTee,
    ROW,
    ...get(DIMS),
    op.i32Add,
    ...set(END),
    ...get(QUERY),
    ...set(Q),
    ...ACC.flatMap((accumulator) => [...zero, ...set(accumulator)]),
    op.loop,
    0x40,
    ...ACC.flatMap((accumulator, k) => accumulate(accumulator, k)),
    // q += 64 (32 int16); row += 32; continue while row < end
    ...get(Q),
    ...i32(DOT_STEP * 2),
    op.i32Add,
    ...set(Q),
    ...get(ROW),
    ...i32(DOT_STEP),
    op.i32Add,
    op.localTee,
    ROW,
    ...get(END),
    op.i32LtU,
    op.brIf,
    0,
    op.end,
    // out[r] = sum of the lanes of acc0 + acc1 + acc2 + acc3
    ...get(OUT),
    ...get(R),
    ...i32(2),
    op.i32Shl,
    op.i32Add,
    ...get(ACC[0]!),
    ...get(ACC[1]!),
    ...simdOp(simd.add),
    ...get(ACC[2]!),
    ...get(ACC[3]!),
    ...simdOp(simd.add),
    ...simdOp(simd.add),
    ...set(ACC[0]!),
    ...get(ACC[0]!),
    ...simdOp(simd.extractLane, 0),
    ...[1, 2, 3].flatMap((lane) => [...get(ACC[0]!), ...simdOp(simd.extractLane, lane), op.i32Add]),
    op.i32Store,
    2,
    0,
    // r += 1
    ...get(R),
    ...i32(1),
    op.i32Add,
    ...set(R),
    op.br,
    0,
    op.end,
    op.end,
    op.end,
  ];
  const locals = [2, 4, I32, 4, V128];
  const content = [...locals, ...code];
  return [...unsigned(content.length), ...content];
}

function moduleBytes(): Uint8Array {
  const type = section(1, [1, 0x60, 7, ...new Array<number>(7).fill(I32), 0]);
  const imports = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]);
  const functions = section(3, [1, 0]);
  const exports = section(7, [1, ...name('dots'), 0x00, 0]);
  const code = section(10, [1, ...body()]);
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...type,
    ...imports,
    ...functions,
    ...exports,
    ...code,
  ]);
}

let compiled: object | null | undefined;

/** A kernel with its own memory, or undefined where WebAssembly SIMD is not available. */
export function createDotKernel(initialPages = 1): DotKernel | undefined {
  const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (!wasm) return undefined;
  if (compiled === undefined) {
    try {
      compiled = new wasm.Module(moduleBytes());
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return undefined;
  const memory = new wasm.Memory({ initial: initialPages });
  const instance = new wasm.Instance(compiled, { env: { memory } });
  const dots = instance.exports['dots'] as DotKernel['dots'];
  return { memory, dots };
}
