/**
 * Semantic candidates from the approximate nearest-neighbour index (search/semantic/ann-candidates.ts), with the
 * threshold set low: the same database searched by an index that is always exact and by one that is approximate.
 * Recall@10 of the hybrid ranking against the exact one, scores on the exact one's scale, filters and hidden agents,
 * and vectors added, replaced and removed after the index is trained. The stand-in model is a seeded bag of random
 * word vectors, in process: deterministic and fast.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EmbeddingProvider } from '@agentry/embeddings';
import type { SearchIndex, SearchOptions } from '../../src/search/index.js';
import { createSearchIndex, doc, openTestDatabase, seededUniform, type TestDatabase } from './helpers.js';

const DIMENSIONS = 64;
const AGENTS = 3000;
const THRESHOLD = 500;

function seedOf(word: string): number {
  let hash = 2166136261;
  for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return hash >>> 0;
}

const wordVectors = new Map<string, Float32Array>();
function wordVector(word: string): Float32Array {
  let vector = wordVectors.get(word);
  if (!vector) {
    const next = seededUniform(seedOf(word));
    vector = Float32Array.from({ length: DIMENSIONS }, () => next() * 2 - 1);
    wordVectors.set(word, vector);
  }
  return vector;
}

/** The stand-in model: the normalised sum of each word's seeded random vector. */
const standIn: EmbeddingProvider = {
  id: 'stand-in-bag-of-words',
  dimensions: DIMENSIONS,
  async embed(texts) {
    return texts.map((text) => {
      const sum = new Float32Array(DIMENSIONS);
      for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const vector = wordVector(word);
        for (let d = 0; d < DIMENSIONS; d++) sum[d] = sum[d]! + vector[d]!;
      }
      const norm = Math.hypot(...sum) || 1;
      return sum.map((value) => value / norm);
    });
  },
};

// Agents and queries about themes (30 of 8 words each), as real collections cluster by what agents do.
const pick = seededUniform(7);
const theme = () => Math.floor(pick() * 30);
const word = (of: number) => `theme${of}word${Math.floor(pick() * 8)}`;
const agents = Array.from({ length: AGENTS }, (_, i) => {
  const of = theme();
  return doc(`agent-${i}`, {
    name: `agent ${i}`,
    description: `${word(of)} ${word(of)} ${word(of)} unique${i}`,
  });
});
const queries = Array.from({ length: 30 }, () => {
  const of = theme();
  return `${word(of)} ${word(of)}`;
});

const ids = (hits: readonly { id: string }[]) => hits.map((hit) => hit.id);
function overlap(approximate: readonly string[], exact: readonly string[]): number {
  const wanted = new Set(exact);
  return approximate.filter((id) => wanted.has(id)).length;
}

async function recallAt10(
  approximate: SearchIndex,
  exact: SearchIndex,
  options: Omit<SearchOptions, 'top'> = {},
): Promise<number> {
  let found = 0;
  let wanted = 0;
  for (const query of queries) {
    const truth = ids(await exact.search(query, { top: 10, ...options }));
    found += overlap(ids(await approximate.search(query, { top: 10, ...options })), truth);
    wanted += truth.length;
  }
  return found / wanted;
}

