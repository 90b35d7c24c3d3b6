/**
 * Ids numbered by slot, both ways (id → slot, slot → id), held in typed arrays outside the JavaScript heap.
 *
 * Why not a `Map<string, number>` and a `string[]`: an index over a million agents held that way puts a million
 * strings and a multi-million-entry hash table on the heap, and every full garbage collection marks all of them.
 * With three such indexes (lexical, vector, facets) a full collection of a 1,000,000-agent registry marked ~300 MB
 * and took ~400 ms on the main thread or ~180 ms of concurrent marking beside the searches, which ran 2× slower
 * meanwhile: the slow tail of search latency. Typed arrays are not traced by the collector, so the same ids cost it
 * nothing. No npm package keeps a string-keyed table off the heap (the well-kept hash maps are `Map` wrappers or
 * integer-keyed), hence this one, kept small: open addressing with linear probing over a power-of-two bucket array.
 *
 * Ids are stored as their UTF-16 code units, so hashing, equality and ordering read a JavaScript string directly
 * (no encoding) and order exactly as `<` does: a byte a unit while every unit is below 256 (registry ids are ASCII),
 * two bytes from the first id that has a wider one. Reading an id back makes a string from its units (Node's Buffer
 * decoding, a few hundred ns): callers keep slots in hot loops and read ids for what they return. An id that leaves
 * abandons its units until the pool next grows, when the live ids are packed again if half of it is abandoned.
 */

/** A bucket no id has used. */
const VACANT = 0;
/** A bucket whose id left: probes go past it, inserts may reuse it. */
const VACATED = -1;
/** A slot's length when it holds no id. */
const NO_ID = -1;
const MIN_BUCKETS = 16;

/** FNV-1a over the code units, then murmur3's finaliser: linear probing needs low bits that vary. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * @example
 * ```ts
 * import { IdTable } from '@agentry/embeddings';
 *
 * const table = new IdTable();
 * table.set(0, 'weather');
 * table.set(1, 'invoices');
 * console.log(table.slotOf('invoices'), table.idAt(0)); // 1 'weather'
 * table.deleteAt(0);
 * console.log(table.slotOf('weather'), table.size); // -1 1
 * ```
 */
export class IdTable {
  /** Every id's code units, back to back: `#pool`'s bytes, one or (once `#wide`) two a unit. */
  #units: Uint8Array | Uint16Array;
  #pool: Buffer;
  #wide = false;
  /** Units written (live and abandoned). */
  #used = 0;
  /** Units of ids that left. */
  #abandoned = 0;
  /** Per slot: where its id's units start, how many (`NO_ID` when it holds none), and the id's hash. */
  #starts: Uint32Array;
  #lengths: Int32Array;
  #hashes: Uint32Array;
  /** One past the highest slot ever set. */
  #slotCount = 0;
  /** Per bucket: slot + 1, `VACANT` or `VACATED`. */
  #buckets: Int32Array;
  #vacated = 0;
  #size = 0;

  constructor(initialSlots = 1024) {
    const slots = Math.max(1, Math.floor(initialSlots));
    this.#pool = Buffer.alloc(slots * 16);
    this.#units = new Uint8Array(this.#pool.buffer, this.#pool.byteOffset, this.#pool.length);
    this.#starts = new Uint32Array(slots);
    this.#lengths = new Int32Array(slots).fill(NO_ID);
    this.#hashes = new Uint32Array(slots);
    this.#buckets = new Int32Array(bucketsFor(slots));
  }

  /** How many ids the table holds. */
  get size(): number {
    return this.#size;
  }

  /**
   * One past the highest slot ever set (deletes do not lower it): every held slot is below it, and free ones may
   * be.
   */
  get slotCount(): number {
    return this.#slotCount;
  }

  /** Bytes of the typed arrays (outside the JavaScript heap). */
  get bytes(): number {
    return (
      this.#pool.byteLength +
      this.#starts.byteLength +
      this.#lengths.byteLength +
      this.#hashes.byteLength +
      this.#buckets.byteLength
    );
  }

  /** The slot holding `id`, or -1. */
  slotOf(id: string): number {
    return this.#findFrom(hashOf(id), id);
  }

  has(id: string): boolean {
    return this.slotOf(id) >= 0;
  }

  /** Whether `slot` holds an id. */
  holds(slot: number): boolean {
    return slot >= 0 && slot < this.#slotCount && this.#lengths[slot]! >= 0;
  }

