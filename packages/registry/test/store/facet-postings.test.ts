/**
 * The facet index's agents and postings (store/facet-postings.ts) against a plain model, through batches of
 * arrivals, rewrites that grow and shrink an agent's codes, departures and returns: each agent's codes, every
 * agent's run as a count visits it, and the agents meeting random requirements in id order, paged by `afterId`.
 * The codes live in one shared pool whose runs move and are packed as agents change, which is what this pins.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FacetPostings } from '../../src/store/facet-postings.js';

const IDS = Array.from(
  { length: 30 },
  (_, i) => `agent-${String(i).padStart(2, '0')}${i % 3 === 0 ? '-x' : ''}`,
);
const CODES = 12;

const codesArbitrary = fc.uniqueArray(fc.integer({ min: 0, max: CODES - 1 }), { maxLength: 9 });
const batchArbitrary = fc.array(
  fc.record({ id: fc.constantFrom(...IDS), codes: fc.option(codesArbitrary, { nil: undefined }) }),
  { minLength: 1, maxLength: 12 },
);

function sortedIds(model: ReadonlyMap<string, readonly number[]>): string[] {
  return [...model.keys()].sort();
}

function assertMatchesModel(postings: FacetPostings, model: ReadonlyMap<string, readonly number[]>): void {
  assert.equal(postings.size, model.size);
  for (const id of IDS) {
    const expected = model.get(id);
    const codes = postings.codesOf(id);
    if (expected === undefined) assert.equal(codes, undefined, `${id} is gone`);
    else assert.deepEqual([...(codes ?? [])].sort(), [...new Set(expected)].sort(), `codes of ${id}`);
  }
  const idAt = new Map(IDS.map((id) => [postings.slotOf(id), id]));
  const visited = new Map<string, number[]>();
  postings.forEachRun((slot, pool, start, end) =>
    visited.set(idAt.get(slot)!, [...pool.subarray(start, end)].sort()),
  );
  assert.deepEqual(
    new Map([...visited].sort()),
    new Map(sortedIds(model).map((id) => [id, [...new Set(model.get(id))].sort()])),
  );
}

test('facet postings follow arrivals, rewrites, departures and returns exactly', () => {
  fc.assert(
    fc.property(
      codesArbitrary.map(
        (codes) => new Map(IDS.slice(0, 10).map((id, i) => [id, codes.map((c) => (c + i) % CODES)])),
      ),
      fc.array(batchArbitrary, { minLength: 1, maxLength: 25 }),
      fc.array(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: CODES - 1 }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 3,
        }),
      ),
      (initial, batches, requirementSets) => {
        const model = new Map<string, number[]>(initial);
        const postings = FacetPostings.build(initial);
        assertMatchesModel(postings, model);
        for (const batch of batches) {
          postings.apply(batch);
          for (const { id, codes } of batch) {
            if (codes === undefined) model.delete(id);
            else model.set(id, codes);
          }
          assertMatchesModel(postings, model);
          for (const requirements of requirementSets) {
            const expected = sortedIds(model).filter((id) =>
              requirements.every((accepted) => accepted.some((code) => model.get(id)!.includes(code))),
            );
            assert.deepEqual(postings.meeting(requirements, undefined, undefined, IDS.length), expected);
            // Paged by the last id of a page of 4, as a list's cursor pages.
            const paged: string[] = [];
            let after: string | undefined;
            for (;;) {
              const page = postings.meeting(requirements, undefined, after, 4);
              paged.push(...page);
              if (page.length < 4) break;
              after = page[page.length - 1];
            }
            assert.deepEqual(paged, expected);
          }
        }
      },
    ),
    { numRuns: 150 },
  );
});

test('an agent whose codes grow many times keeps exactly its latest codes while the pool is packed', () => {
  const model = new Map<string, number[]>(IDS.map((id) => [id, [0]]));
  const postings = FacetPostings.build(model);
  for (let round = 1; round <= 200; round++) {
    const id = IDS[round % IDS.length]!;
    const codes = Array.from({ length: 1 + (round % 9) }, (_, i) => (round + i) % CODES);
    postings.apply([{ id, codes }]);
    model.set(id, codes);
    assert.deepEqual([...postings.codesOf(id)!].sort(), [...new Set(codes)].sort());
  }
  // Every agent still meets exactly the requirements its latest codes meet.
  for (let code = 0; code < CODES; code++) {
    const expected = IDS.filter((id) => model.get(id)!.includes(code)).sort();
    assert.deepEqual(postings.meeting([[code]], undefined, undefined, IDS.length), expected);
  }
});
