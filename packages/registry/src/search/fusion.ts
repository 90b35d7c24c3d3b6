/**
 * How the lexical and semantic rankings become one.
 *
 * Raw scores are not comparable (BM25 is unbounded and grows with query length; cosine similarities of one model
 * crowd into a narrow band), and which ranker is right varies by query and by collection: on some benchmarks the
 * embedding ranking is far better than BM25, on others far worse. So each ranking is standardised over the
 * candidates (z-scores: how far an agent stands out from the rest for this query), which makes a ranker that is
 * sure of its top answer count for more than one that is not, and the two are added with a fixed weight.
 *
 * Two further steps, each measured on the development benchmarks (docs/search.md):
 * - Clauses: a long request often asks for several things. Every clause is embedded too, and an agent's semantic
 *   score is the mean of its whole-request score and its best clause score (both standardised).
 * - Feedback: the agents at the top of the first fused ranking say what the request is about better than the
 *   request does; agents similar to them (by embedding) are lifted (pseudo-relevance feedback). This finds the
 *   companions of a matched agent that the request does not name, e.g. the geocoder beside a place search.
 */
import { type IdsByPosition, standardize, topIndices } from '@agentry/embeddings';
import type { LexicalMatch } from './lexical/types.js';
import type { Demotion } from './types.js';

export interface SemanticScores {
  /**
   * Agents with a vector among the candidates, parallel to the score arrays: an array, or the vector index's view
   * that makes an id into a string when asked (fusion asks for the few it returns or looks up, not a pool's all).
   */
  ids: IdsByPosition;
  /** Cosine similarity to the whole query. */
  whole: ArrayLike<number>;
  /** Cosine similarity to each clause of the query (empty for a one-clause query). */
  clauses: ReadonlyArray<ArrayLike<number>>;
  /** Where an agent is in `ids` (a lookup the vector matrix already has); found by scanning `ids` when absent. */
  positionOf?: (id: string) => number | undefined;
  /**
   * When `ids` is a pool drawn from more agents (the approximate index's candidates, semantic/ann-candidates.ts):
   * the statistics of the agents in scope it stands for, which scores are standardised by instead of the pool's.
   */
  population?: SemanticPopulation;
}

/** Mean and standard deviation of one query's similarities over a population. */
export interface Moments {
  mean: number;
  deviation: number;
}

/** The agents a semantic pool was drawn from, described by a sample of them. */
export interface SemanticPopulation {
  /** Agents in scope with a vector (the pool's agents among them). */
  size: number;
  /** Of the similarities to the whole query. */
  whole: Moments;
  /** Of the similarities to each clause, in `clauses`' order. */
  clauses: readonly Moments[];
  /** Of the similarities to the centroid of these agents' vectors (feedback); undefined when none has one. */
  centroid(ids: readonly string[]): Moments | undefined;
}

export interface FusionSettings {
  /** Share of the lexical z-score in the fused score; the semantic one gets the rest. */
  lexicalWeight: number;
  /** Share of the whole-query similarity in the semantic score when there are clauses. */
  wholeQueryWeight: number;
  /** Top agents of the first ranking whose embedding centroid is the feedback query (0 turns feedback off). */
  feedbackDepth: number;
  /** Weight of the standardised similarity to that centroid. */
  feedbackWeight: number;
}

export const DEFAULT_FUSION: Readonly<FusionSettings> = {
  lexicalWeight: 0.3,
  wholeQueryWeight: 0.5,
  feedbackDepth: 3,
  feedbackWeight: 0.4,
};

export interface FusedHit {
  id: string;
  score: number;
  /** BM25, when the agent matched lexically. */
  lexical?: number;
  /** Cosine similarity to the whole query, when the agent has a vector. */
  semantic?: number;
}

