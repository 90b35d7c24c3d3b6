/**
 * Semantic candidates from the approximate nearest-neighbour index (`AnnIndex`, @agentry/embeddings) once the
 * registry holds enough vectors that scoring every one of them per query vector costs too much (docs/search.md, "A
 * vector index that scales").
 *
 * A search then ranks a pool instead of every agent in scope: the index's best agents in scope for the whole query
 * and for each clause, and the lexical matches that have a vector. Every agent of the pool is in scope (the index
 * never returns one outside it, the lexical matches were read with the same scope), so an agent the caller may not
 * see is neither ranked nor counted. Fusion standardises by the statistics of the whole population in scope, not of
 * the pool (which holds the best agents only): those are estimated from a uniform sample of the agents in scope,
 * scored exactly, so a score keeps the scale of an exact search.
 */
import { type AnnIndex, type IdsByPosition, type SlotScope, sortedIndexOf } from '@agentry/embeddings';
import type { Moments, SemanticPopulation } from '../fusion.js';
import type { SemanticRanking } from '../vector-store.js';

/** Agents the index returns per query vector (the whole query, each clause) into the pool. */
export const POOL_PER_QUERY = 300;
/** Agents of the population whose similarities estimate its mean and deviation. */
export const SAMPLE_SIZE = 2000;

/**
 * A deterministic uniform sample of the ids held, kept as they come and go: an id is in it when a hash of it falls
 * below a cap, lowered as the collection grows so that the sample stays a few times `SAMPLE_SIZE`.
 */
export class HashSample {
  private readonly hashes = new Map<string, number>();
  /** Ids whose hash is below this are kept (a fraction of 2³²). */
  private cap = 2 ** 32;

  constructor(private readonly size: number = SAMPLE_SIZE) {}

  /** Takes an id the store now holds; `held` is how many it holds. */
  add(id: string, held: number): void {
    const hash = hashId(id);
    if (hash < this.cap) this.hashes.set(id, hash);
    // Kept between 4 and 8 times the sample wanted: halve the cap when the kept ids reach 8 times it.
    if (this.hashes.size > 8 * this.size && held > 8 * this.size) {
      this.cap /= 2;
      for (const [kept, value] of this.hashes) if (value >= this.cap) this.hashes.delete(kept);
    }
  }

  delete(id: string): void {
    this.hashes.delete(id);
  }

  /** About `size` ids of the `held` ones, uniformly (by hash). */
  draw(held: number): string[] {
    const below = Math.min(this.cap, (2 ** 32 * this.size) / Math.max(1, held));
    const out: string[] = [];
    for (const [id, hash] of this.hashes) if (hash < below) out.push(id);
    return out;
  }
}

/** FNV-1a, 32 bits. */
function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The agents in scope with a vector: how many, and a sample of their slots. */
export interface PopulationInScope {
  size: number;
  sample: Int32Array;
  /**
   * Whether `sample` is the caller's own `drawn` array, the same from search to search (the store keeps it until a
   * vector changes): the index then scores a copy of its rows made once (`AnnIndex.scoresAtKept`), not the rows
   * scattered over its block. A sample filtered for a scope is new at each search and is scored where it lies.
   */
  kept?: boolean;
}

/** The similarities of the sample to these queries: from the index's copy of its rows when the sample is kept. */
function sampleScores(
  ann: AnnIndex,
  population: PopulationInScope,
  queries: readonly Float32Array[],
): Float32Array[] {
  return population.kept === true
    ? ann.scoresAtKept(queries, population.sample, 'sample')
    : ann.scoresAt(queries, population.sample);
}

/**
 * The agents in scope that have a vector: how many, and the slots of a uniform sample of them. `drawn` is the
 * sample of every agent held (`HashSample.draw`'s, as slots in slot order); a scope keeps those of it in scope, or,
 * for a filter, a stride over the candidates it names.
 */
export function populationInScope(scope: SlotScope, drawn: Int32Array): PopulationInScope {
  const { candidateSlots, inScope } = scope;
  if (candidateSlots === undefined) {
    if (inScope === undefined) return { size: scope.size, sample: drawn, kept: true };
    const kept = new Int32Array(drawn.length);
    let n = 0;
    for (const slot of drawn) if (inScope[slot] === 1) kept[n++] = slot;
    return { size: scope.size, sample: kept.subarray(0, n) };
  }
  const stride = Math.max(1, candidateSlots.length / SAMPLE_SIZE);
  const sample = new Int32Array(Math.ceil(candidateSlots.length / stride));
  let n = 0;
  for (let at = 0; at < candidateSlots.length && n < sample.length; at += stride) {
    sample[n++] = candidateSlots[Math.floor(at)]!;
  }
  return { size: candidateSlots.length, sample: sample.subarray(0, n) };
}

