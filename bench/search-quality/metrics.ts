/**
 * Retrieval metrics for one query's ranking, on a 0–1 scale (the report prints them ×100). Gains are graded when
 * a benchmark grades its judgements and 1 per relevant item otherwise; NDCG uses linear gain with a log2(rank+1)
 * discount, the convention of the benchmarks' own baseline script.
 */

/** Relevance of each judged item; items absent (or with gain 0) are not relevant. */
export type Gains = ReadonlyMap<string, number>;

export function gainsOf(relevant: readonly string[], grades?: Readonly<Record<string, number>>): Gains {
  if (grades) return new Map(Object.entries(grades).filter(([, gain]) => gain > 0));
  return new Map(relevant.map((id) => [id, 1]));
}

export function ndcgAt(k: number, ranking: readonly string[], gains: Gains): number {
  const ideal = [...gains.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  if (idcg === 0) return 0;
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    dcg += (gains.get(id) ?? 0) / Math.log2(i + 2);
  });
  return dcg / idcg;
}

export function recallAt(k: number, ranking: readonly string[], gains: Gains): number {
  if (gains.size === 0) return 0;
  const found = new Set(ranking.slice(0, k).filter((id) => (gains.get(id) ?? 0) > 0));
  return found.size / gains.size;
}

export function mrrAt(k: number, ranking: readonly string[], gains: Gains): number {
  const rank = ranking.slice(0, k).findIndex((id) => (gains.get(id) ?? 0) > 0);
  return rank < 0 ? 0 : 1 / (rank + 1);
}

export interface RetrievalScores {
  ndcg10: number;
  recall5: number;
  recall10: number;
  mrr10: number;
}

export function scoreRanking(ranking: readonly string[], gains: Gains): RetrievalScores {
  return {
    ndcg10: ndcgAt(10, ranking, gains),
    recall5: recallAt(5, ranking, gains),
    recall10: recallAt(10, ranking, gains),
    mrr10: mrrAt(10, ranking, gains),
  };
}

/** The mean of each metric over queries. */
export function meanScores(all: readonly RetrievalScores[]): RetrievalScores {
  const sum = { ndcg10: 0, recall5: 0, recall10: 0, mrr10: 0 };
  for (const scores of all) {
    sum.ndcg10 += scores.ndcg10;
    sum.recall5 += scores.recall5;
    sum.recall10 += scores.recall10;
    sum.mrr10 += scores.mrr10;
  }
  const n = Math.max(1, all.length);
  return {
    ndcg10: sum.ndcg10 / n,
    recall5: sum.recall5 / n,
    recall10: sum.recall10 / n,
    mrr10: sum.mrr10 / n,
  };
}
