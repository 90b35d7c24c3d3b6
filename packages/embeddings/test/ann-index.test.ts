/**
 * The approximate nearest-neighbour index against exact search: recall on clustered vectors, scopes that never
 * leak, writes after a build (and during one in the background), and the exact paths (small index, small scope).
 * Vectors come from seeded generators, so every run sees the same ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type AnnHit, AnnIndex } from '../src/vectors/ann-index.js';
import { VectorMatrix } from '../src/vectors/vector-matrix.js';
import { idsOf, seededUniform } from './helpers.js';

/** mulberry32 and Box–Muller: seeded uniform and normal numbers. */
function generator(seed: number): { uniform: () => number; normal: () => number } {
  const uniform = seededUniform(seed);
  const normal = () => {
    const u = uniform() || 1e-12;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
  return { uniform, normal };
}

/**
 * Unit vectors shaped like sentence embeddings: a point of a 16-dimensional latent space, spread around one of
 * `themes` themes, projected into `dims` dimensions, plus a shared direction and noise of its own.
 */
function clustered(seed: number, dims: number, themes: number): (spread: number) => Float32Array {
  const { uniform, normal } = generator(seed);
  const latent = 16;
  const shared = Float32Array.from({ length: dims }, normal);
  const sharedNorm = Math.hypot(...shared);
  const projection = Array.from({ length: latent }, () => Float32Array.from({ length: dims }, normal));
  const centres = Array.from({ length: themes }, () =>
    Float32Array.from({ length: latent }, () => 1.2 * normal()),
  );
  return (spread) => {
    const centre = centres[Math.floor(uniform() * themes)]!;
    const vector = Float32Array.from(
      { length: dims },
      (_, d) => (0.6 * shared[d]!) / sharedNorm + (0.9 / Math.sqrt(dims)) * normal(),
    );
    for (let l = 0; l < latent; l++) {
      const value = (centre[l]! + spread * normal()) / latent;
      const row = projection[l]!;
      for (let d = 0; d < dims; d++) vector[d] = vector[d]! + value * row[d]!;
    }
    return vector;
  };
}

function recall(found: readonly AnnHit[], truth: readonly AnnHit[]): number {
  const expected = new Set(truth.map((hit) => hit.id));
  return found.filter((hit) => expected.has(hit.id)).length;
}

const DIMS = 64;

describe('ann index', () => {
  const draw = clustered(1, DIMS, 50);
  const index = new AnnIndex(DIMS, { minSize: 1000, seed: 3 });
  for (let i = 0; i < 20_000; i++) index.set(`a${i}`, draw(0.8));
  index.build();
  const queries = Array.from({ length: 100 }, () => draw(1));

  it('finds at least 95% of the exact top 10 on 20,000 clustered vectors, scoring a fraction of them', (t) => {
    assert.equal(index.approximate, true);
    const stats = index.stats();
    assert.equal(stats.lists, 141);
    assert.equal(stats.builtSize, 20_000);
    let found = 0;
    for (const query of queries) {
      const { hits, info } = index.searchWithInfo(query, 10);
      assert.equal(info.method, 'probed');
      assert.ok(info.scanned < 20_000 / 4, `scored ${info.scanned}`);
      const truth = index.exact(query, 10);
      assert.equal(hits.length, 10);
      found += recall(hits, truth);
      // A hit's score is the exact one: the same rows and kernel as exact search.
      const exactScores = new Map(truth.map((hit) => [hit.id, hit.score]));
      for (const hit of hits) if (exactScores.has(hit.id)) assert.equal(hit.score, exactScores.get(hit.id));
    }
    t.diagnostic(`recall@10 ${found / (queries.length * 10)}`);
    assert.ok(found / (queries.length * 10) >= 0.95, `recall@10 ${found / (queries.length * 10)}`);
  });

  it('scores a stored row exactly as the vector matrix does', () => {
    const matrix = new VectorMatrix(DIMS);
    const { uniform } = generator(9);
    const ids = Array.from({ length: 50 }, () => `a${Math.floor(uniform() * 20_000)}`);
    const sample = clustered(5, DIMS, 10);
    const small = new AnnIndex(DIMS, { minSize: 0 });
    for (const id of new Set(ids)) {
      const vector = sample(1);
      matrix.set(id, vector);
      small.set(id, vector);
    }
    const query = sample(1.4);
    const { ids: order, scores } = matrix.similarities([query]);
    const byId = new Map(order.map((id, i) => [id, scores[0]![i]!]));
    for (const hit of small.exact(query, 100)) assert.equal(hit.score, byId.get(hit.id));
    // The matrix's own surface, for fusion: the same ids, scores and positions, in a scope too.
    small.delete(order[3]!);
    matrix.delete(order[3]!);
    const candidates = new Set(order.filter((_, i) => i % 2 === 0));
    for (const scope of [{}, { candidates }, { candidates, excluded: new Set([order[0]!]) }]) {
      const a = small.similarities([query, query], scope);
      const b = matrix.similarities([query], scope);
      assert.deepEqual(idsOf(a.ids).sort(), [...b.ids].sort());
      for (const id of b.ids) {
        assert.equal(a.ids.at(a.positionOf(id)!), id);
        assert.equal(a.scores[1]![a.positionOf(id)!], b.scores[0]![b.positionOf(id)!]);
      }
      assert.equal(a.positionOf(order[3]!), undefined);
    }
    const leaders = [order[0]!, order[1]!, 'absent'];
    assert.deepEqual(small.centroid(leaders), matrix.centroid(leaders));
    assert.equal(small.centroid(['absent']), undefined);
  });

  it("takes over a vector matrix's rows as they are held, with the same similarities", () => {
    const matrix = new VectorMatrix(DIMS);
    const sample = clustered(11, DIMS, 10);
    for (let i = 0; i < 300; i++) matrix.set(`m${i}`, sample(1));
    matrix.delete('m7');
    const moved = new AnnIndex(DIMS, { minSize: 100 });
    for (const { id, row, scale } of matrix.quantizedRows()) moved.setQuantized(id, row, scale);
    moved.build();
    assert.equal(moved.size, 299);
    assert.equal(moved.has('m7'), false);
    const query = sample(1.4);
    const exact = matrix.similarities([query]);
    const byId = new Map(exact.ids.map((id, i) => [id, exact.scores[0]![i]!]));
    for (const hit of moved.exact(query, 299)) assert.equal(hit.score, byId.get(hit.id));
    for (const hit of moved.search(query, 20)) assert.equal(hit.score, byId.get(hit.id));
  });

  it('keeps to a third of the agents as candidates with the same recall, and never returns another', (t) => {
    const { uniform } = generator(11);
    const candidates = new Set<string>();
    for (let i = 0; i < 20_000; i++) if (uniform() < 0.33) candidates.add(`a${i}`);
    let found = 0;
    for (const query of queries) {
      const { hits, info } = index.searchWithInfo(query, 10, { candidates });
      assert.equal(info.method, 'probed');
      for (const hit of hits) assert.ok(candidates.has(hit.id), `${hit.id} is not a candidate`);
      found += recall(hits, index.exact(query, 10, { candidates }));
    }
    t.diagnostic(`recall@10 ${found / (queries.length * 10)}`);
    assert.ok(found / (queries.length * 10) >= 0.95, `recall@10 ${found / (queries.length * 10)}`);
  });

  it('never returns an agent outside the scope, probed or exact (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(0.0005, 0.01, 0.3, 0.9, 1),
        fc.constantFrom(0, 0.01, 0.5),
        fc.integer({ min: 1, max: 50 }),
        (seed, share, excludedShare, k) => {
          const { uniform } = generator(seed);
          const candidates = share === 1 ? undefined : new Set<string>();
          const excluded = new Set<string>();
          for (let i = 0; i < 20_000; i++) {
            if (candidates && uniform() < share) candidates.add(`a${i}`);
            if (uniform() < excludedShare) excluded.add(`a${i}`);
          }
          // Ids the index does not hold are ignored.
          candidates?.add('absent');
          const query = queries[Math.floor(uniform() * queries.length)]!;
          const hits = index.search(query, k, { candidates, excluded });
          for (const hit of hits) {
            assert.ok(candidates?.has(hit.id) ?? true, `${hit.id} is not a candidate`);
            assert.ok(!excluded.has(hit.id), `${hit.id} is excluded`);
          }
          assert.equal(new Set(hits.map((hit) => hit.id)).size, hits.length);
          // As many as asked for, unless the scope holds fewer.
          const inScope = index.exact(query, k, { candidates, excluded });
          assert.equal(hits.length, inScope.length);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('resolves a scope to slots once, and searches and scores by them as by ids (property)', () => {
    // Deleted vectors leave free slots (later reused), which no scope may count or return.
    const churned = new AnnIndex(DIMS, { minSize: 500, seed: 5 });
    for (let i = 0; i < 3000; i++) churned.set(`c${i}`, draw(0.8));
    for (let i = 0; i < 3000; i += 7) churned.delete(`c${i}`);
    churned.build();
    for (let i = 0; i < 3000; i += 14) churned.set(`c${i}`, draw(0.8));
    const held = Array.from({ length: 3000 }, (_, i) => `c${i}`).filter((id) => churned.has(id));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(0, 0.002, 0.2, 0.9),
        fc.constantFrom(0, 0.05, 0.5),
        fc.integer({ min: 1, max: 40 }),
        (seed, share, excludedShare, k) => {
          const { uniform } = generator(seed);
          const candidates = share === 0 ? undefined : new Set<string>(['absent', 'c0']);
          const excluded = excludedShare === 0 ? undefined : new Set<string>(['absent']);
          for (let i = 0; i < 3000; i++) {
            if (candidates && uniform() < share) candidates.add(`c${i}`);
            if (excluded && uniform() < excludedShare) excluded.add(`c${i}`);
          }
          const scope = { candidates, excluded };
          const inScope = held.filter((id) => (candidates?.has(id) ?? true) && !excluded?.has(id));
          const resolved = churned.resolveScope(scope);
          assert.equal(resolved.size, inScope.length);
          const slots = churned.slotsIn(resolved);
          assert.deepEqual(Array.from(slots, (slot) => churned.idAt(slot)).sort(), [...inScope].sort());
          assert.deepEqual(
            Array.from(slots),
            Array.from(slots).sort((a, b) => a - b),
          );
          for (const slot of slots) assert.equal(resolved.inScope?.[slot] ?? 1, 1);

          const query = queries[Math.floor(uniform() * queries.length)]!;
          const byIds = churned.searchWithInfo(query, k, scope);
          const bySlots = churned.searchSlots(query, k, resolved);
          assert.deepEqual(
            Array.from(bySlots.slots, (slot, r) => ({ id: churned.idAt(slot), score: bySlots.scores[r] })),
            byIds.hits,
          );
          assert.deepEqual(bySlots.info, byIds.info);
          for (const hit of byIds.hits) assert.ok(inScope.includes(hit.id), `${hit.id} is out of scope`);

          const a = churned.similarities([query], scope);
          const b = churned.similaritiesAt([query], slots);
          assert.deepEqual(idsOf(b.ids), idsOf(a.ids));
          assert.deepEqual(b.scores, a.scores);
          for (const id of [...inScope.slice(0, 5), 'absent'])
            assert.equal(b.positionOf(id), a.positionOf(id));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps every vector its similarities through a build that moves the rows, and scores a kept sample as any slots', () => {
    // A build places each list's rows in one run: the same ids must score exactly as in a matrix of the same vectors.
    const moved = new AnnIndex(DIMS, { minSize: 500, seed: 9 });
    const matrix = new VectorMatrix(DIMS);
    for (let i = 0; i < 4000; i++) {
      const vector = draw(0.8);
      moved.set(`m${i}`, vector);
      matrix.set(`m${i}`, vector);
    }
    for (let i = 0; i < 4000; i += 9) {
      moved.delete(`m${i}`);
      matrix.delete(`m${i}`);
    }
    moved.build();
    // Each list's rows are one run, list after list from row 0 (the deletes left gaps a build without placement keeps).
    const runs = moved.listRows();
    assert.ok(runs.length > 1);
    assert.deepEqual(
      runs.flatMap((rows) => Array.from(rows)),
      Array.from({ length: moved.size }, (_, row) => row),
    );
    for (let i = 0; i < 4000; i += 18) {
      const vector = draw(0.8);
      moved.set(`m${i}`, vector);
      matrix.set(`m${i}`, vector);
    }
    const query = queries[3]!;
    const expected = matrix.similarities([query]);
    const actual = moved.similarities([query]);
    const byId = new Map(expected.ids.map((id, i) => [id, expected.scores[0]![i]!]));
    assert.equal(actual.ids.length, expected.ids.length);
    for (const [i, id] of idsOf(actual.ids).entries()) assert.equal(actual.scores[0]![i], byId.get(id), id);

    const sample = moved.slotsIn(moved.resolveScope({})).filter((_, i) => i % 7 === 0);
    assert.deepEqual(moved.scoresAtKept([query], sample), moved.scoresAt([query], sample));
    // A vector set since the copy was made is scored as it is now.
    moved.set(moved.idAt(sample[0]!)!, draw(0.8));
    assert.deepEqual(
      moved.scoresAtKept([query, queries[4]!], sample),
      moved.scoresAt([query, queries[4]!], sample),
    );
    const other = sample.subarray(1);
    assert.deepEqual(moved.scoresAtKept([query], other), moved.scoresAt([query], other));
  });

  it('keeps the sample’s copy while pools come and go, as scoped and unscoped searches alternate', () => {
    // An unscoped search scores the sample and its pool from copies; a scoped one its pool only (its sample is
    // filtered anew). Pools must never push the sample's copy out: one copy a search (its pool), the sample's once.
    const sample = index.slotsIn(index.resolveScope({})).filter((_, i) => i % 10 === 0);
    const excluded = index.resolveScope({ excluded: new Set(['a1', 'a2', 'a3']) });
    const copiesBefore = index.keptCopiesMade;
    for (let s = 0; s < 20; s++) {
      const query = queries[s]!;
      const scoped = s % 2 === 1;
      const pool = index
        .searchSlots(query, 100, scoped ? excluded : index.resolveScope({}))
        .slots.slice()
        .sort();
      assert.deepEqual(index.scoresAtKept([query], pool), index.scoresAt([query], pool));
      assert.deepEqual(index.scoresAtKept([queries[50]!], pool), index.scoresAt([queries[50]!], pool));
      if (!scoped) {
        assert.deepEqual(index.scoresAtKept([query], sample, 'sample'), index.scoresAt([query], sample));
      }
    }
    assert.equal(index.keptCopiesMade - copiesBefore, 20 + 1);
  });

  it('ranks duplicate vectors by slot, before and after a build that moves their rows', () => {
    const dupes = new AnnIndex(DIMS, { minSize: 0, seed: 6 });
    const draw5 = clustered(51, DIMS, 40);
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      // Slots in insertion order: the d's are spread over the slots, and their vectors over the lists at first.
      const id = i % 400 === 7 ? `d${i}` : `r${i}`;
      if (id.startsWith('d')) expected.push(id);
      dupes.set(id, draw5(1));
    }
    dupes.build();
    // The same vector for every d, set where their rows were placed (runs of different lists), then two new slots.
    const twin = draw5(1);
    for (const id of expected) dupes.set(id, twin);
    for (const id of ['e1', 'e2']) {
      dupes.set(id, twin);
      expected.push(id);
    }
    const scoped = { excluded: new Set(['r1', 'r2']) };
    const check = (stage: string) => {
      for (const hits of [dupes.search(twin, 10), dupes.exact(twin, 10), dupes.search(twin, 10, scoped)]) {
        assert.deepEqual(
          hits.map((hit) => hit.id),
          expected,
          stage,
        );
      }
    };
    check('before the second build');
    dupes.build();
    check('after the second build');
  });

  it('scores a small candidate set outright, and every vector below the size threshold', () => {
    const few = new Set(['a1', 'a2', 'a3', 'a20000']);
    const { hits, info } = index.searchWithInfo(queries[0]!, 10, { candidates: few });
    assert.equal(info.method, 'exact');
    assert.equal(info.scanned, 3);
    assert.deepEqual(hits.map((hit) => hit.id).sort(), ['a1', 'a2', 'a3']);
    assert.deepEqual(index.search(queries[0]!, 10, { candidates: new Set() }), []);

    const small = new AnnIndex(DIMS, { minSize: 500 });
    for (let i = 0; i < 400; i++) small.set(`s${i}`, draw(1));
    small.build();
    assert.equal(small.approximate, false);
    assert.equal(small.searchWithInfo(queries[0]!, 5).info.method, 'exact');
    for (let i = 400; i < 500; i++) small.set(`s${i}`, draw(1));
    assert.equal(small.approximate, true);
    assert.equal(small.searchWithInfo(queries[0]!, 5).info.method, 'probed');
  });

  it('files vectors added after the build, forgets deleted ones, and says when to build again', () => {
    const draw2 = clustered(21, DIMS, 20);
    const grown = new AnnIndex(DIMS, { minSize: 0, seed: 4 });
    for (let i = 0; i < 2000; i++) grown.set(`g${i}`, draw2(1));
    grown.build();
    assert.equal(grown.stale, false);
    const added = new Map<string, Float32Array>();
    for (let i = 2000; i < 3000; i++) {
      const vector = draw2(1);
      added.set(`g${i}`, vector);
      grown.set(`g${i}`, vector);
    }
    for (let i = 0; i < 2000; i += 2) grown.delete(`g${i}`);
    grown.delete('never-there');
    // A replaced vector moves to its new list.
    const moved = draw2(1);
    grown.set('g1', moved);
    added.set('g1', moved);
    assert.equal(grown.size, 2000);
    for (const [id, vector] of added) {
      const [first] = grown.search(vector, 1);
      assert.equal(first?.id, id);
    }
    for (const query of Array.from({ length: 20 }, () => draw2(1.4))) {
      for (const hit of grown.search(query, 20))
        assert.equal(Number(hit.id.slice(1)) % 2 === 1 || Number(hit.id.slice(1)) >= 2000, true);
      assert.equal(recall(grown.search(query, 10), grown.exact(query, 10)) >= 8, true);
    }
    // Deleted slots are reused: the block does not grow for them.
    const { capacity } = grown.stats();
    for (let i = 0; i < 1000; i++) grown.set(`h${i}`, draw2(1));
    assert.equal(grown.stats().capacity, capacity);
    assert.equal(grown.stale, false);
    for (let i = 0; i < 1000; i++) grown.set(`j${i}`, draw2(1));
    assert.equal(grown.size, 4000);
    assert.equal(grown.stale, true);
    grown.build();
    assert.equal(grown.stale, false);
    assert.equal(grown.stats().builtSize, 4000);
  });

  it('goes on taking writes while it builds in the background, and files every vector once', async () => {
    const draw3 = clustered(31, DIMS, 30);
    // Chunks of 256 rows: the build yields a couple of dozen times while it places the rows (6,000 of them).
    const background = new AnnIndex(DIMS, { minSize: 0, seed: 5, iterations: 3, buildChunk: 256 });
    const vectors = new Map<string, Float32Array>();
    const put = (id: string) => {
      const vector = draw3(1);
      vectors.set(id, vector);
      background.set(id, vector);
    };
    for (let i = 0; i < 6000; i++) put(`b${i}`);
    const building = background.buildInBackground();
    assert.equal(background.buildInBackground(), building);
    let turns = 0;
    let placing = 0;
    let done = false;
    void building.then(() => {
      done = true;
    });
    while (!done) {
      // Between the build's chunks: writes, and searches answered (exactly, until the lists are ready).
      put(`n${turns}`);
      put(`b${turns}`);
      background.delete(`b${turns + 3000}`);
      vectors.delete(`b${turns + 3000}`);
      assert.equal(background.search(vectors.get(`n${turns}`)!, 1)[0]?.id, `n${turns}`);
      // Lists ready, rows still being placed: every hit held, and scored as exact search scores it.
      if (background.approximate) {
        placing++;
        const query = draw3(1.4);
        const exactScores = new Map(
          background.exact(query, background.size).map((hit) => [hit.id, hit.score]),
        );
        for (const hit of background.search(query, 10, { excluded: new Set([`b${turns}`]) })) {
          assert.ok(vectors.has(hit.id), `${hit.id} is not held`);
          assert.equal(hit.score, exactScores.get(hit.id), hit.id);
        }
        const [held, vector] = [...vectors].at(-(1 + (turns % 50)))!;
        assert.equal(background.search(vector, 1)[0]?.id, held);
      }
      turns++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await building;
    assert.ok(turns > 3, `only ${turns} turns`);
    assert.ok(placing > 10, `only ${placing} turns while the rows were placed`);
    assert.equal(background.approximate, true);
    assert.equal(background.size, vectors.size);
    // Each vector is found as its own nearest: filed in its list, and filed once (k = 2 finds no duplicate).
    for (const [id, vector] of vectors) {
      const hits = background.search(vector, 2);
      assert.equal(hits[0]?.id, id);
      assert.notEqual(hits[1]?.id, id);
    }
    let listed = 0;
    for (const query of Array.from({ length: 5 }, () => draw3(1.4))) {
      listed += background.searchWithInfo(query, 10).info.scanned;
    }
    assert.ok(listed > 0);
  });

  it('scores the same without SIMD, and checks dimensions', () => {
    const plain = new AnnIndex(DIMS, { minSize: 0, simd: false, seed: 3 });
    const simd = new AnnIndex(DIMS, { minSize: 0, seed: 3 });
    assert.equal(plain.accelerated, false);
    assert.equal(simd.accelerated, true);
    const draw4 = clustered(41, DIMS, 10);
    for (let i = 0; i < 1000; i++) {
      const vector = draw4(1);
      plain.set(`p${i}`, vector);
      simd.set(`p${i}`, vector);
    }
    plain.build();
    simd.build();
    const query = draw4(1.4);
    assert.deepEqual(plain.search(query, 10), simd.search(query, 10));
    assert.throws(() => plain.set('x', new Float32Array(3)), /3 dimensions, the index 64/);
    assert.throws(() => plain.search(new Float32Array(3), 1), /3 dimensions, the index 64/);
  });
});
