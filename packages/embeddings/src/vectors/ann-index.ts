/**
 * An approximate nearest-neighbour index over unit vectors: an inverted file (IVF). Spherical k-means splits the
 * vectors into about √n lists, each with a centroid; a query is scored against the centroids and then only against
 * the rows of the lists whose centroids are nearest (the probed lists), exactly as the vector matrix scores a row:
 * int8 rows with a scale each, an int16 query, the WebAssembly SIMD dot kernel of wasm-dot.ts. A similarity
 * returned is therefore the exact one of the matrix; only which rows are scored is approximate.
 *
 * Why not a package from npm (checked 2026-11-28): hnswlib-node (built from source by node-gyp) and hnswlib-wasm (a
 * bundled wasm build) hold float32 vectors, 2 GB for 1,000,000 × 512 before the graph: the whole memory target of a
 * replica (issue #21), beside the matrix; their filter is a JavaScript callback per visited node. usearch quantizes
 * to int8 and ships its binaries inside its npm tarball, but its JavaScript binding searches without a filter, so a
 * narrow scope would need an unbounded over-fetch. faiss-node's install script downloads prebuilt binaries or clones
 * faiss from GitHub. An IVF over the rows this project already quantizes needs no native code and 4 bytes an agent
 * beyond its row, and a scope is a filter on the rows of the probed lists: an agent outside it is never scored, so
 * never returned.
 *
 * Scope: `excluded` agents are skipped in the lists; `candidates` too, and a small candidate set (at most
 * √(scanned rows × n), where scoring the candidates outright costs less than probing for them) is scored exactly.
 * With a scope, lists are probed, nearest first, until as many rows in scope were scored as an unscoped search
 * scores, so a narrow scope probes further instead of finding fewer neighbours. A scope is resolved to slots once
 * (`resolveScope`: a mask of the slots in it and the candidates' slots), so the several query vectors of one search
 * and its passes over a pool (`similaritiesAt`) read slots, not ids: an id is looked up once per search.
 *
 * Below `minSize` vectors, or before `build()`, every search is exact. Vectors added after a build go to the list
 * of their nearest centroid; `stale` says when the index has grown or shrunk enough since its build (2×) that the
 * lists should be trained again. Slots are stable (a deleted one is reused), so a build in the background can go on
 * while vectors are added and deleted: rows changed meanwhile are assigned again at its end. Where a slot's row
 * lies in the block is the index's own business: a build ends by moving the rows so that each list's are one run
 * (`placeRows`), since a probe that reads a dozen runs costs a fraction of one reading the same rows scattered.
 */

import { IdTable } from '../ids/id-table.js';
import { seededUniform } from './seeded-uniform.js';
import { topIndices } from './top-k.js';
import { type MatrixScope, quantize, sortedIndexOf } from './vector-matrix.js';
import { createDotKernel, DOT_STEP, type DotKernel } from './wasm-dot.js';

const PAGE = 65536;
const ROW_LIMIT = 127;
const INT32_MAX = 2 ** 31 - 1;
/** Rows a background build assigns between two yields to the event loop. */
const BUILD_CHUNK = 4096;

export interface AnnIndexOptions {
  /** Below this many vectors every search is exact (default 50,000; a pass over them takes about 5 ms). */
  minSize?: number;
  /** Lists of the inverted file (default √n at build time, at least 16). */
  lists?: number;
  /** Lists a search probes when unscoped (default 1.2% of the lists, at least 10). */
  probes?: number;
  /** Training vectors per list for k-means (default 40; the sample is at most every vector). */
  samplePerList?: number;
  /** k-means iterations (default 10). */
  iterations?: number;
  /** Seed of the sample and the first centroids, so a build is reproducible. */
  seed?: number;
  /** Rows to reserve at first (default 1024); the block grows by half when full. */
  initialCapacity?: number;
  /** Use the WebAssembly SIMD kernel when possible (default true). */
  simd?: boolean;
  /**
   * Rows a build handles between two yields of `buildInBackground` (default 4,096): smaller, and writes and searches
   * interleave with it more often (tests use a small one to put writes between the steps of a small build).
   */
  buildChunk?: number;
}

/** What `scoresAtKept` keeps a copy for: the population's sample (asked for search after search) or a pool. */
export type KeptRole = 'sample' | 'pool';

interface KeptCopy {
  slots: Int32Array;
  version: number;
  block: RowBlock;
  scales: Float32Array;
}

export interface AnnHit {
  id: string;
  /** Cosine similarity, as the vector matrix computes it. */
  score: number;
}

export interface AnnSearchInfo {
  /** How the search ran: every row in scope, or the probed lists. */
  method: 'exact' | 'probed';
  /** Rows scored. */
  scanned: number;
  /** Lists probed (0 when exact). */
  probed: number;
}

export interface AnnStats {
  size: number;
  built: boolean;
  lists: number;
  /** Vectors when the lists were trained. */
  builtSize: number;
  stale: boolean;
  /** Rows reserved (a deleted vector's slot is reused before the block grows). */
  capacity: number;
  /** Bytes of the rows, the centroids and the lists. */
  bytes: number;
}

/**
 * A scope resolved to the index's slots once, for the several searches and similarity passes of one query: ids are
 * looked up once per query instead of once per probed row and per pass. Valid until the index changes (a vector set
 * or deleted), i.e. for the synchronous work of one search.
 */