export interface FusionInput {
  lexical: readonly LexicalMatch[];
  semantic: SemanticScores;
  /**
   * Similarities of every agent of `semantic.ids` to the centroid of the given agents' vectors (same order as
   * `semantic.ids`); undefined when none of them has a vector.
   */
  similarToCentroid?: (ids: readonly string[]) => ArrayLike<number> | undefined;
  top: number;
  /** Standing demotions by agent id: each penalty is subtracted from the fused score. */
  demotions?: ReadonlyMap<string, Demotion>;
  /**
   * The cosine similarity (to the whole query or one clause) from which an agent without a lexical match counts as
   * relevant; below it, it is ranked with the others (it still counts in the standardisation and may lead nothing)
   * but not returned. Absent: every agent is returned.
   */
  similarityFloor?: number;
  settings?: Readonly<FusionSettings>;
}

/** The semantic score of each agent of `semantic.ids`: standardised whole-query and best-clause similarity. */
export function semanticScores(
  semantic: SemanticScores,
  settings: Readonly<FusionSettings> = DEFAULT_FUSION,
): Float64Array {
  const population = semantic.population;
  const whole = standardizeBy(semantic.whole, population?.whole);
  if (semantic.clauses.length === 0) return whole;
  const clauses = semantic.clauses.map((clause, i) => standardizeBy(clause, population?.clauses[i]));
  const share = settings.wholeQueryWeight;
  const out = new Float64Array(whole.length);
  for (let i = 0; i < whole.length; i++) {
    let best = Number.NEGATIVE_INFINITY;
    for (const clause of clauses) if (clause[i]! > best) best = clause[i]!;
    out[i] = share * whole[i]! + (1 - share) * best;
  }
  return out;
}

/** Ranks by semantic score alone; with a floor, only agents at least that similar to the query or a clause. */
export function rankSemantic(
  semantic: SemanticScores,
  top: number,
  demotions: ReadonlyMap<string, Demotion> = new Map(),
  similarityFloor?: number,
  settings: Readonly<FusionSettings> = DEFAULT_FUSION,
): FusedHit[] {
  const scores = semanticScores(semantic, settings);
  subtractPenalties(scores, demotions, (i) => semantic.ids.at(i)!);
  const relevant =
    similarityFloor === undefined ? undefined : similarAtLeast(semantic, similarityFloor, scores.length);
  return topRelevant(scores, top, relevant).map((i) => ({
    id: semantic.ids.at(i)!,
    score: scores[i]!,
    semantic: semantic.whole[i]!,
  }));
}

export function fuse(input: FusionInput): FusedHit[] {
  const settings = input.settings ?? DEFAULT_FUSION;
  const { semantic } = input;
  // The agents ranked: every candidate with a vector, then those that only matched lexically (no vector yet).
  // The lexical pool (≤ 1,000) is placed by looking each match up, not by looking up every candidate (10,000s).
  const withVector = semantic.ids.length;
  const positionOf = semantic.positionOf ?? positionsIn(semantic.ids);
  const lexicalOnly: LexicalMatch[] = [];
  const placed: Array<readonly [number, number]> = [];
  for (const match of input.lexical) {
    const at = positionOf(match.id);
    if (at === undefined) lexicalOnly.push(match);
    else placed.push([at, match.score]);
  }
  const count = withVector + lexicalOnly.length;
  const lexicalRaw = new Float64Array(count);
  for (const [at, score] of placed) lexicalRaw[at] = score;
  lexicalOnly.forEach((match, i) => {
    lexicalRaw[withVector + i] = match.score;
  });
  const idAt = (i: number) => (i < withVector ? semantic.ids.at(i)! : lexicalOnly[i - withVector]!.id);
  // Over a pool, the agents of the population outside it count as BM25 0, as those beyond the lexical pool do.
  const lexical = semantic.population
    ? standardizeOver(lexicalRaw, semantic.population.size + lexicalOnly.length)
    : standardize(lexicalRaw);
  const meaning = semanticScores(semantic, settings);

  const fused = new Float64Array(count);
  const w = settings.lexicalWeight;
  // An agent without a vector is average semantically (z = 0): neither lifted nor sunk for lacking one.
  for (let i = 0; i < count; i++) fused[i] = w * lexical[i]! + (1 - w) * (i < withVector ? meaning[i]! : 0);
  // Before feedback, so a demoted agent does not lead the feedback query either.
  subtractPenalties(fused, input.demotions ?? new Map(), idAt);

  if (settings.feedbackDepth > 0 && settings.feedbackWeight > 0 && input.similarToCentroid) {
    const leaders = topIndices(fused, settings.feedbackDepth).map(idAt);
    const similarity = input.similarToCentroid(leaders);
    if (similarity) {
      const feedback = standardizeBy(similarity, semantic.population?.centroid(leaders));
      for (let i = 0; i < feedback.length; i++) fused[i] = fused[i]! + settings.feedbackWeight * feedback[i]!;
    }
  }

  // Only agents with evidence of relevance are returned: a lexical match, or a similarity above the floor.
  let relevant: Uint8Array | undefined;
  if (input.similarityFloor !== undefined) {
    relevant = similarAtLeast(semantic, input.similarityFloor, count);
    for (let i = 0; i < count; i++) if (lexicalRaw[i]! > 0) relevant[i] = 1;
  }
  return topRelevant(fused, input.top, relevant).map((i) => {
    const hit: FusedHit = { id: idAt(i), score: fused[i]! };
    if (lexicalRaw[i]! > 0) hit.lexical = lexicalRaw[i]!;
    if (i < withVector) hit.semantic = semantic.whole[i]!;
    return hit;
  });
}

