/**
 * The facet index (store/facet-index.ts) on each dialect (store.test.ts, store-postgres.test.ts): what it counts
 * follows the database — an agent rewritten with the very same stamp (a clock that does not move, as two writes
 * within one millisecond), a deleted agent, filters by status and by value, a write through another connection,
 * which only the change counter tells of, one stamped with an `updated_at` a year older than what the index has
 * seen (a replica whose clock is behind), one made in SQL that leaves `updated_at` alone (a backfill), and, on
 * PostgreSQL, a transaction that began writing before a write the index has read and commits after it; and an exact
 * answer (a list page) holds another connection's commit made just before it without waiting for the counter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
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
    /** Another connection whose clock is a year behind. */
    let late: RegistryStore;
    let index: FacetIndex;
    const now = (): string => '2026-03-01T00:00:00.000Z';

    before(async () => {
      database = await openTestDatabase(dialect);
      store = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      other = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      late = await RegistryStore.open({
        ...database.location,
        metadataOf: storedMetadata,
        now: () => '2025-03-01T00:00:00.000Z',
      });
      // As the store builds it: on SQLite, an exact answer asks the file at once (`changeCountNow`).
      index = new FacetIndex(
        store.db,
        store.dialect.name,
        () => store.changeCount(),
        store.dialect.changeCountNow?.bind(store.dialect),
      );
    });
    after(async () => {
      await late.close();
      await other.close();
      await store.close();
      await database.remove();
    });

    /** Until the store's change counter moves past `before` (PostgreSQL tells of a commit asynchronously). */
    async function counterMoved(before: number): Promise<void> {
      for (let tries = 0; store.changeCount() === before && tries < 500; tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
    }

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

    test('a write stamped a year before the newest the index has seen counts', async () => {
      assert.deepEqual(await tags(), { total: 2, tags: [{ value: 'beta', count: 2 }] });
      let before = store.changeCount();
      await register(late, agentOf({ id: 'behind', name: 'Behind', tags: ['gamma'] }), 'acme');
      await counterMoved(before);
      assert.deepEqual(await tags(), {
        total: 3,
        tags: [
          { value: 'beta', count: 2 },
          { value: 'gamma', count: 1 },
        ],
      });
      // An agent the index holds, rewritten with the old stamp.
      before = store.changeCount();
      const rewritten = await register(
        late,
        agentOf({ id: 'elsewhere', name: 'Elsewhere', tags: ['gamma'] }),
        'acme',
      );
      assert.equal(rewritten.kind, 'updated');
      assert.equal((await store.agents.get('elsewhere'))?.updatedAt, '2025-03-01T00:00:00.000Z');
      await counterMoved(before);
      assert.deepEqual(await tags(), {
        total: 3,
        tags: [
          { value: 'gamma', count: 2 },
          { value: 'beta', count: 1 },
        ],
      });
    });

    test('a write in SQL that leaves updated_at as it was counts', async () => {
      const before = store.changeCount();
      await database.query(`update agents set status = 'deprecated' where id = 'behind'`);
      await database.query(`delete from agent_tags where agent_id = 'same-stamp'`);
      await counterMoved(before);
      assert.deepEqual(await tags([{ source: 'status', values: ['deprecated'] }]), {
        total: 1,
        tags: [{ value: 'gamma', count: 1 }],
      });
      assert.deepEqual(await tags([{ source: 'agent_tags', values: ['beta'] }]), { total: 0, tags: [] });
    });

    test('an exact answer holds what another connection committed just before it was asked', async () => {
      // No waiting for the change counter: SQLite's file is asked at once, PostgreSQL's log read every time. On
      // SQLite the writer is a connection kept open: opening one takes longer than the counter's millisecond.
      const raw =
        dialect === 'sqlite' ? new Database((database.location as { path: string }).path) : undefined;
      const writeInSql = async (statement: string) =>
        raw === undefined ? database.query(statement) : raw.prepare(statement).run();
      const epsilon = async () =>
        (await index.count({ requirements: [{ source: 'agent_tags', values: ['epsilon'] }] }, 20)).total;
      try {
        for (let round = 1; round <= 10; round++) {
          await register(
            other,
            agentOf({ id: `just-before-${round}`, name: 'Just before', tags: ['alpha'] }),
            'acme',
          );
          await index.current({ exact: true });
          assert.equal(await epsilon(), round - 1);
          // The counter has just looked at the file; the write in SQL right after is within its millisecond.
          store.changeCount();
          await writeInSql(
            `insert into agent_tags (agent_id, value) values ('just-before-${round}', 'epsilon')`,
          );
          await index.current({ exact: true });
          assert.equal(await epsilon(), round);
        }
      } finally {
        raw?.close();
      }
    });

    if (dialect === 'postgres') {
      test('a transaction that commits after a later one the index has read counts', async () => {
        const url = (database.location as { url: string }).url;
        const slow = new pg.Client({ connectionString: url });
        await slow.connect();
        try {
          // Begins writing (its transaction id taken) before the store's registration, commits after it.
          await slow.query('begin');
          await slow.query(`update agents set status = 'active' where id = 'behind'`);
          let before = store.changeCount();
          await register(other, agentOf({ id: 'meanwhile', name: 'Meanwhile', tags: ['delta'] }), 'acme');
          await counterMoved(before);
          assert.equal((await tags([{ source: 'agent_tags', values: ['delta'] }])).total, 1);
          assert.equal((await tags([{ source: 'status', values: ['deprecated'] }])).total, 1);
          before = store.changeCount();
          await slow.query('commit');
          await counterMoved(before);
          assert.deepEqual(await tags([{ source: 'status', values: ['deprecated'] }]), {
            total: 0,
            tags: [],
          });
        } finally {
          await slow.end();
        }
      });
    }
  });
}