export interface SlotScope {
  /** 1 for a slot in scope; undefined: every held slot is. */
  readonly inScope: Uint8Array | undefined;
  /** Held vectors in scope. */
  readonly size: number;
  /** When the scope names candidates: the held ones in scope, in slot order. */
  readonly candidateSlots: Int32Array | undefined;
}

/** The slots of one search's best vectors, best first, with their similarities. */
export interface SlotHits {
  slots: Int32Array;
  scores: Float32Array;
  info: AnnSearchInfo;
}

/** Storage of int8 rows with one dot kernel (or a JavaScript loop) and scratch space after them. */
class RowBlock {
  private readonly kernel: DotKernel | undefined;
  rows: Int8Array;
  capacity: number;

  constructor(
    readonly dimensions: number,
    capacity: number,
    simd: boolean,
  ) {
    this.capacity = Math.max(1, capacity);
    this.kernel = simd && dimensions % DOT_STEP === 0 ? createDotKernel() : undefined;
    if (this.kernel) {
      this.reserveBytes(this.capacity * dimensions);
      this.rows = new Int8Array(this.kernel.memory.buffer, 0, this.capacity * dimensions);
    } else {
      this.rows = new Int8Array(this.capacity * dimensions);
    }
  }

  get accelerated(): boolean {
    return this.kernel !== undefined;
  }

  get bytes(): number {
    return this.capacity * this.dimensions;
  }

  grow(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.ceil(this.capacity * 1.5));
    const length = capacity * this.dimensions;
    if (this.kernel) {
      this.capacity = capacity;
      this.reserveBytes(length);
    } else {
      const grown = new Int8Array(length);
      grown.set(this.rows);
      this.rows = grown;
      this.capacity = capacity;
    }
  }

  /**
   * Integer dot products of `query` with rows `slots` (or rows 0‥count-1 when absent), in a view valid until the
   * next call.
   */
  dots(query: Int16Array, slots: Int32Array | undefined, count: number): Int32Array {
    const dims = this.dimensions;
    if (!this.kernel) {
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
    const queryAt = Math.ceil((this.capacity * dims) / 16) * 16;
    const slotsAt = queryAt + dims * 2;
    const outAt = slotsAt + (slots ? count * 4 : 0);
    this.reserveBytes(outAt + count * 4);
    const buffer = this.kernel.memory.buffer;
    new Int16Array(buffer, queryAt, dims).set(query);
    if (slots) new Int32Array(buffer, slotsAt, count).set(slots.subarray(0, count));
    this.kernel.dots(0, slotsAt, slots ? 1 : 0, count, dims, queryAt, outAt);
    return new Int32Array(buffer, outAt, count);
  }

  private reserveBytes(bytes: number): void {
    const memory = this.kernel!.memory;
    if (memory.buffer.byteLength < bytes) {
      memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    }
    this.rows = new Int8Array(memory.buffer, 0, this.capacity * this.dimensions);
  }
}

/** A growable list of rows (an inverted list: the rows of the vectors nearest one centroid). */
class SlotList {
  items = new Int32Array(8);
  length = 0;

  push(slot: number): number {
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length] = slot;
    return this.length++;
  }

  /** Removes the entry at `position` by moving the last one there; returns the slot moved, or -1. */
  removeAt(position: number): number {
    const last = --this.length;
    if (position === last) return -1;
    const moved = this.items[last]!;
    this.items[position] = moved;
    return moved;
  }
}

interface Lists {
  centroids: RowBlock;
  /** Per centroid, what its int8 components are multiplied by to give the unit centroid's. */
  centroidScales: Float32Array;
  /** Per centroid, the rows of its vectors (rows, not slots: a probe hands them to the kernel as they are). */
  lists: SlotList[];
  /** Per slot: its list (-1: none) and its position there. */
  listOf: Int32Array;
  positionOf: Int32Array;
  builtSize: number;
}

/** Ids by position (an array is one): what a pass's ids are given as, each made into a string when asked. */
export interface IdsByPosition {
  readonly length: number;
  at(index: number): string | undefined;
}

export class AnnIndex {
  readonly minSize: number;
  private readonly options: AnnIndexOptions;
  private readonly simd: boolean;
  private readonly block: RowBlock;
  /** Per physical row of the block, what its int8 components are multiplied by to give the unit vector's. */
  private scales: Float32Array;
  /**
   * Where each slot's row is in the block, and the slot each row holds: a permutation of the capacity, which a
   * build makes follow its lists (`placeRows`), so a probe reads each list's rows as one run instead of rows
   * scattered over the whole block. Slots (what callers hold) never move; rows do.
   */
  private rowOf: Int32Array;
  private slotAt: Int32Array;
  /** Ids by slot and slots by id, outside the heap (see IdTable); a free slot holds none. */
  private readonly ids = new IdTable();
  private readonly free: number[] = [];
  private readonly queryLimit: number;
  private index: Lists | undefined;
  /** While a build runs: slots set or deleted since it began, assigned again at its end. */
  private changedDuringBuild: Set<number> | undefined;
  private building: Promise<void> | undefined;
  /** Counts sets and deletes: a copy of rows made at another count is out of date. */
  private version = 0;
  /**
   * `scoresAtKept`'s copies, one per role: the slots asked for, their rows in one run, their scales. The sample's is
   * its own, so that pools (a new one each search) never push it out.
   */
  private readonly kept: Record<KeptRole, KeptCopy | undefined> = { sample: undefined, pool: undefined };
  /** How many copies `scoresAtKept` has made (for tests and benches: a copy reused is not counted again). */
  private keptCopies = 0;
  private readonly buildChunk: number;

