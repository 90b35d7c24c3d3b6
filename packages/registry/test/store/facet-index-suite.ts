/**
 * The facet index (store/facet-index.ts) on each dialect (store.test.ts, store-postgres.test.ts): what it counts
 * follows the database — an agent rewritten with the very same stamp (a clock that does not move, as two writes
 * within one millisecond), a deleted agent, filters by status and by value, and a write through another connection,
 * which only the change counter tells of.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storedMetadata } from '../../src/records/views.js';
import { FacetIndex } from '../../src/store/facet-index.js';
import { RegistryStore } from '../../src/store/store.js';
import { agentOf, register } from './store-suite.js';
import { type DialectName, openTestDatabase, type TestDatabase } from './test-database.js';

export function describeFacetIndex(dialect: DialectName): void {
  describe(`facet index (${dialect})`, () => {
    let database: TestDatabase;
    let store: RegistryStore;
    let other: RegistryStore;
    let index: FacetIndex;
    const now = (): string => '2026-03-01T00:00:00.000Z';

    before(async () => {
      database = await openTestDatabase(dialect);
      store = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      other = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      index = new FacetIndex(store.db, store.dialect.name, () => store.changeCount());
    });
    after(async () => {
      await other.close();
      await store.close();
      await database.remove();
    });

    async function tags(requirements: Parameters<FacetIndex['count']>[0]['requirements'] = []) {
      await index.current();
      const counted = await index.count({ requirements }, 20);
      return { total: counted.total, tags: counted.facets.tags };
    }

    test('an agent rewritten with the same stamp counts as it is now', async () => {
      await register(store, agentOf({ id: 'same-stamp', name: 'Same', tags: ['alpha'] }), 'acme');
      await register(
        store,
        agentOf({ id: 'kept', name: 'Kept', tags: ['alpha'], status: 'deprecated' }),
        'acme',
      );
      assert.deepEqual(await tags(), { total: 2, tags: [{ value: 'alpha', count: 2 }] });
      const rewritten = await register(
        store,
        agentOf({ id: 'same-stamp', name: 'Same', tags: ['beta'] }),
        'acme',
      );
      assert.equal(rewritten.kind, 'updated');
      assert.deepEqual(await tags(), {
        total: 2,
        tags: [
          { value: 'alpha', count: 1 },
          { value: 'beta', count: 1 },
        ],
      });
      assert.deepEqual(await tags([{ source: 'status', values: ['deprecated'] }]), {
        total: 1,
        tags: [{ value: 'alpha', count: 1 }],
      });
      assert.deepEqual(await tags([{ source: 'agent_tags', values: ['gamma'] }]), { total: 0, tags: [] });
    });

    test('a deleted agent is not counted', async () => {
      const deleted = await store.agents.delete('kept', () => 'allow', 'tok-acme');
      assert.equal(deleted.kind, 'deleted');
      assert.deepEqual(await tags(), { total: 1, tags: [{ value: 'beta', count: 1 }] });
    });

    test('an agent written through another connection counts once the change counter has moved', async () => {
      const before = store.changeCount();
      await register(other, agentOf({ id: 'elsewhere', name: 'Elsewhere', tags: ['beta'] }), 'acme');
      // PostgreSQL tells of the commit asynchronously (LISTEN/NOTIFY); SQLite at the next look.
      for (let tries = 0; store.changeCount() === before && tries < 500; tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(await tags(), { total: 2, tags: [{ value: 'beta', count: 2 }] });
    });
  });
}
