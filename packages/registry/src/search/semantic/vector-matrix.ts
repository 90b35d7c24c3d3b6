/**
 * Every agent's embedding in one contiguous float32 block (row-major, unit length), scored against a query by
 * brute-force dot products. At 100,000 agents × 512 dimensions that is 200 MB and one pass of 51 M multiply-adds
 * per query; a contiguous block keeps that pass cache-friendly and free of per-agent objects. The database holds
 * the copy of record; this is rebuilt from it at start.
 *
 * Where WebAssembly SIMD is available and the dimensions are a multiple of 16 (512, 768, 1536 …), the block lives
 * in the memory of a small SIMD kernel (wasm-dot.ts) at offset 0, followed by scratch space for a query, the
 * candidate rows and the scores; otherwise in an ordinary Float32Array scored by a JavaScript loop.
 */
import { createDotKernel, type DotKernel } from './wasm-dot.js';

const PAGE = 65536;

export interface VectorMatrixOptions {
  /** Rows to reserve at first (default 1024); the block grows by half when full. */
  initialCapacity?: number;
  /** Use the WebAssembly SIMD kernel when possible (default true). */
  simd?: boolean;
}

export class VectorMatrix {
  private readonly kernel: DotKernel | undefined;
  private capacity: number;
  private data: Float32Array;
  private readonly slotOf = new Map<string, number>();
  private readonly ids: string[] = [];

  constructor(
    readonly dimensions: number,
    options: VectorMatrixOptions = {},
  ) {
    this.capacity = Math.max(1, Math.floor(options.initialCapacity ?? 1024));
    this.kernel = options.simd !== false && dimensions % 16 === 0 ? createDotKernel() : undefined;
    if (this.kernel) {
      this.reserveBytes(this.capacity * dimensions * 4);
      this.data = new Float32Array(this.kernel.memory.buffer, 0, this.capacity * dimensions);
    } else {
      this.data = new Float32Array(this.capacity * dimensions);
    }
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
    const offset = slot * this.dimensions;
    const norm = Math.sqrt(dot(vector, 0, vector, this.dimensions)) || 1;
    for (let i = 0; i < this.dimensions; i++) this.data[offset + i] = vector[i]! / norm;
  }

  /** Removes an agent by moving the last row into its slot, so the rows stay contiguous. */
  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.ids[slot] = lastId;
      this.slotOf.set(lastId, slot);
    }
    this.ids.pop();
    this.slotOf.delete(id);
  }

  /**
   * Cosine similarities of each query (unit length) with every stored vector, or only with those of
   * `candidates`, in one pass over the matrix. Returns the ids and, per query, their similarities in that order.
   */
  similarities(
    queries: readonly Float32Array[],
    candidates?: ReadonlySet<string>,
  ): { ids: string[]; scores: Float32Array[]; positionOf: (id: string) => number | undefined } {
    const dims = this.dimensions;
    for (const query of queries) {
      if (query.length !== dims) throw new Error(`query has ${query.length} dimensions, the index ${dims}`);
    }
    const slots = candidates ? this.slotsOf(candidates) : undefined;
    const count = slots ? slots.length : this.ids.length;
    const scores = this.kernel
      ? this.kernelScores(this.kernel, queries, slots, count)
      : this.loopScores(queries, slots, count);
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

  /** The normalised mean of these agents' vectors; undefined when none of them has one. */
  centroid(ids: readonly string[]): Float32Array | undefined {
    const sum = new Float32Array(this.dimensions);
    let found = 0;
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      const offset = slot * this.dimensions;
      for (let i = 0; i < this.dimensions; i++) sum[i] = sum[i]! + this.data[offset + i]!;
      found++;
    }
    if (found === 0) return undefined;
    const norm = Math.sqrt(dot(sum, 0, sum, this.dimensions)) || 1;
    for (let i = 0; i < this.dimensions; i++) sum[i] = sum[i]! / norm;
    return sum;
  }

  private kernelScores(
    kernel: DotKernel,
    queries: readonly Float32Array[],
    slots: Int32Array | undefined,
    count: number,
  ): Float32Array[] {
    const dims = this.dimensions;
    // Scratch after the reserved rows: the query, the candidate rows, the scores.
    const queryAt = this.capacity * dims * 4;
    const slotsAt = queryAt + dims * 4;
    const outAt = slotsAt + count * 4;
    this.reserveBytes(outAt + count * 4);
    const buffer = kernel.memory.buffer;
    if (slots) new Int32Array(buffer, slotsAt, count).set(slots);
    return queries.map((query) => {
      new Float32Array(buffer, queryAt, dims).set(query);
      kernel.dots(0, slotsAt, slots ? 1 : 0, count, dims, queryAt, outAt);
      return new Float32Array(buffer.slice(outAt, outAt + count * 4));
    });
  }

  private loopScores(
    queries: readonly Float32Array[],
    slots: Int32Array | undefined,
    count: number,
  ): Float32Array[] {
    const dims = this.dimensions;
    const scores = queries.map(() => new Float32Array(count));
    for (let row = 0; row < count; row++) {
      const offset = (slots ? slots[row]! : row) * dims;
      for (let q = 0; q < queries.length; q++) scores[q]![row] = dot(this.data, offset, queries[q]!, dims);
    }
    return scores;
  }

  private slotsOf(candidates: ReadonlySet<string>): Int32Array {
    const slots = new Int32Array(Math.min(candidates.size, this.ids.length));
    let n = 0;
    for (const id of candidates) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) slots[n++] = slot;
    }
    // In matrix order, so the pass reads memory front to back.
    return slots.subarray(0, n).sort();
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.ceil(this.capacity * 1.5));
    const length = capacity * this.dimensions;
    if (this.kernel) {
      // The rows stay at offset 0; growing the memory keeps its contents, so nothing is copied.
      this.reserveBytes(length * 4);
      this.data = new Float32Array(this.kernel.memory.buffer, 0, length);
    } else {
      const grown = new Float32Array(length);
      grown.set(this.data);
      this.data = grown;
    }
    this.capacity = capacity;
  }

  /** Grows the kernel's memory to at least `bytes`; views on it must then be made again. */
  private reserveBytes(bytes: number): void {
    const memory = this.kernel!.memory;
    if (memory.buffer.byteLength >= bytes) return;
    memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    this.data = new Float32Array(memory.buffer, 0, this.capacity * this.dimensions);
  }
}

function dot(data: Float32Array, offset: number, query: Float32Array, dims: number): number {
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    sum0 += data[offset + i]! * query[i]!;
    sum1 += data[offset + i + 1]! * query[i + 1]!;
    sum2 += data[offset + i + 2]! * query[i + 2]!;
    sum3 += data[offset + i + 3]! * query[i + 3]!;
  }
  for (; i < dims; i++) sum0 += data[offset + i]! * query[i]!;
  return sum0 + sum1 + sum2 + sum3;
}

function sortedIndexOf(sorted: Int32Array, value: number): number | undefined {
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
