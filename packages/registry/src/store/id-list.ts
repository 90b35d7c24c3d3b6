/**
 * Distinct ids seen as a read-only set, with no hash table until one is asked for. A filtered search's scope holds
 * tens of thousands of agents (`searchScope` in agents.ts), and the indexes in memory only walk it; a Set built for it
 * at each search was ~0.8 MB that lived long enough to need a full collection, which slowed the searches beside it
 * (docs/search.md, "Garbage collection at a million agents"). `has` builds the Set the first time it is asked (the
 * stored lexical engine asks), and keeps it.
 */
export class IdList implements ReadonlySet<string> {
  readonly #ids: readonly string[];
  #lookup: Set<string> | undefined;

  /** `ids` must be distinct, and is not copied: the caller hands it over. */
  constructor(ids: readonly string[]) {
    this.#ids = ids;
  }

  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    this.#lookup ??= new Set(this.#ids);
    return this.#lookup.has(id);
  }

  forEach(visit: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const id of this.#ids) visit.call(thisArg, id, id, this);
  }

  // An array's iterators walk the ids as a set's would (in the order given); the types differ only in name.
  [Symbol.iterator](): SetIterator<string> {
    return this.#ids.values() as unknown as SetIterator<string>;
  }

  keys(): SetIterator<string> {
    return this[Symbol.iterator]();
  }

  values(): SetIterator<string> {
    return this[Symbol.iterator]();
  }

  entries(): SetIterator<[string, string]> {
    return this.#ids.map((id): [string, string] => [id, id]).values() as unknown as SetIterator<
      [string, string]
    >;
  }
}
