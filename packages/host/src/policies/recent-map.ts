/**
 * A Map that holds at most `capacity` entries, forgetting the least recently used first. It bounds the memory
 * the per-client policies (rate limits, idempotency keys) may take however many clients call: a flood of new
 * client keys costs old entries, never unbounded growth. JavaScript Maps iterate in insertion order, so
 * re-inserting an entry on use keeps the least recently used one first.
 */
export class RecentMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`A RecentMap needs a positive integer capacity (got ${capacity}).`);
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value, leaving its place in the order alone. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Stores `value` as the most recently used, forgetting the least recently used entries beyond capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Entries from least to most recently used. */
  entries(): IterableIterator<[K, V]> {
    return this.#entries.entries();
  }
}