/**
 * The similarities of a pool (the index's best agents in scope per query vector, and the lexical matches with a
 * vector) to the query vectors, standardised by the population's statistics (estimated from `population.sample`),
 * and feedback's similarities over the same pool. The scope is resolved to slots once (`AnnIndex.resolveScope`):
 * the probes, the lexical matches and the passes over the pool and the sample read slots, not ids.
 */
export function approximateRanking(
  ann: AnnIndex,
  queries: readonly Float32Array[],
  scope: SlotScope,
  lexicalIds: readonly string[],
  population: PopulationInScope,
  options: { poolPerQuery?: number; probes?: number } = {},
): SemanticRanking {
  const perQuery = options.poolPerQuery ?? POOL_PER_QUERY;
  const gathered: Int32Array[] = [];
  for (const query of queries) gathered.push(ann.searchSlots(query, perQuery, scope, options.probes).slots);
  const lexical = new Int32Array(lexicalIds.length);
  let lexicalCount = 0;
  // Fusion places the lexical matches in the pool by id: their slots are kept (-1: no vector) so that each costs one
  // lookup in the index's id table (a million entries, a cache miss each) instead of two.
  const lexicalSlots = new Map<string, number>();
  for (const id of lexicalIds) {
    const slot = ann.slotOfId(id);
    if (slot !== undefined && (scope.inScope === undefined || scope.inScope[slot] === 1)) {
      lexical[lexicalCount++] = slot;
    }
    lexicalSlots.set(id, slot ?? -1);
  }
  gathered.push(lexical.subarray(0, lexicalCount));
  const pool = uniqueSorted(gathered);
  // Scored twice (the query's vectors, then feedback's centroid): from one copy of its rows.
  const scores = ann.scoresAtKept(queries, pool);
  // Read from the index's id table when fusion asks: it returns a top few and looks up the demoted.
  const ids: IdsByPosition = { length: pool.length, at: (i) => ann.idAt(pool[i]!) };
  const positionOf = (id: string) => {
    const slot = lexicalSlots.get(id) ?? ann.slotOfId(id);
    return slot === undefined || slot < 0 ? undefined : sortedIndexOf(pool, slot);
  };
  const sampled = sampleScores(ann, population, queries);

  // Feedback asks for its centroid twice (the pool's similarities, then the sample's moments): compute it once.
  let lastLeaders: string | undefined;
  let lastCentroid: Float32Array | undefined;
  const centroidOf = (leaders: readonly string[]) => {
    const key = leaders.join('\u0000');
    if (key !== lastLeaders) {
      lastLeaders = key;
      lastCentroid = ann.centroid(leaders);
    }
    return lastCentroid;
  };
  const semanticPopulation: SemanticPopulation = {
    size: Math.max(population.size, ids.length),
    whole: momentsOf(sampled[0]!),
    clauses: sampled.slice(1).map(momentsOf),
    centroid(leaders) {
      const centroid = centroidOf(leaders);
      return centroid && momentsOf(sampleScores(ann, population, [centroid])[0]!);
    },
  };
  return {
    semantic: {
      ids,
      whole: scores[0]!,
      clauses: scores.slice(1),
      positionOf,
      population: semanticPopulation,
    },
    similarToCentroid: (leaders) => {
      const centroid = centroidOf(leaders);
      return centroid ? ann.scoresAtKept([centroid], pool)[0] : undefined;
    },
  };
}

/** The slots of several lists as one, each once, in slot order. */
export function uniqueSorted(lists: readonly Int32Array[]): Int32Array {
  let total = 0;
  for (const list of lists) total += list.length;
  const all = new Int32Array(total);
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < total; i++) if (n === 0 || all[i] !== all[n - 1]) all[n++] = all[i]!;
  return all.subarray(0, n);
}

function momentsOf(scores: ArrayLike<number>): Moments {
  const n = scores.length;
  if (n === 0) return { mean: 0, deviation: 0 };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += scores[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (scores[i]! - mean) ** 2;
  return { mean, deviation: Math.sqrt(squares / n) };
}