/**
 * 1 for each agent of `semantic.ids` at least `floor` similar to the whole query or to one of its clauses (a long
 * request's clause may name what one agent does while the whole request reads like none), 0 otherwise; `length`
 * leaves room for agents placed after them (lexical-only ones, 0 here).
 */
function similarAtLeast(semantic: SemanticScores, floor: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const lists = [semantic.whole, ...semantic.clauses];
  for (let i = 0; i < semantic.ids.length; i++) {
    for (const list of lists) {
      if (list[i]! >= floor) {
        out[i] = 1;
        break;
      }
    }
  }
  return out;
}

/** The best `top` indexes among the relevant ones (all, without a mask), best first. */
function topRelevant(scores: Float64Array, top: number, relevant: Uint8Array | undefined): number[] {
  if (relevant === undefined) return topIndices(scores, top);
  // A plain loop: Float64Array.from with a mapping function costs a call per element (1 ms at 10,000 agents).
  const masked = new Float64Array(scores.length);
  for (let i = 0; i < scores.length; i++)
    masked[i] = relevant[i] === 1 ? scores[i]! : Number.NEGATIVE_INFINITY;
  return topIndices(masked, top).filter((i) => relevant[i] === 1);
}

function subtractPenalties(
  scores: Float64Array,
  demotions: ReadonlyMap<string, Demotion>,
  idAt: (i: number) => string,
): void {
  if (demotions.size === 0) return;
  for (let i = 0; i < scores.length; i++) {
    const penalty = demotions.get(idAt(i))?.penalty;
    if (penalty !== undefined) scores[i] = scores[i]! - penalty;
  }
}

/** Z-scores by the given moments (a population's), or by the scores' own when there are none. */
function standardizeBy(scores: ArrayLike<number>, moments: Moments | undefined): Float64Array {
  if (moments === undefined) return standardize(scores);
  const out = new Float64Array(scores.length);
  if (!(moments.deviation > 1e-12)) return out;
  for (let i = 0; i < scores.length; i++) out[i] = (scores[i]! - moments.mean) / moments.deviation;
  return out;
}

/** Z-scores over `size` values: these and, for the rest, zeros. */
function standardizeOver(scores: Float64Array, size: number): Float64Array {
  const n = Math.max(size, scores.length);
  let sum = 0;
  let squares = 0;
  for (const score of scores) {
    sum += score;
    squares += score * score;
  }
  const mean = n === 0 ? 0 : sum / n;
  return standardizeBy(scores, {
    mean,
    deviation: Math.sqrt(Math.max(0, squares / Math.max(1, n) - mean * mean)),
  });
}

function positionsIn(ids: IdsByPosition): (id: string) => number | undefined {
  const positions = new Map<string, number>();
  for (let i = 0; i < ids.length; i++) positions.set(ids.at(i)!, i);
  return (id) => positions.get(id);
}
