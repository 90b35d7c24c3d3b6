/**
 * Answers to reads, kept until the database changes. Listings and single agents are asked for far more often than
 * agents change, and each answer costs queries and JSON work; an answer made while the database had change count
 * n is served only while it still has n (any write, in this process or another, moves it), so a cached answer is
 * never older than the last write. Answers depend on who asks (entitlements, owner-only members) and on the base
 * URL (gateway endpoints), so both are part of the key.
 */
import type { Caller } from '../records/types.js';

export interface CachedAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export class AnswerCache {
  readonly #maxEntries: number;
  readonly #changeCount: () => number;
  readonly #answers = new Map<string, CachedAnswer>();
  #madeAt = -1;

  /** `maxEntries` 0 keeps nothing. */
  constructor(maxEntries: number, changeCount: () => number) {
    this.#maxEntries = Math.max(0, Math.floor(maxEntries));
    this.#changeCount = changeCount;
  }

  /** The change count to make an answer at: read it before the queries the answer comes from. */
  begin(): number {
    return this.#changeCount();
  }

  get(key: string): CachedAnswer | undefined {
    if (this.#maxEntries === 0) return undefined;
    const now = this.#changeCount();
    if (now !== this.#madeAt) {
      this.#answers.clear();
      this.#madeAt = now;
      return undefined;
    }
    const answer = this.#answers.get(key);
    if (answer !== undefined) {
      // Least recently used first in the map's order.
      this.#answers.delete(key);
      this.#answers.set(key, answer);
    }
    return answer;
  }

  /** Keeps `answer` when the database has not changed since `madeAt` (from `begin`). */
  set(key: string, answer: CachedAnswer, madeAt: number): void {
    if (this.#maxEntries === 0 || this.#changeCount() !== madeAt) return;
    if (madeAt !== this.#madeAt) {
      this.#answers.clear();
      this.#madeAt = madeAt;
    }
    if (this.#answers.size >= this.#maxEntries) {
      const oldest = this.#answers.keys().next().value;
      if (oldest !== undefined) this.#answers.delete(oldest);
    }
    this.#answers.set(key, answer);
  }
}

/** The part of a cache key that stands for who asks: what they see depends on their token alone. */
export function callerKey(caller: Caller): string {
  return caller.tokenId ?? 'anonymous';
}