describe('search with the approximate nearest-neighbour index', () => {
  let database: TestDatabase;
  let exact: SearchIndex;
  let approximate: SearchIndex;
  before(async () => {
    database = await openTestDatabase();
    exact = await createSearchIndex(database.db, standIn, {
      vectors: { approximateFrom: Number.POSITIVE_INFINITY },
    });
    for (let at = 0; at < agents.length; at += 500) await exact.upsert(agents.slice(at, at + 500));
    approximate = await createSearchIndex(database.db, standIn, { vectors: { approximateFrom: THRESHOLD } });
  });
  after(async () => {
    exact?.close();
    approximate?.close();
    await database?.dispose();
  });

  it('ranks from the index above the threshold, with recall@10 against the exact search of at least 0.95', async () => {
    assert.equal((await exact.stats()).approximate, undefined);
    assert.equal((await approximate.stats()).approximate, true);
    const hybrid = await recallAt10(approximate, exact);
    const semantic = await recallAt10(approximate, exact, { mode: 'semantic' });
    assert.ok(hybrid >= 0.95, `hybrid recall@10 ${hybrid}`);
    assert.ok(semantic >= 0.95, `semantic recall@10 ${semantic}`);
  });

  it("keeps scores on the exact search's scale (population statistics from a sample)", async () => {
    for (const query of queries.slice(0, 10)) {
      const [best] = await exact.search(query, { top: 1 });
      const found = (await approximate.search(query, { top: 10 })).find((hit) => hit.id === best?.id);
      assert.ok(best && found, query);
      assert.ok(Math.abs(found.score - best.score) < 0.35, `${query}: ${found.score} against ${best.score}`);
      assert.equal(found.semantic, best.semantic);
    }
  });

  it('returns every match of a small filter, as the exact search does', async () => {
    const candidates = new Set(agents.slice(0, 200).map((agent) => agent.id));
    for (const query of queries.slice(0, 10)) {
      const found = await approximate.search(query, { top: 50, candidates });
      const wanted = await exact.search(query, { top: 50, candidates });
      // The same agents, similarities and words; scores to rounding (the rows are summed in another order).
      assert.deepEqual(
        found.map(({ score: _, ...hit }) => hit),
        wanted.map(({ score: _, ...hit }) => hit),
      );
      for (const [i, hit] of found.entries()) assert.ok(Math.abs(hit.score - wanted[i]!.score) < 1e-9);
    }
  });

  it('keeps a wide filter and hidden agents out of the hits and the statistics', async () => {
    const candidates = new Set(agents.filter((_, i) => i % 2 === 0).map((agent) => agent.id));
    const wide = await recallAt10(approximate, exact, { candidates });
    assert.ok(wide >= 0.95, `recall@10 over half the agents ${wide}`);
    for (const query of queries) {
      const hits = await approximate.search(query, { top: 20, candidates });
      assert.equal(hits.length, 20);
      for (const hit of hits) assert.ok(candidates.has(hit.id), `${hit.id} is outside the filter`);
    }

    // Hidden: the exact search's top 20 for each query.
    const excluded = new Set<string>();
    for (const query of queries)
      for (const hit of await exact.search(query, { top: 20 })) excluded.add(hit.id);
    const hidden = await recallAt10(approximate, exact, { excluded });
    assert.ok(hidden >= 0.95, `recall@10 with hidden agents ${hidden}`);
    for (const query of queries) {
      for (const hit of await approximate.search(query, { top: 20, excluded, mode: 'semantic' })) {
        assert.ok(!excluded.has(hit.id), `${hit.id} is hidden`);
      }
    }
  });

  it('reflects vectors added, replaced and removed after the index was trained', async () => {
    await approximate.upsert([
      doc('newcomer', { description: 'zeppelin quokka marmalade' }),
      doc('agent-5', { description: 'xylophone juniper tangerine' }),
    ]);
    const added = await approximate.search('zeppelin quokka marmalade', { top: 3, mode: 'semantic' });
    assert.equal(added[0]?.id, 'newcomer');
    const replaced = await approximate.search('xylophone juniper tangerine', { top: 3, mode: 'semantic' });
    assert.equal(replaced[0]?.id, 'agent-5');

    await approximate.remove(['newcomer', 'agent-5']);
    for (const query of ['zeppelin quokka marmalade', 'xylophone juniper tangerine']) {
      const hits = ids(await approximate.search(query, { top: 50, mode: 'semantic' }));
      assert.ok(!hits.includes('newcomer') && !hits.includes('agent-5'), query);
    }
    assert.equal((await approximate.stats()).embedded, AGENTS - 1);
    assert.equal((await approximate.stats()).approximate, true);
    assert.equal((await approximate.stats()).vectorIndexBuilding, undefined); // trained at once: too few to wait
  });

  it('says while a large index is built in the background, and answers meanwhile', async () => {
    // From 5,000 vectors a build runs in chunks beside searches (vector-store.ts); a bench waits for it to end.
    const more = Array.from({ length: 2500 }, (_, i) =>
      doc(`more-${i}`, { description: `${word(theme())} ${word(theme())} more${i}` }),
    );
    for (let at = 0; at < more.length; at += 500) await exact.upsert(more.slice(at, at + 500));
    const opened = await createSearchIndex(database.db, standIn, { vectors: { approximateFrom: THRESHOLD } });
    try {
      assert.equal((await opened.stats()).vectorIndexBuilding, true);
      assert.ok((await opened.search(queries[0]!, { top: 10, mode: 'semantic' })).length > 0);
      let looks = 0;
      while ((await opened.stats()).vectorIndexBuilding === true && looks++ < 3000) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const stats = await opened.stats();
      assert.equal(stats.vectorIndexBuilding, undefined);
      assert.equal(stats.approximate, true);
      assert.equal(stats.embedded, AGENTS - 1 + more.length);
    } finally {
      opened.close();
    }
  });
});
