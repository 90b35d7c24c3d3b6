/**
 * The ranking of one search, pure: given the lexical matches, the semantic similarities (whole query and clauses),
 * the similarities to a centroid that feedback asks for, the provider's similarity floors, the standing demotions
 * and the fusion settings, the ranked hits; then, given which fields matched which words, their explanations. No
 * I/O and no clock, so it is pinned by test/vectors/ranking.json. The index reads the inputs (search-index.ts).
 */
import type { SimilarityFloors } from '@agentry/embeddings';
import { explainHit } from './explain.js';
import { type FusedHit, type FusionSettings, fuse, rankSemantic, type SemanticScores } from './fusion.js';
import type { FieldMatches, LexicalMatch } from './lexical/types.js';
import type { Demotion, SearchHit, SearchMode } from './types.js';

export interface RankInput {
  /** The mode ranked: `lexical` whenever the query has no vectors (no provider, nothing embedded, provider down). */
  mode: SearchMode;
  top: number;
  /** Lexical matches, best first (none in semantic mode). */
  lexical: readonly LexicalMatch[];
  /** The candidates' similarities to the query; required unless the mode is lexical. */
  semantic?: SemanticScores;
  /** Feedback: similarities of `semantic.ids` to the centroid of the given agents (see FusionInput). */
  similarToCentroid?: (ids: readonly string[]) => ArrayLike<number> | undefined;
  /** The provider's similarity floors; absent: every agent ranked is returned. */
  floors?: SimilarityFloors;
  /**
   * Semantic mode, which ranks no words: whether some agent the caller may see matches the query's words (hybrid
   * mode reads it from `lexical`).
   */
  anyWordMatched?: boolean;
  demotions: ReadonlyMap<string, Demotion>;
  settings?: Readonly<FusionSettings>;
}

/** The hits of one search, best first, without their explanations. */
export function rank(input: RankInput): FusedHit[] {
  const { semantic, demotions, top } = input;
  if (input.mode === 'lexical' || semantic === undefined) return rankLexical(input.lexical, top, demotions);
  const floor = similarityFloor(
    input.floors,
    input.mode === 'semantic' ? input.anyWordMatched === true : input.lexical.length > 0,
  );
  if (input.mode === 'semantic') return rankSemantic(semantic, top, demotions, floor, input.settings);
  return fuse({
    lexical: input.lexical,
    semantic,
    top,
    demotions,
    ...(floor === undefined ? {} : { similarityFloor: floor }),
    ...(input.similarToCentroid === undefined ? {} : { similarToCentroid: input.similarToCentroid }),
    ...(input.settings === undefined ? {} : { settings: input.settings }),
  });
}

/**
 * The similarity from which an agent without a lexical match is returned: the provider's floor for a query whose
 * words some agent the caller may see uses, or its higher one for a query whose words none uses (nonsense looks
 * about that similar to its nearest agent).
 */
export function similarityFloor(
  floors: SimilarityFloors | undefined,
  anyWordMatched: boolean,
): number | undefined {
  if (floors === undefined) return undefined;
  return anyWordMatched ? floors.wordsMatched : floors.noWordsMatched;
}

/** The hits with their `why`: the fields that matched, the similarity (unless ranked lexically), the demotions. */
export function explain(
  hits: readonly FusedHit[],
  fieldMatches: ReadonlyMap<string, FieldMatches>,
  mode: SearchMode,
  demotions: ReadonlyMap<string, Demotion>,
): SearchHit[] {
  return hits.map((hit) => ({
    ...hit,
    why: explainHit(
      fieldMatches.get(hit.id),
      mode === 'lexical' ? undefined : hit.semantic,
      demotions.get(hit.id)?.reasons,
    ),
  }));
}

/**
 * BM25 alone. Its scores are not standardised, so a demotion divides instead of subtracting: a penalty of 1 halves
 * the score.
 */
function rankLexical(
  matches: readonly LexicalMatch[],
  top: number,
  demotions: ReadonlyMap<string, Demotion>,
): FusedHit[] {
  const hits = matches.map((match) => {
    const penalty = demotions.get(match.id)?.penalty ?? 0;
    return { id: match.id, score: match.score / (1 + penalty), lexical: match.score };
  });
  if (demotions.size > 0) hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, top);
}
