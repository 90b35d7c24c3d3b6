/**
 * IdList, a filtered search's scope (store/agents.ts `searchScope`): the indexes read it as the Set of the same ids
 * would read, whatever they ask and in whatever order (membership builds its lookup on first use).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { IdList } from '../../src/store/id-list.js';

test('an IdList answers as the Set of its ids', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 40 }),
      fc.array(fc.string({ maxLength: 6 }), { maxLength: 20 }),
      fc.boolean(),
      (ids, asked, askFirst) => {
        const list = new IdList([...ids]);
        const set = new Set(ids);
        const membership = () => {
          for (const id of [...asked, ...ids]) assert.equal(list.has(id), set.has(id), id);
        };
        if (askFirst) membership();
        assert.equal(list.size, set.size);
        assert.deepEqual([...list], [...set]);
        assert.deepEqual([...list.keys()], [...set.keys()]);
        assert.deepEqual([...list.values()], [...set.values()]);
        assert.deepEqual([...list.entries()], [...set.entries()]);
        const visited: Array<[string, string, unknown]> = [];
        list.forEach(function (this: unknown, value, key, owner) {
          visited.push([value, key, owner === list ? this : undefined]);
        }, 'this');
        assert.deepEqual(
          visited,
          ids.map((id) => [id, id, 'this']),
        );
        if (!askFirst) membership();
      },
    ),
    { seed: 0x1d5, numRuns: 200 },
  );
});
