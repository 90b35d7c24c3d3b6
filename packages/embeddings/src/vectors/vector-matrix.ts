/**
 * Every agent's embedding in one contiguous block (row-major, unit length), scored against a query by brute-force
 * dot products. The database holds the vectors as float32, the copy of record; this is rebuilt from it at start.
 *
 * The block holds each vector as int8 with a scale per row (its largest component is ±127): a pass over every
 * agent is bound by how many bytes it reads, and int8 reads a quarter of float32's. At 100,000 agents × 512
 * dimensions that is 51 MB instead of 205 MB, and the pass about 3× faster. A query is quantized to int16, so a
 * similarity is off by about 0.001 at most (a row's rounding error, ±½ of its step, against a unit query): an order
 * of magnitude below the spread of one query's similarities, which is what fusion standardises by.
 *
 * Where WebAssembly SIMD is available and the dimensions are a multiple of 32 (384, 512, 768, 1536 …), the block
 * lives in the memory of a small SIMD kernel (wasm-dot.ts) at offset 0, followed by scratch space for a query, the
 * candidate rows and the integer sums; otherwise in an ordinary Int8Array scored by a JavaScript loop. Both compute
 * the same integer sums.
 */
import { createDotKernel, DOT_STEP, type DotKernel } from './wasm-dot.js';

const PAGE = 65536;
const ROW_LIMIT = 127;
const INT32_MAX = 2 ** 31 - 1;

export interface VectorMatrixOptions {
  /** Rows to reserve at first (default 1024); the block grows by half when full. */
  initialCapacity?: number;
  /** Use the WebAssembly SIMD kernel when possible (default true). */
  simd?: boolean;
}

/** The agents a pass covers: only `candidates` when given, never `excluded`. */
export interface MatrixScope {
  candidates?: ReadonlySet<string> | undefined;
  excluded?: ReadonlySet<string> | undefined;
}

/**
 * Vectors by id, scored against queries by one brute-force pass (see the module's header for the int8 layout).
 *
 * @example
 * ```ts
 * import { topIndices, VectorMatrix } from '@agentry/embeddings';
 *
 * const matrix = new VectorMatrix(3);
 * matrix.set('weather', Float32Array.of(1, 0, 0));
 * matrix.set('invoices', Float32Array.of(0, 1, 0));
 * matrix.set('translate', Float32Array.of(0.6, 0.8, 0));
 * const { ids, scores } = matrix.similarities([Float32Array.of(1, 0, 0)], { excluded: new Set(['translate']) });
 * const best = topIndices(scores[0]!, 1).map((i) => ids[i]);
 * console.log(best); // ['weather']
 * ```
 */
export class VectorMatrix {
  private readonly kernel: DotKernel | undefined;
  private capacity: number;
  /** The rows' components, int8, `dimensions` bytes a row. */
  private rows: Int8Array;
  /** Per row, what its int8 components are multiplied by to give the unit vector's. */
  private scales: Float32Array;
  private readonly slotOf = new Map<string, number>();
  private readonly ids: string[] = [];
  /**
   * Largest magnitude of a query's int16 components: no sum of products may leave int32 (the rows' and the query's
   * components, scaled to their maxima, can at worst all be that large: 127 · limit · dimensions < 2³¹).
   */
  private readonly queryLimit: number;

  constructor(
    readonly dimensions: number,
    options: VectorMatrixOptions = {},
  ) {
    this.capacity = Math.max(1, Math.floor(options.initialCapacity ?? 1024));
    this.queryLimit = Math.min(32767, Math.floor(INT32_MAX / (ROW_LIMIT * dimensions)));
    this.kernel = options.simd !== false && dimensions % DOT_STEP === 0 ? createDotKernel() : undefined;
    if (this.kernel) {
      this.reserveBytes(this.capacity * dimensions);
      this.rows = new Int8Array(this.kernel.memory.buffer, 0, this.capacity * dimensions);
    } else {
      this.rows = new Int8Array(this.capacity * dimensions);
    }
    this.scales = new Float32Array(this.capacity);
  }