  /** The id in `slot` (a new string each call), or undefined. */
  idAt(slot: number): string | undefined {
    if (!this.holds(slot)) return undefined;
    const start = this.#starts[slot]!;
    const end = start + this.#lengths[slot]!;
    // Node's UTF-16 decoding keeps a lone surrogate as it was (a TextDecoder would replace it).
    return this.#wide
      ? this.#pool.toString('utf16le', start * 2, end * 2)
      : this.#pool.toString('latin1', start, end);
  }

  /**
   * Orders the id in `slot` against `id` as `<` orders strings: negative when it sorts first, 0 when equal.
   * Nothing is decoded.
   */
  compareAt(slot: number, id: string): number {
    const start = this.#starts[slot]!;
    const length = this.#lengths[slot]!;
    const shared = Math.min(length, id.length);
    for (let i = 0; i < shared; i++) {
      const difference = this.#units[start + i]! - id.charCodeAt(i);
      if (difference !== 0) return difference;
    }
    return length - id.length;
  }

  /** Orders the ids in two held slots as `<` orders strings. */
  compareSlots(a: number, b: number): number {
    const units = this.#units;
    const startA = this.#starts[a]!;
    const startB = this.#starts[b]!;
    const lengthA = this.#lengths[a]!;
    const lengthB = this.#lengths[b]!;
    const shared = Math.min(lengthA, lengthB);
    for (let i = 0; i < shared; i++) {
      const difference = units[startA + i]! - units[startB + i]!;
      if (difference !== 0) return difference;
    }
    return lengthA - lengthB;
  }

