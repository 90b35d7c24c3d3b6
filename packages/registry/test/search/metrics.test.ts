import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  gainsOf,
  meanScores,
  mrrAt,
  ndcgAt,
  recallAt,
  scoreRanking,
} from '../../../../bench/search-quality/metrics.js';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

describe('retrieval metrics', () => {
  const gains = gainsOf(['a', 'b']);

  it('NDCG@k: DCG over the ideal DCG with log2(rank + 1) discounts', () => {
    close(ndcgAt(10, ['a', 'b', 'x'], gains), 1);
    // a at rank 2: 1/log2(3); ideal 1 + 1/log2(3).
    close(ndcgAt(10, ['x', 'a'], gains), 1 / Math.log2(3) / (1 + 1 / Math.log2(3)));
    close(ndcgAt(1, ['x', 'a'], gains), 0);
    close(ndcgAt(10, [], gains), 0);
  });

  it('NDCG with graded gains', () => {
    const graded = gainsOf([], { a: 3, b: 1, c: 0 });
    // ranking b, a: 1 + 3/log2(3); ideal 3 + 1/log2(3).
    close(ndcgAt(10, ['b', 'a', 'c'], graded), (1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)));
    assert.equal(graded.has('c'), false);
  });

  it('Recall@k counts each relevant item once', () => {
    close(recallAt(5, ['a', 'x', 'a'], gains), 0.5);
    close(recallAt(1, ['x', 'a', 'b'], gains), 0);
    close(recallAt(3, ['x', 'a', 'b'], gains), 1);
    close(recallAt(5, ['a'], gainsOf([])), 0);
  });

  it('MRR@k is the reciprocal rank of the first relevant item within k', () => {
    close(mrrAt(10, ['x', 'y', 'b'], gains), 1 / 3);
    close(mrrAt(2, ['x', 'y', 'b'], gains), 0);
  });

  it('averages over queries', () => {
    const mean = meanScores([scoreRanking(['a', 'b'], gains), scoreRanking(['x'], gains)]);
    close(mean.ndcg10, 0.5);
    close(mean.recall5, 0.5);
    close(mean.mrr10, 0.5);
  });
});
