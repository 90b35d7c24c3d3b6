/**
 * Query embeddings, least recently used first out. The same need is asked again and again (a UI typing, an
 * orchestrator retrying), and embedding a query costs tens of milliseconds with the bundled model — more than the
 * whole rest of a search — so a hit is most of the latency budget.
 */
export class QueryEmbeddingCache {
  private readonly entries = new Map<string, Float32Array>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Float32Array | undefined {
    const vector = this.entries.get(key);
    if (vector !== undefined) {
      // Map iteration order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(key);
      this.entries.set(key, vector);
    }
    return vector;
  }

  set(key: string, vector: Float32Array): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, vector);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Queries that differ only in spacing embed alike. */
export function queryCacheKey(providerId: string, query: string): string {
  return `${providerId}\u0000${query.trim().replace(/\s+/g, ' ')}`;
}