  /** Whether similarities run in the WebAssembly SIMD kernel. */
  get accelerated(): boolean {
    return this.kernel !== undefined;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Stores (or replaces) an agent's vector, normalised to unit length. */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector for ${id} has ${vector.length} dimensions, the index ${this.dimensions}`);
    }
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.ensureCapacity(slot + 1);
      this.ids.push(id);
      this.slotOf.set(id, slot);
    }
    const scale = quantize(vector, ROW_LIMIT, this.rows, slot * this.dimensions);
    this.scales[slot] = scale;
  }

  /** Removes an agent by moving the last row into its slot, so the rows stay contiguous. */
  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const lastId = this.ids[last]!;
      this.rows.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.scales[slot] = this.scales[last]!;
      this.ids[slot] = lastId;
      this.slotOf.set(lastId, slot);
    }
    this.ids.pop();
    this.slotOf.delete(id);
  }

  /**
   * Cosine similarities of each query (unit length) with every stored vector, or only with those in `scope`, in
   * one pass over the matrix per query. Returns the ids and, per query, their similarities in that order.
   */
  similarities(
    queries: readonly Float32Array[],
    scope: MatrixScope = {},
  ): { ids: string[]; scores: Float32Array[]; positionOf: (id: string) => number | undefined } {
    const dims = this.dimensions;
    for (const query of queries) {
      if (query.length !== dims) throw new Error(`query has ${query.length} dimensions, the index ${dims}`);
    }
    const slots = this.slotsIn(scope);
    const count = slots ? slots.length : this.ids.length;
    const scores = queries.map((query) => {
      const quantized = new Int16Array(dims);
      const scale = quantize(query, this.queryLimit, quantized, 0);
      const sums = this.kernel
        ? this.kernelSums(this.kernel, quantized, slots, count)
        : this.loopSums(quantized, slots, count);
      const out = new Float32Array(count);
      for (let r = 0; r < count; r++) out[r] = sums[r]! * this.scales[slots ? slots[r]! : r]! * scale;
      return out;
    });
    const ids = slots ? Array.from(slots, (slot) => this.ids[slot]!) : this.ids.slice();
    // Valid until the matrix changes, i.e. for the synchronous work that follows a search's similarities.
    const slotOf = this.slotOf;
    const positionOf = slots
      ? (id: string) => {
          const slot = slotOf.get(id);
          return slot === undefined ? undefined : sortedIndexOf(slots, slot);
        }
      : (id: string) => slotOf.get(id);
    return { ids, scores, positionOf };
  }

  /**
   * Every stored row as it is held (int8 components and the scale that turns them into the unit vector's), in slot
   * order, so another store of the same layout (`AnnIndex.setQuantized`) takes them over without rounding again.
   */
  *quantizedRows(): Generator<{ id: string; row: Int8Array; scale: number }> {
    for (let slot = 0; slot < this.ids.length; slot++) {
      const offset = slot * this.dimensions;
      yield {
        id: this.ids[slot]!,
        row: this.rows.subarray(offset, offset + this.dimensions),
        scale: this.scales[slot]!,
      };
    }
  }

  /** The normalised mean of these agents' vectors; undefined when none of them has one. */
  centroid(ids: readonly string[]): Float32Array | undefined {
    const sum = new Float32Array(this.dimensions);
    let found = 0;
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      const offset = slot * this.dimensions;
      const scale = this.scales[slot]!;
      for (let i = 0; i < this.dimensions; i++) sum[i] = sum[i]! + this.rows[offset + i]! * scale;
      found++;
    }
    if (found === 0) return undefined;
    let squares = 0;
    for (const value of sum) squares += value * value;
    const norm = Math.sqrt(squares) || 1;
    for (let i = 0; i < this.dimensions; i++) sum[i] = sum[i]! / norm;
    return sum;
  }

  /** The integer sums of the kernel, in a view of its memory valid until the next call. */
  private kernelSums(
    kernel: DotKernel,
    query: Int16Array,
    slots: Int32Array | undefined,
    count: number,
  ): Int32Array {
    const dims = this.dimensions;
    // Scratch after the reserved rows (16-byte aligned): the query, the candidate rows, the sums.
    const queryAt = Math.ceil((this.capacity * dims) / 16) * 16;
    const slotsAt = queryAt + dims * 2;
    const outAt = slotsAt + count * 4;
    this.reserveBytes(outAt + count * 4);
    const buffer = kernel.memory.buffer;
    new Int16Array(buffer, queryAt, dims).set(query);
    if (slots) new Int32Array(buffer, slotsAt, count).set(slots);
    kernel.dots(0, slotsAt, slots ? 1 : 0, count, dims, queryAt, outAt);
    return new Int32Array(buffer, outAt, count);
  }

  private loopSums(query: Int16Array, slots: Int32Array | undefined, count: number): Int32Array {
    const dims = this.dimensions;
    const rows = this.rows;
    const sums = new Int32Array(count);
    for (let r = 0; r < count; r++) {
      const offset = (slots ? slots[r]! : r) * dims;
      let sum = 0;
      for (let i = 0; i < dims; i++) sum += rows[offset + i]! * query[i]!;
      sums[r] = sum;
    }
    return sums;
  }

  /** The slots of the agents in `scope`, in matrix order (so a pass reads memory front to back); undefined: all. */
  private slotsIn({ candidates, excluded }: MatrixScope): Int32Array | undefined {
    const skipped = new Set<number>();
    for (const id of excluded ?? []) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) skipped.add(slot);
    }
    if (candidates === undefined && skipped.size === 0) return undefined;
    let n = 0;
    if (candidates === undefined) {
      const slots = new Int32Array(this.ids.length - skipped.size);
      for (let slot = 0; slot < this.ids.length; slot++) if (!skipped.has(slot)) slots[n++] = slot;
      return slots;
    }
    const slots = new Int32Array(Math.min(candidates.size, this.ids.length));
    for (const id of candidates) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined && !skipped.has(slot)) slots[n++] = slot;
    }
    return slots.subarray(0, n).sort();
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.ceil(this.capacity * 1.5));
    const length = capacity * this.dimensions;
    if (this.kernel) {
      // The rows stay at offset 0; growing the memory keeps its contents, so nothing is copied.
      this.reserveBytes(length);
      this.rows = new Int8Array(this.kernel.memory.buffer, 0, length);
    } else {
      const grown = new Int8Array(length);
      grown.set(this.rows);
      this.rows = grown;
    }
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    this.scales = scales;
    this.capacity = capacity;
  }

  /** Grows the kernel's memory to at least `bytes`; views on it must then be made again. */
  private reserveBytes(bytes: number): void {
    const memory = this.kernel!.memory;
    if (memory.buffer.byteLength >= bytes) return;
    memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    this.rows = new Int8Array(memory.buffer, 0, this.capacity * this.dimensions);
  }
}

/**
 * Writes `vector`, normalised to unit length, into `out` from `offset` as integers whose largest magnitude is
 * `limit`; returns the factor that turns them back (0 for a zero vector, which then scores 0 against everything).
 */
export function quantize(
  vector: Float32Array,
  limit: number,
  out: Int8Array | Int16Array,
  offset: number,
): number {
  let squares = 0;
  let largest = 0;
  for (const value of vector) {
    squares += value * value;
    const magnitude = Math.abs(value);
    if (magnitude > largest) largest = magnitude;
  }
  const norm = Math.sqrt(squares);
  if (!(norm > 0) || !Number.isFinite(norm)) {
    out.fill(0, offset, offset + vector.length);
    return 0;
  }
  const factor = limit / largest;
  for (let i = 0; i < vector.length; i++) out[offset + i] = Math.round(vector[i]! * factor);
  return largest / norm / limit;
}

/** Where `value` is in an ascending array (binary search); undefined when it is not there. */
export function sortedIndexOf(sorted: Int32Array, value: number): number | undefined {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = sorted[mid]!;
    if (at === value) return mid;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return undefined;
}