  /** Whether the id in a held slot begins with `prefix`. Nothing is decoded. */
  startsWithAt(slot: number, prefix: string): boolean {
    if (this.#lengths[slot]! < prefix.length) return false;
    const start = this.#starts[slot]!;
    const units = this.#units;
    for (let i = 0; i < prefix.length; i++) if (units[start + i] !== prefix.charCodeAt(i)) return false;
    return true;
  }

  /** Puts `id` in `slot`. Throws when the slot is taken or the id is held elsewhere. */
  set(slot: number, id: string): void {
    if (!Number.isInteger(slot) || slot < 0)
      throw new RangeError(`slot ${slot} is not a non-negative integer`);
    if (this.holds(slot)) throw new Error(`slot ${slot} already holds ${this.idAt(slot)}`);
    const hash = hashOf(id);
    if (this.#findFrom(hash, id) >= 0) throw new Error(`${id} is already held`);
    this.#ensureSlots(slot + 1);
    if (!this.#wide) {
      for (let i = 0; i < id.length; i++) {
        if (id.charCodeAt(i) > 0xff) {
          this.#widen();
          break;
        }
      }
    }
    this.#ensureUnits(id.length);
    const start = this.#used;
    const units = this.#units;
    for (let i = 0; i < id.length; i++) units[start + i] = id.charCodeAt(i);
    this.#used += id.length;
    this.#starts[slot] = start;
    this.#lengths[slot] = id.length;
    this.#hashes[slot] = hash;
    if (slot >= this.#slotCount) this.#slotCount = slot + 1;
    this.#size++;
    this.#place(slot);
    if ((this.#size + this.#vacated) * 2 > this.#buckets.length) this.#rehash(bucketsFor(this.#size));
  }

  /** Takes the id out of `slot`; returns whether it held one. */
  deleteAt(slot: number): boolean {
    if (!this.holds(slot)) return false;
    this.#buckets[this.#bucketOf(slot)] = VACATED;
    this.#vacated++;
    this.#abandoned += this.#lengths[slot]!;
    this.#lengths[slot] = NO_ID;
    this.#size--;
    return true;
  }

  /** Moves the id in `from` to the free slot `to`. */
  move(from: number, to: number): void {
    if (!this.holds(from)) throw new Error(`slot ${from} holds no id`);
    if (this.holds(to)) throw new Error(`slot ${to} already holds ${this.idAt(to)}`);
    this.#ensureSlots(to + 1);
    this.#buckets[this.#bucketOf(from)] = to + 1;
    this.#starts[to] = this.#starts[from]!;
    this.#lengths[to] = this.#lengths[from]!;
    this.#hashes[to] = this.#hashes[from]!;
    this.#lengths[from] = NO_ID;
    if (to >= this.#slotCount) this.#slotCount = to + 1;
  }

  #equals(slot: number, id: string): boolean {
    const length = this.#lengths[slot]!;
    if (length !== id.length) return false;
    const start = this.#starts[slot]!;
    const units = this.#units;
    for (let i = 0; i < length; i++) if (units[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  #findFrom(hash: number, id: string): number {
    const buckets = this.#buckets;
    const mask = buckets.length - 1;
    for (let bucket = hash & mask; ; bucket = (bucket + 1) & mask) {
      const entry = buckets[bucket]!;
      if (entry === VACANT) return -1;
      if (entry > 0 && this.#hashes[entry - 1] === hash && this.#equals(entry - 1, id)) return entry - 1;
    }
  }

  /** The bucket a held slot is filed in. */
  #bucketOf(slot: number): number {
    const buckets = this.#buckets;
    const mask = buckets.length - 1;
    let bucket = this.#hashes[slot]! & mask;
    while (buckets[bucket] !== slot + 1) bucket = (bucket + 1) & mask;
    return bucket;
  }

  /** Files a held slot in the first vacant or vacated bucket of its probe. */
  #place(slot: number): void {
    const buckets = this.#buckets;
    const mask = buckets.length - 1;
    let bucket = this.#hashes[slot]! & mask;
    while (buckets[bucket]! > 0) bucket = (bucket + 1) & mask;
    if (buckets[bucket] === VACATED) this.#vacated--;
    buckets[bucket] = slot + 1;
  }

  #rehash(length: number): void {
    this.#buckets = new Int32Array(Math.max(length, this.#buckets.length));
    this.#vacated = 0;
    const mask = this.#buckets.length - 1;
    for (let slot = 0; slot < this.#slotCount; slot++) {
      if (this.#lengths[slot]! < 0) continue;
      let bucket = this.#hashes[slot]! & mask;
      while (this.#buckets[bucket] !== VACANT) bucket = (bucket + 1) & mask;
      this.#buckets[bucket] = slot + 1;
    }
  }

  #ensureSlots(count: number): void {
    if (count <= this.#starts.length) return;
    const length = Math.max(count, Math.ceil(this.#starts.length * 1.5));
    const starts = new Uint32Array(length);
    starts.set(this.#starts);
    const lengths = new Int32Array(length).fill(NO_ID);
    lengths.set(this.#lengths);
    const hashes = new Uint32Array(length);
    hashes.set(this.#hashes);
    this.#starts = starts;
    this.#lengths = lengths;
    this.#hashes = hashes;
  }

  /** Room for `wanted` more units: the live ids packed again when half the pool is abandoned, else a bigger pool. */
  #ensureUnits(wanted: number): void {
    if (this.#used + wanted <= this.#units.length) return;
    const live = this.#used - this.#abandoned;
    const length =
      this.#abandoned * 2 >= this.#used && live + wanted <= this.#units.length
        ? this.#units.length
        : Math.max(live + wanted, Math.ceil(this.#units.length * 1.5));
    const pool = Buffer.alloc(length * (this.#wide ? 2 : 1));
    const units = this.#viewOf(pool);
    let used = 0;
    for (let slot = 0; slot < this.#slotCount; slot++) {
      const size = this.#lengths[slot]!;
      if (size < 0) continue;
      const start = this.#starts[slot]!;
      units.set(this.#units.subarray(start, start + size), used);
      this.#starts[slot] = used;
      used += size;
    }
    this.#pool = pool;
    this.#units = units;
    this.#used = used;
    this.#abandoned = 0;
  }

  /** From a byte a unit to two: the units as they were, in a pool twice the size. */
  #widen(): void {
    const pool = Buffer.alloc(this.#units.length * 2);
    const units = new Uint16Array(pool.buffer, pool.byteOffset, this.#units.length);
    units.set(this.#units);
    this.#pool = pool;
    this.#units = units;
    this.#wide = true;
  }

  #viewOf(pool: Buffer): Uint8Array | Uint16Array {
    return this.#wide
      ? new Uint16Array(pool.buffer, pool.byteOffset, pool.length / 2)
      : new Uint8Array(pool.buffer, pool.byteOffset, pool.length);
  }
}

/** A power of two at least four times `count`: probes stay short at a load of ½ (rehashed past it). */
function bucketsFor(count: number): number {
  let length = MIN_BUCKETS;
  while (length < count * 4) length *= 2;
  return length;
}
