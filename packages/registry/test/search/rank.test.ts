import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { SimilarityFloors } from '@agentry/embeddings';
import type { FieldMatches, LexicalMatch } from '../../src/search/lexical/types.js';
import { explain, rank } from '../../src/search/rank.js';
import type { Demotion, SearchHit, SearchMode } from '../../src/search/types.js';

interface RankingCase {
  name: string;
  mode: SearchMode;
  top: number;
  lexical: LexicalMatch[];
  semantic?: { ids: string[]; whole: number[]; clauses: number[][] };
  /** What the centroid of the feedback leaders is similar to; absent: the leaders have no vectors. */
  centroidSimilarities?: number[];
  floors?: SimilarityFloors;
  anyWordMatched?: boolean;
  demotions?: Record<string, Demotion>;
  fieldMatches?: Record<string, FieldMatches>;
  expected: { leaders?: string[]; hits: SearchHit[] };
}

const vectors = JSON.parse(readFileSync(new URL('../vectors/ranking.json', import.meta.url), 'utf8')) as {
  tolerance: number;
  cases: RankingCase[];
};

describe('rank (test/vectors/ranking.json)', () => {
  for (const c of vectors.cases) {
    it(c.name, () => {
      const demotions = new Map(Object.entries(c.demotions ?? {}));
      let leaders: string[] | undefined;
      const hits = rank({
        mode: c.mode,
        top: c.top,
        lexical: c.lexical,
        ...(c.semantic === undefined ? {} : { semantic: c.semantic }),
        similarToCentroid: (ids) => {
          leaders = [...ids];
          return c.centroidSimilarities;
        },
        ...(c.floors === undefined ? {} : { floors: c.floors }),
        ...(c.anyWordMatched === undefined ? {} : { anyWordMatched: c.anyWordMatched }),
        demotions,
      });
      const mode = c.semantic === undefined ? 'lexical' : c.mode;
      const explained = explain(hits, new Map(Object.entries(c.fieldMatches ?? {})), mode, demotions);
      assert.deepEqual(leaders, c.expected.leaders);
      assert.deepEqual(
        explained.map((hit) => hit.id),
        c.expected.hits.map((hit) => hit.id),
      );
      explained.forEach((hit, i) => {
        const want = c.expected.hits[i]!;
        assert.ok(
          Math.abs(hit.score - want.score) <= vectors.tolerance,
          `${hit.id}: ${hit.score} ≠ ${want.score}`,
        );
        for (const key of ['lexical', 'semantic'] as const) {
          if (want[key] === undefined) assert.equal(hit[key], undefined, `${hit.id}.${key}`);
          else assert.ok(Math.abs(hit[key]! - want[key]) <= vectors.tolerance, `${hit.id}.${key}`);
        }
        assert.deepEqual(hit.why, want.why);
      });
    });
  }
});