  constructor(
    readonly dimensions: number,
    options: AnnIndexOptions = {},
  ) {
    this.options = options;
    this.minSize = Math.max(0, Math.floor(options.minSize ?? 50_000));
    this.simd = options.simd !== false;
    this.buildChunk = Math.max(1, Math.floor(options.buildChunk ?? BUILD_CHUNK));
    this.block = new RowBlock(dimensions, Math.floor(options.initialCapacity ?? 1024), this.simd);
    this.scales = new Float32Array(this.block.capacity);
    this.rowOf = identity(this.block.capacity);
    this.slotAt = identity(this.block.capacity);
    this.queryLimit = Math.min(32767, Math.floor(INT32_MAX / (ROW_LIMIT * dimensions)));
  }

  /** Whether rows are scored in the WebAssembly SIMD kernel. */
  get accelerated(): boolean {
    return this.block.accelerated;
  }

  get size(): number {
    return this.ids.size;
  }

  /** Whether searches probe lists (a build has run and the index holds at least `minSize` vectors). */
  get approximate(): boolean {
    return this.index !== undefined && this.size >= this.minSize;
  }

  /** Whether the index has grown or shrunk 2× since its lists were trained (or holds enough and has none). */
  get stale(): boolean {
    if (this.size < this.minSize) return false;
    if (!this.index) return true;
    const built = Math.max(1, this.index.builtSize);
    return this.size >= 2 * built || this.size * 2 <= built;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Stores (or replaces) a vector, normalised to unit length, and files it in its nearest list. */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector for ${id} has ${vector.length} dimensions, the index ${this.dimensions}`);
    }
    const slot = this.slotFor(id);
    const row = this.rowOf[slot]!;
    this.scales[row] = quantize(vector, ROW_LIMIT, this.block.rows, row * this.dimensions);
    this.changedDuringBuild?.add(slot);
    this.version++;
    if (this.index) this.file(this.index, slot);
  }

  /**
   * Stores (or replaces) a vector already quantised as this index holds it (a row of `VectorMatrix.quantizedRows`):
   * its similarities stay exactly those of the store it came from.
   */
  setQuantized(id: string, row: Int8Array, scale: number): void {
    if (row.length !== this.dimensions) {
      throw new Error(`row for ${id} has ${row.length} dimensions, the index ${this.dimensions}`);
    }
    const slot = this.slotFor(id);
    const at = this.rowOf[slot]!;
    this.block.rows.set(row, at * this.dimensions);
    this.scales[at] = scale;
    this.changedDuringBuild?.add(slot);
    this.version++;
    if (this.index) this.file(this.index, slot);
  }

  delete(id: string): void {
    const slot = this.ids.slotOf(id);
    if (slot < 0) return;
    if (this.index) this.unfile(this.index, slot);
    this.ids.deleteAt(slot);
    this.scales[this.rowOf[slot]!] = 0;
    this.free.push(slot);
    this.changedDuringBuild?.add(slot);
    this.version++;
  }

  /** Trains the lists on the vectors now held and files every vector, in one go. */
  build(): void {
    const steps = this.buildSteps();
    while (!steps.next().done) {
      // each step is a chunk of the work
    }
  }

  /**
   * The same as `build()` in chunks, yielding to the event loop between them, so searches (exact, or on the lists
   * of the previous build) and writes go on meanwhile. One build at a time: a second call returns the first's.
   */
  buildInBackground(): Promise<void> {
    this.building ??= (async () => {
      try {
        const steps = this.buildSteps();
        while (!steps.next().done) await new Promise<void>((resolve) => setImmediate(resolve));
      } finally {
        this.building = undefined;
      }
    })();
    return this.building;
  }

  /**
   * The `k` most similar vectors to `query` (unit length), best first: approximate when the index is built and
   * holds at least `minSize` vectors, exact otherwise. Never one outside `scope`.
   */
  search(query: Float32Array, k: number, scope: MatrixScope = {}): AnnHit[] {
    return this.searchWithInfo(query, k, scope).hits;
  }

  /** `search`, and how it ran; `probes` overrides the index's for this search (more: higher recall, slower). */
  searchWithInfo(
    query: Float32Array,
    k: number,
    scope: MatrixScope = {},
    probes?: number,
  ): { hits: AnnHit[]; info: AnnSearchInfo } {
    const { slots, scores, info } = this.searchSlots(query, k, this.resolveScope(scope), probes);
    const hits = Array.from(slots, (slot, r) => ({ id: this.ids.idAt(slot)!, score: scores[r]! }));
    return { hits, info };
  }

  /**
   * `searchWithInfo` in a scope already resolved (`resolveScope`), giving slots: the form the several query vectors
   * of one search share their scope in, and pool their hits by.
   */
  searchSlots(query: Float32Array, k: number, scope: SlotScope, probes?: number): SlotHits {
    if (query.length !== this.dimensions) {
      throw new Error(`query has ${query.length} dimensions, the index ${this.dimensions}`);
    }
    const want = Math.max(0, Math.floor(k));
    if (want === 0 || scope.size === 0) {
      return {
        slots: new Int32Array(0),
        scores: new Float32Array(0),
        info: { method: 'exact', scanned: 0, probed: 0 },
      };
    }
    const index = this.approximate ? this.index : undefined;
    if (!index) return this.exactSlots(query, want, scope);
    const target = this.scanTarget(index, want, probes);
    const candidates = scope.candidateSlots;
    if (candidates !== undefined && candidates.length <= Math.sqrt(target * this.size)) {
      return this.exactSlots(query, want, scope);
    }
    return this.probe(index, query, want, scope.inScope, target);
  }

  /** The `k` most similar vectors in `scope` by scoring every one of them. */
  exact(query: Float32Array, k: number, scope: MatrixScope = {}): AnnHit[] {
    if (query.length !== this.dimensions) {
      throw new Error(`query has ${query.length} dimensions, the index ${this.dimensions}`);
    }
    const resolved = this.resolveScope(scope);
    const want = Math.max(0, Math.floor(k));
    if (want === 0 || resolved.size === 0) return [];
    const { slots, scores } = this.exactSlots(query, want, resolved);
    return Array.from(slots, (slot, r) => ({ id: this.ids.idAt(slot)!, score: scores[r]! }));
  }

  /**
   * Cosine similarities of each query with every vector in `scope`, exactly, in the shape `VectorMatrix` gives them
   * (ids in slot order, scores per query, where an id is): what fusion standardises over. Above the size threshold
   * the caller names a pool (the index's hits and the lexical matches) as `candidates`.
   */
  similarities(
    queries: readonly Float32Array[],
    scope: MatrixScope = {},
  ): { ids: IdsByPosition; scores: Float32Array[]; positionOf: (id: string) => number | undefined } {
    return this.similaritiesAt(queries, this.slotsIn(this.resolveScope(scope)));
  }

  /**
   * `similarities` of the vectors in these slots (held ones, in slot order: a `SlotScope`'s, `slotsIn`'s, or a pool
   * of `searchSlots` hits sorted), with no id looked up. Valid until the index changes.
   */
  similaritiesAt(
    queries: readonly Float32Array[],
    slots: Int32Array,
  ): { ids: IdsByPosition; scores: Float32Array[]; positionOf: (id: string) => number | undefined } {
    const scores = this.scoresAt(queries, slots);
    // Valid until the index changes, i.e. for the synchronous work that follows a search's similarities. Ids are
    // made into strings when asked: a filtered pass covers tens of thousands, fusion returns a few.
    const table = this.ids;
    const ids: IdsByPosition = { length: slots.length, at: (i) => table.idAt(slots[i]!) };
    const positionOf = (id: string) => {
      const slot = table.slotOf(id);
      return slot < 0 ? undefined : sortedIndexOf(slots, slot);
    };
    return { ids, scores, positionOf };
  }

  /**
   * The similarities alone of `similaritiesAt` (per query, in the order of `slots`, held ones): for passes whose
   * agents are not ranked by id (a population's sample, feedback's centroid over a pool already named).
   */
  scoresAt(queries: readonly Float32Array[], slots: Int32Array): Float32Array[] {
    for (const query of queries) {
      if (query.length !== this.dimensions) {
        throw new Error(`query has ${query.length} dimensions, the index ${this.dimensions}`);
      }
    }
    const count = slots.length;
    const rows = this.rowsOf(slots);
    return queries.map((query) => {
      const { quantized, scale } = this.quantizeQuery(query);
      const sums = this.block.dots(quantized, rows, count);
      const out = new Float32Array(count);
      for (let r = 0; r < count; r++) out[r] = sums[r]! * this.scales[rows[r]!]! * scale;
      return out;
    });
  }

  /**
   * `scoresAt` for a set of slots scored again (a population's sample, the same array search after search; a
   * search's pool, scored for the query and then for feedback's centroid): their rows are copied into one run once
   * and scored there instead of scattered over the block, until a vector is set or deleted. One copy is kept
   * per `role`: a pool's gives way to the next pool's, never to the sample's, nor the sample's to a pool's, so
   * searches with and without a scope (which score a pool, but not the sample, through here) can alternate without
   * copying the sample again.
   */
  scoresAtKept(queries: readonly Float32Array[], slots: Int32Array, role: KeptRole = 'pool'): Float32Array[] {
    const dims = this.dimensions;
    const count = slots.length;
    const previous = this.kept[role];
    let kept = previous?.slots === slots && previous.version === this.version ? previous : undefined;
    if (kept === undefined) {
      this.keptCopies++;
      const block =
        previous !== undefined && previous.block.capacity >= count
          ? previous.block
          : new RowBlock(dims, count, this.simd);
      const scales = new Float32Array(count);
      const rows = this.block.rows;
      for (let i = 0; i < count; i++) {
        const row = this.rowOf[slots[i]!]!;
        block.rows.set(rows.subarray(row * dims, (row + 1) * dims), i * dims);
        scales[i] = this.scales[row]!;
      }
      kept = { slots, version: this.version, block, scales };
      this.kept[role] = kept;
    }
    const { block, scales } = kept;
    return queries.map((query) => {
      if (query.length !== dims) throw new Error(`query has ${query.length} dimensions, the index ${dims}`);
      const { quantized, scale } = this.quantizeQuery(query);
      const sums = block.dots(quantized, undefined, count);
      const out = new Float32Array(count);
      for (let r = 0; r < count; r++) out[r] = sums[r]! * scales[r]! * scale;
      return out;
    });
  }

  /** How many times `scoresAtKept` has copied rows (for tests and benches: whether a kept copy is reused). */
  get keptCopiesMade(): number {
    return this.keptCopies;
  }

  /**
   * The rows each list of the last build holds, in list order (for tests and benches: after a build each list's
   * rows are one run, `placeRows`). Empty when no build has run.
   */
  listRows(): Int32Array[] {
    return (this.index?.lists ?? []).map((list) => list.items.slice(0, list.length));
  }

  /** The slot holding this id's vector; undefined when none is held. Valid until the index changes. */
  slotOfId(id: string): number | undefined {
    const slot = this.ids.slotOf(id);
    return slot < 0 ? undefined : slot;
  }

  /** The id whose vector a held slot holds. */
  idAt(slot: number): string | undefined {
    return this.ids.idAt(slot);
  }

  /**
   * Looks a scope's ids up once: which slots it keeps (a mask), how many held vectors, and the candidates' slots.
   * Costs a hash lookup per id named (candidates and excluded); every search and pass of the query then reads slots.
   */
  resolveScope({ candidates, excluded }: MatrixScope): SlotScope {
    const slotCount = this.ids.slotCount;
    let inScope: Uint8Array | undefined;
    if (candidates === undefined) {
      if (excluded === undefined || excluded.size === 0) {
        return { inScope: undefined, size: this.size, candidateSlots: undefined };
      }
      inScope = new Uint8Array(slotCount).fill(1);
      let size = this.size;
      for (const id of excluded) {
        const slot = this.ids.slotOf(id);
        if (slot >= 0 && inScope[slot] === 1) {
          inScope[slot] = 0;
          size--;
        }
      }
      return { inScope, size, candidateSlots: undefined };
    }
    inScope = new Uint8Array(slotCount);
    const named = new Int32Array(Math.min(candidates.size, this.size));
    let n = 0;
    // forEach, not for…of: a walk that serves several kinds of set through the iterator protocol allocates a result
    // a step, tens of thousands a filtered search.
    candidates.forEach((id) => {
      const slot = this.ids.slotOf(id);
      if (slot >= 0 && inScope[slot] === 0) {
        inScope[slot] = 1;
        named[n++] = slot;
      }
    });
    for (const id of excluded ?? []) {
      const slot = this.ids.slotOf(id);
      if (slot >= 0) inScope[slot] = 0;
    }
    let kept = 0;
    for (let i = 0; i < n; i++) if (inScope[named[i]!] === 1) named[kept++] = named[i]!;
    const candidateSlots = named.subarray(0, kept).sort();
    return { inScope, size: kept, candidateSlots };
  }

  /** The held slots of a resolved scope, in slot order. */
  slotsIn(scope: SlotScope): Int32Array {
    if (scope.candidateSlots !== undefined) return scope.candidateSlots;
    const inScope = scope.inScope;
    const slots = new Int32Array(scope.size);
    let n = 0;
    for (let slot = 0; slot < this.ids.slotCount && n < slots.length; slot++) {
      if (this.ids.holds(slot) && (inScope === undefined || inScope[slot] === 1)) slots[n++] = slot;
    }
    return slots.subarray(0, n);
  }

  /** The normalised mean of these vectors; undefined when none of them is held. */
  centroid(ids: readonly string[]): Float32Array | undefined {
    const sum = new Float32Array(this.dimensions);
    let found = 0;
    for (const id of ids) {
      const slot = this.ids.slotOf(id);
      if (slot < 0) continue;
      const rows = this.block.rows;
      const row = this.rowOf[slot]!;
      const offset = row * this.dimensions;
      const scale = this.scales[row]!;
      for (let d = 0; d < this.dimensions; d++) sum[d] = sum[d]! + rows[offset + d]! * scale;
      found++;
    }
    if (found === 0) return undefined;
    let squares = 0;
    for (const value of sum) squares += value * value;
    const norm = Math.sqrt(squares) || 1;
    for (let d = 0; d < this.dimensions; d++) sum[d] = sum[d]! / norm;
    return sum;
  }

  stats(): AnnStats {
    const index = this.index;
    let bytes =
      this.block.bytes +
      this.scales.byteLength +
      this.rowOf.byteLength +
      this.slotAt.byteLength +
      this.ids.bytes;
    if (index) {
      bytes += index.centroids.bytes + index.listOf.byteLength + index.positionOf.byteLength;
      for (const list of index.lists) bytes += list.items.byteLength;
    }
    return {
      size: this.size,
      built: index !== undefined,
      lists: index?.lists.length ?? 0,
      builtSize: index?.builtSize ?? 0,
      stale: this.stale,
      capacity: this.block.capacity,
      bytes,
    };
  }

  /** The `k` best of every held vector in scope, scored outright. */
  private exactSlots(query: Float32Array, k: number, scope: SlotScope): SlotHits {
    const { quantized, scale } = this.quantizeQuery(query);
    // Unscoped: one pass over the rows of every slot below the highest, free ones included (never returned).
    const slots = scope.inScope === undefined ? undefined : this.slotsIn(scope);
    const rows = slots ? this.rowsOf(slots) : undefined;
    const count = slots ? slots.length : this.ids.slotCount;
    const sums = this.block.dots(quantized, rows, count);
    const scores = new Float32Array(count);
    for (let r = 0; r < count; r++) {
      const row = rows ? rows[r]! : r;
      scores[r] = this.ids.holds(this.slotAt[row]!)
        ? sums[r]! * this.scales[row]! * scale
        : Number.NEGATIVE_INFINITY;
    }
    // Equal similarities (duplicate vectors) rank by slot, wherever a build has placed their rows.
    const best = topIndices(scores, k, slots ?? this.slotAt).filter(
      (r) => scores[r]! > Number.NEGATIVE_INFINITY,
    );
    return {
      slots: Int32Array.from(best, (r) => (slots ? slots[r]! : this.slotAt[r]!)),
      scores: Float32Array.from(best, (r) => scores[r]!),
      info: { method: 'exact', scanned: count, probed: 0 },
    };
  }

  /** Rows an unscoped search scores: those of `probes` lists of average length, and never fewer than 4k. */
  private scanTarget(index: Lists, k: number, override: number | undefined): number {
    const lists = index.lists.length;
    const wanted = override ?? this.options.probes ?? defaultProbes(lists);
    const probes = Math.min(lists, Math.max(1, Math.floor(wanted)));
    return Math.max(4 * k, Math.ceil((probes * this.size) / lists));
  }

  private probe(
    index: Lists,
    query: Float32Array,
    k: number,
    inScope: Uint8Array | undefined,
    target: number,
  ): SlotHits {
    const { quantized, scale } = this.quantizeQuery(query);
    const lists = index.lists.length;
    const centroidSums = index.centroids.dots(quantized, undefined, lists);
    const order = new Float64Array(lists);
    for (let c = 0; c < lists; c++) order[c] = centroidSums[c]! * index.centroidScales[c]!;
    const ranked = nearestFirst(order, this.scanLists(index, target));
    let gathered = new Int32Array(Math.min(this.size, target * 2) + 1);
    let count = 0;
    let probed = 0;
    for (const c of ranked) {
      if (count >= target) break;
      const list = index.lists[c]!;
      probed++;
      if (count + list.length > gathered.length) {
        const grown = new Int32Array(Math.max(gathered.length * 2, count + list.length));
        grown.set(gathered.subarray(0, count));
        gathered = grown;
      }
      // A list holds rows; since the last build each list's rows are one run of the block (`placeRows`).
      const items = list.items;
      if (inScope === undefined) {
        gathered.set(items.subarray(0, list.length), count);
        count += list.length;
        continue;
      }
      const slotAt = this.slotAt;
      for (let p = 0; p < list.length; p++) {
        const row = items[p]!;
        if (inScope[slotAt[row]!] === 1) gathered[count++] = row;
      }
    }
    const rows = gathered.subarray(0, count);
    const sums = this.block.dots(quantized, rows, count);
    const scores = new Float32Array(count);
    const slotOfRow = new Int32Array(count);
    for (let r = 0; r < count; r++) {
      scores[r] = sums[r]! * this.scales[rows[r]!]! * scale;
      slotOfRow[r] = this.slotAt[rows[r]!]!;
    }
    // Equal similarities (duplicate vectors) rank by slot, wherever a build has placed their rows.
    const best = topIndices(scores, k, slotOfRow);
    return {
      slots: Int32Array.from(best, (r) => slotOfRow[r]!),
      scores: Float32Array.from(best, (r) => scores[r]!),
      info: { method: 'probed', scanned: count, probed },
    };
  }

  /** About how many lists hold `target` rows, with room to spare (a scope's rows are fewer than a list's). */
  private scanLists(index: Lists, target: number): number {
    return Math.ceil((4 * target * index.lists.length) / Math.max(1, this.size)) + 8;
  }

  private *buildSteps(): Generator<void, void, void> {
    const changed = new Set<number>();
    this.changedDuringBuild = changed;
    try {
      const live = this.liveSlots();
      const n = live.length;
      const listCount = Math.max(
        1,
        Math.min(n, Math.floor(this.options.lists ?? Math.max(16, Math.sqrt(n)))),
      );
      if (n === 0) {
        this.index = undefined;
        return;
      }
      const random = seededUniform(this.options.seed ?? 0x5eed);
      // A sample in random order (a partial Fisher–Yates shuffle of the live slots).
      const sampleSize = Math.min(n, listCount * Math.max(1, Math.floor(this.options.samplePerList ?? 40)));
      for (let i = 0; i < sampleSize; i++) {
        const j = i + Math.floor(random() * (n - i));
        const swap = live[i]!;
        live[i] = live[j]!;
        live[j] = swap;
      }
      const sample = live.slice(0, sampleSize);
      const dims = this.dimensions;
      // Float centroids, first the first `listCount` sample rows (a random choice of vectors).
      const centroids = new Float32Array(listCount * dims);
      for (let c = 0; c < listCount; c++) this.readRow(sample[c]!, centroids, c * dims);
      const block = new RowBlock(dims, listCount, this.simd);
      const centroidScales = new Float32Array(listCount);
      const query = new Int16Array(dims);
      const assignment = new Int32Array(sampleSize);
      const iterations = Math.max(1, Math.floor(this.options.iterations ?? 10));
      for (let iteration = 0; iteration < iterations; iteration++) {
        storeCentroids(centroids, listCount, dims, block, centroidScales);
        for (let start = 0; start < sampleSize; start += this.buildChunk) {
          const end = Math.min(sampleSize, start + this.buildChunk);
          for (let i = start; i < end; i++) {
            assignment[i] = this.nearest(sample[i]!, block, centroidScales, query);
          }
          yield;
        }
        // The mean of each list's rows; a list left empty takes a random sample row.
        centroids.fill(0);
        const counts = new Int32Array(listCount);
        for (let i = 0; i < sampleSize; i++) {
          const slot = sample[i]!;
          // Deleted during the build: its row no longer holds the vector sampled.
          if (!this.ids.holds(slot)) continue;
          const c = assignment[i]!;
          counts[c]!++;
          const row = this.rowOf[slot]!;
          const scale = this.scales[row]!;
          const rows = this.block.rows;
          const offset = row * dims;
          const at = c * dims;
          for (let d = 0; d < dims; d++) centroids[at + d] = centroids[at + d]! + rows[offset + d]! * scale;
        }
        for (let c = 0; c < listCount; c++) {
          if (counts[c] === 0) this.readRow(sample[Math.floor(random() * sampleSize)]!, centroids, c * dims);
        }
        yield;
      }
      storeCentroids(centroids, listCount, dims, block, centroidScales);
      const index: Lists = {
        centroids: block,
        centroidScales,
        lists: Array.from({ length: listCount }, () => new SlotList()),
        listOf: new Int32Array(this.block.capacity).fill(-1),
        positionOf: new Int32Array(this.block.capacity),
        builtSize: n,
      };
      // Every row held when the build began; rows set or deleted since are filed at the end.
      const all = this.liveSlots();
      for (let start = 0; start < all.length; start += this.buildChunk) {
        const end = Math.min(all.length, start + this.buildChunk);
        for (let i = start; i < end; i++) {
          const slot = all[i]!;
          if (this.ids.holds(slot) && !changed.has(slot)) this.file(index, slot, query);
        }
        yield;
      }
      // A row filed above may have changed since: taken out, and filed again if it is still held.
      for (const slot of changed) {
        if (!this.ids.holds(slot)) this.unfile(index, slot);
        else this.file(index, slot, query);
      }
      this.index = index;
      this.changedDuringBuild = undefined;
      yield* this.placeRows(index);
    } finally {
      this.changedDuringBuild = undefined;
    }
  }

  /**
   * Moves the rows so that each list's are one run of the block, list after list: a probe then reads a dozen runs
   * instead of rows scattered over it (at 1,000,000 × 512, the kernel's time for the probed rows fell about 6×:
   * bench/ann/vector-path.ts). Row by row, swapping two rows at a time and keeping the lists, `rowOf` and `slotAt`
   * in step, so searches and writes between two chunks see a consistent index; what changes meanwhile is only
   * placed less well. Rows of vectors added after the build are wherever a free row was.
   */
  private *placeRows(index: Lists): Generator<void, void, void> {
    const scratch = new Int8Array(this.dimensions);
    let next = 0;
    let moved = 0;
    for (const list of index.lists) {
      for (let p = 0; p < list.length && next < this.ids.slotCount; p++) {
        const row = list.items[p]!;
        if (row !== next) this.swapRows(index, row, next, scratch);
        next++;
        if (++moved % this.buildChunk === 0) yield;
      }
    }
  }

  /** Exchanges two rows of the block (components and scales), and where their slots' rows are. */
  private swapRows(index: Lists, a: number, b: number, scratch: Int8Array): void {
    const dims = this.dimensions;
    const rows = this.block.rows;
    scratch.set(rows.subarray(a * dims, (a + 1) * dims));
    rows.copyWithin(a * dims, b * dims, (b + 1) * dims);
    rows.set(scratch, b * dims);
    const scale = this.scales[a]!;
    this.scales[a] = this.scales[b]!;
    this.scales[b] = scale;
    const slotA = this.slotAt[a]!;
    const slotB = this.slotAt[b]!;
    this.slotAt[a] = slotB;
    this.slotAt[b] = slotA;
    this.rowOf[slotA] = b;
    this.rowOf[slotB] = a;
    for (const [slot, row] of [
      [slotA, b],
      [slotB, a],
    ] as const) {
      const c = slot < index.listOf.length ? index.listOf[slot]! : -1;
      if (c >= 0) index.lists[c]!.items[index.positionOf[slot]!] = row;
    }
  }

  /** Files `slot` in the list of its nearest centroid (after taking it out of the one it was in). */
  private file(index: Lists, slot: number, query = new Int16Array(this.dimensions)): void {
    this.ensureListCapacity(index, slot + 1);
    this.unfile(index, slot);
    const c = this.nearest(slot, index.centroids, index.centroidScales, query);
    index.listOf[slot] = c;
    index.positionOf[slot] = index.lists[c]!.push(this.rowOf[slot]!);
  }

  private unfile(index: Lists, slot: number): void {
    if (slot >= index.listOf.length) return;
    const c = index.listOf[slot]!;
    if (c < 0) return;
    const position = index.positionOf[slot]!;
    const moved = index.lists[c]!.removeAt(position);
    if (moved >= 0) index.positionOf[this.slotAt[moved]!] = position;
    index.listOf[slot] = -1;
  }

  /** The centroid with the highest cosine similarity to the row in `slot`. */
  private nearest(slot: number, block: RowBlock, centroidScales: Float32Array, query: Int16Array): number {
    const dims = this.dimensions;
    const rows = this.block.rows;
    const offset = this.rowOf[slot]! * dims;
    // The row's int8 components serve as the query: its own scale is the same for every centroid.
    for (let d = 0; d < dims; d++) query[d] = rows[offset + d]!;
    const sums = block.dots(query, undefined, centroidScales.length);
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < centroidScales.length; c++) {
      const score = sums[c]! * centroidScales[c]!;
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    }
    return best;
  }

  /** The slot holding `id`, given a free one (or a new one past the last) when it has none. */
  private slotFor(id: string): number {
    const held = this.ids.slotOf(id);
    if (held >= 0) return held;
    const slot = this.free.pop() ?? this.ids.slotCount;
    if (slot === this.ids.slotCount) this.ensureCapacity(slot + 1);
    this.ids.set(slot, id);
    return slot;
  }

  private readRow(slot: number, out: Float32Array, at: number): void {
    const rows = this.block.rows;
    const row = this.rowOf[slot]!;
    const offset = row * this.dimensions;
    const scale = this.scales[row]!;
    for (let d = 0; d < this.dimensions; d++) out[at + d] = rows[offset + d]! * scale;
  }

  private liveSlots(): Int32Array {
    const slots = new Int32Array(this.ids.size);
    let n = 0;
    for (let slot = 0; slot < this.ids.slotCount; slot++) if (this.ids.holds(slot)) slots[n++] = slot;
    return slots;
  }

  private quantizeQuery(query: Float32Array): { quantized: Int16Array; scale: number } {
    const quantized = new Int16Array(this.dimensions);
    const scale = quantize(query, this.queryLimit, quantized, 0);
    return { quantized, scale };
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.block.capacity) return;
    const before = this.scales.length;
    this.block.grow(rows);
    const scales = new Float32Array(this.block.capacity);
    scales.set(this.scales);
    this.scales = scales;
    // Slots and rows past the old capacity start paired one to one (the permutation stays one).
    const rowOf = identity(this.block.capacity);
    rowOf.set(this.rowOf.subarray(0, before));
    this.rowOf = rowOf;
    const slotAt = identity(this.block.capacity);
    slotAt.set(this.slotAt.subarray(0, before));
    this.slotAt = slotAt;
  }

  /** The rows of these slots, in their order. */
  private rowsOf(slots: Int32Array): Int32Array {
    const rows = new Int32Array(slots.length);
    const rowOf = this.rowOf;
    for (let i = 0; i < slots.length; i++) rows[i] = rowOf[slots[i]!]!;
    return rows;
  }

  private ensureListCapacity(index: Lists, slots: number): void {
    if (slots <= index.listOf.length) return;
    const length = Math.max(slots, this.block.capacity);
    const listOf = new Int32Array(length).fill(-1);
    listOf.set(index.listOf);
    const positionOf = new Int32Array(length);
    positionOf.set(index.positionOf);
    index.listOf = listOf;
    index.positionOf = positionOf;
  }
}

/**
 * Lists probed by default: 1.2% of them, at least 10. On the registry's stand-in vectors (bench/ann/semantic-path.ts)
 * semantic recall@10 against the exact pass was 0.977 at 10 of 447 lists (200,000 agents) and 0.974 at 12 of 1,000
 * (1,000,000), against 0.989 and 0.999 at the 3% probed before, for about half the CPU a search at 1,000,000; 8
 * probes fell to 0.966 and 0.934. Hybrid recall was 0.996 and 1.000 at each count (the lexical matches join the pool).
 */
function defaultProbes(lists: number): number {
  return Math.max(10, lists * 0.012);
}

/** Normalises each float centroid and stores it as int8 with a scale, as the rows are stored. */
function storeCentroids(
  centroids: Float32Array,
  count: number,
  dims: number,
  block: RowBlock,
  scales: Float32Array,
): void {
  for (let c = 0; c < count; c++) {
    scales[c] = quantize(centroids.subarray(c * dims, (c + 1) * dims), ROW_LIMIT, block.rows, c * dims);
  }
}

/**
 * The lists, nearest centroid first: the `likely` nearest chosen outright (a probe rarely reads more), then, should
 * it read past them, the rest in order. Sorting all the centroids (1,000 at 1,000,000 vectors) for the dozen read
 * cost more than the probe's other steps together.
 */
function* nearestFirst(order: Float64Array, likely: number): Generator<number, void, void> {
  const first = topIndices(order, likely);
  yield* first;
  if (first.length === order.length) return;
  const taken = new Uint8Array(order.length);
  for (const c of first) taken[c] = 1;
  const rest: number[] = [];
  for (let c = 0; c < order.length; c++) if (taken[c] === 0) rest.push(c);
  rest.sort((a, b) => order[b]! - order[a]! || a - b);
  yield* rest;
}

/** 0, 1, …, length - 1. */
function identity(length: number): Int32Array {
  const out = new Int32Array(length);
  for (let i = 0; i < length; i++) out[i] = i;
  return out;
}
