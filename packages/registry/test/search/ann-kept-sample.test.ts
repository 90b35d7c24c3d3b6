/**
 * The approximate pool ranking (semantic/ann-candidates.ts) scores the store's population sample from the index's
 * copy of its rows: searches with a scope (hidden agents, a filter) and without alternate in a registry, and a scoped
 * search's pool must not push the sample's copy out, or every unscoped search after it copies 2,000 rows again.
 * Observed through the copies the index says it made (`AnnIndex.keptCopiesMade`), not through timing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnnIndex } from '@agentry/embeddings';
import { idsOf, seededUniform } from '../../../embeddings/test/helpers.js';
import { approximateRanking, populationInScope } from '../../src/search/semantic/ann-candidates.js';

const DIMS = 32;

/** Seeded vectors, uniform in a cube (mulberry32): every run sees the same ones. */
function vectors(seed: number): () => Float32Array {
  const uniform = seededUniform(seed);
  return () => Float32Array.from({ length: DIMS }, () => uniform() - 0.5);
}

describe('ann kept sample', () => {
  it('copies the population sample once while scoped and unscoped searches alternate', () => {
    const draw = vectors(11);
    const ann = new AnnIndex(DIMS, { minSize: 0, seed: 2 });
    for (let i = 0; i < 3000; i++) ann.set(`agent-${i}`, draw());
    ann.build();
    // The store's sample: the same array search after search (every third slot held).
    const drawn = ann.slotsIn(ann.resolveScope({})).filter((_, i) => i % 3 === 0);
    const hidden = ann.resolveScope({ excluded: new Set(['agent-1', 'agent-2', 'agent-3']) });
    const filtered = ann.resolveScope({
      candidates: new Set(Array.from({ length: 1500 }, (_, i) => `agent-${2 * i}`)),
    });
    const scopes = [ann.resolveScope({}), hidden, ann.resolveScope({}), filtered];
    const copiesBefore = ann.keptCopiesMade;
    const searches = 20;
    for (let s = 0; s < searches; s++) {
      const scope = scopes[s % scopes.length]!;
      const query = draw();
      const population = populationInScope(scope, drawn);
      const ranking = approximateRanking(ann, [query], scope, ['agent-5', 'agent-6'], population, {
        poolPerQuery: 50,
      });
      // Feedback's passes: the pool (its kept copy) and the sample, for the centroid of the leaders.
      const leaders = idsOf(ranking.semantic.ids).slice(0, 3);
      const estimated = ranking.semantic.population;
      assert.ok(estimated);
      assert.ok(ranking.similarToCentroid(leaders));
      assert.ok(estimated.centroid(leaders));
      // The sample's moments are those of its slots scored outright.
      assert.equal(estimated.whole.mean, mean(ann.scoresAt([query], population.sample)[0]!));
    }
    // One copy a search (its pool), and the sample's once: the scoped searches never evict it.
    assert.equal(ann.keptCopiesMade - copiesBefore, searches + 1);
  });
});

function mean(scores: Float32Array): number {
  let sum = 0;
  for (const score of scores) sum += score;
  return sum / scores.length;
}
