/**
 * Ranking only the agents that match a query's rarer clauses, when that provably changes nothing at the top.
 *
 * FTS5 computes `bm25()` for every match before it can sort, and a plain-language query almost always holds a few
 * words that half the agents share ("data", "small teams", a language): at 10,000 agents such a query matches
 * about 4,700 agents, and scoring them is most of a search's time. A common clause adds little to any agent's
 * score, because BM25 weighs a clause by its rarity (idf), and each clause's share of the score is capped: for one
 * phrase FTS5 adds `idf × f(k1 + 1) / (f + k1(1 − b + b·len/avglen))`, always below `idf × (k1 + 1)` whatever the
 * term frequency `f`, the column weights or the length. So an agent that matches only common clauses scores below
 * the sum of their caps (the ceiling). Ranking the agents that match a rare clause, with the whole query's BM25,
 * gives FTS5's own top `d` exactly whenever the `d`-th of them scores above that ceiling; otherwise the caller
 * ranks every match as before. This is MaxScore's argument (Turtle and Flood, 1995) on FTS5's formula.
 */
// The ceiling depends only on k1.
import { BM25_K1 as K1 } from './fields.js';
import type { QueryClause } from './query.js';

/** FTS5's inverse document frequency of a phrase matching `matches` of `rows` rows, floored as FTS5 floors it. */
export function fts5Idf(rows: number, matches: number): number {
  const idf = Math.log((rows - matches + 0.5) / (matches + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/** Above any share of the score one clause matching `matches` of `rows` rows can give an agent: `idf × (k1 + 1)`. */
export function clauseCap(rows: number, matches: number): number {
  return fts5Idf(rows, matches) * (K1 + 1);
}

/**
 * The ceiling of clauses whose caps sum to `caps`: a hair above it, because FTS5 sums in double precision in
 * another order and a proof must stay a proof. Zero when nothing is left out.
 */
export function ceilingOf(caps: number): number {
  return caps > 0 ? caps * (1 + 1e-9) + 1e-9 : 0;
}

export interface ClauseSplit<Clause = QueryClause> {
  /** The clauses that are not common: an agent must match one of them to be ranked. */
  selective: Clause[];
  /** Above every BM25 score an agent can get from the common clauses alone. */
  ceiling: number;
}

/**
 * Splits clauses at `commonShare` of the rows (a clause matching more is common). Undefined when pruning cannot
 * help: every clause is common (nothing left to require) or none is (nothing to skip).
 */
export function splitClauses<Clause = QueryClause>(
  clauses: readonly Clause[],
  matches: readonly number[],
  rows: number,
  commonShare: number,
): ClauseSplit<Clause> | undefined {
  const selective: Clause[] = [];
  let ceiling = 0;
  clauses.forEach((clause, i) => {
    const count = matches[i]!;
    if (count > commonShare * rows) ceiling += clauseCap(rows, count);
    else if (count > 0) selective.push(clause);
  });
  if (selective.length === 0 || ceiling === 0) return undefined;
  return { selective, ceiling: ceilingOf(ceiling) };
}

/**
 * Whether the first `depth` of the selective matches (best first) are FTS5's own first `depth`: every agent left
 * out scores below the ceiling, so the ranking is exact down to the first selective match that does not clear it.
 */
export function provesTop(scores: readonly number[], depth: number, ceiling: number): boolean {
  if (depth <= 0) return true;
  if (scores.length < depth) return false;
  return scores[depth - 1]! > ceiling;
}
