/**
 * The PostgreSQL lexical index loaded in bulk (`lexical/postgres-bulk-load.ts`, what `agentry migrate` writes)
 * against the same agents written batch by batch (`writeDocuments`, what registrations write): a property over
 * generated collections (restricted agents, empty fields, accents, an id given twice in one call, several calls)
 * that both leave the same documents, postings, per-lexeme counts and totals, that a load replaces what the
 * index held, and that the postings table has its indexes back afterwards. One fresh PostgreSQL database, dropped
 * at the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { postgresLexicalMigrations } from '../../src/search/lexical/postgres.js';
import { startLexicalBulkLoad } from '../../src/search/lexical/postgres-bulk-load.js';
import { type LexicalEntry, writeDocuments } from '../../src/search/lexical/postgres-postings.js';
import type { Executor, LexicalFields } from '../../src/search/lexical/types.js';
import { freshPostgresDatabase, type TestPostgres } from '../db/postgres-fixture.js';
import { lexicalFieldsOf } from './helpers.js';

type Tables = Executor extends Kysely<infer D> ? D : never;

const WORDS = [
  'weather',
  'forecast',
  'forecasts',
  'rain',
  'café',
  'naïve',
  'ledger',
  'x2',
  'the',
  'running',
  'ran',
];

const field = fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }).map((words) => words.join(' '));
const fields: fc.Arbitrary<LexicalFields> = fc.record({
  name: field,
  description: field,
  tags: field,
  capabilities: field,
  operationNames: field,
  operationText: field,
  parameters: field,
});
const entry = (id: string): fc.Arbitrary<LexicalEntry> =>
  fc.record({ id: fc.constant(id), fields, restricted: fc.boolean() });

/** Calls of entries: ids unique across calls, an id given twice within a call now and then (its last wins). */
const loads: fc.Arbitrary<LexicalEntry[][]> = fc
  .array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 })
  .chain((sizes) => {
    let next = 0;
    return fc.tuple(
      ...sizes.map((size) => {
        const ids = Array.from({ length: size }, () => `agent-${String(next++).padStart(3, '0')}`);
        return fc.tuple(...ids.map(entry), fc.boolean()).map((drawn) => {
          const twice = drawn.at(-1) as boolean;
          const entries = drawn.slice(0, -1) as LexicalEntry[];
          return twice && entries.length > 0
            ? [{ ...entries[0]!, fields: { ...entries[0]!.fields, name: 'overwritten' } }, ...entries]
            : entries;
        });
      }),
    );
  });

/** Everything the index holds, by agent id (row ids differ between two loads of one database). */
async function snapshot(db: Kysely<Tables>): Promise<unknown> {
  const documents = await sql`SELECT agent_id, restricted, length, name, description, tags, capabilities,
      operation_names, operation_text, parameters FROM search_lexical_documents ORDER BY agent_id`.execute(
    db,
  );
  const postings = await sql`SELECT p.lexeme, d.agent_id, p.restricted, p.length, p.positions
      FROM search_lexical_postings AS p JOIN search_lexical_documents AS d USING (row_id)
      ORDER BY p.lexeme, d.agent_id`.execute(db);
  const terms = await sql`SELECT lexeme, public_rows FROM search_lexical_terms ORDER BY lexeme`.execute(db);
  const totals =
    await sql`SELECT restricted, rows, tokens FROM search_lexical_totals ORDER BY restricted`.execute(db);
  return { documents: documents.rows, postings: postings.rows, terms: terms.rows, totals: totals.rows };
}

async function indexesOfPostings(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await sql<{ definition: string }>`SELECT indexdef AS definition FROM pg_indexes
    WHERE tablename = 'search_lexical_postings' ORDER BY indexname`.execute(db);
  return rows.map((row) => row.definition);
}

describe('the PostgreSQL lexical index loaded in bulk', () => {
  let database: TestPostgres;
  let db: Kysely<Tables>;

  before(async () => {
    database = await freshPostgresDatabase();
    db = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }),
    });
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => ({ ...postgresLexicalMigrations }) },
    }).migrateToLatest();
    if (error) throw error;
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  test('holds what the same agents written batch by batch hold, over whatever the index held', async () => {
    const indexes = await indexesOfPostings(db);
    assert.equal(indexes.length, 3, indexes.join('\n'));
    await fc.assert(
      fc.asyncProperty(loads, loads, async (before, calls) => {
        // What was there before is replaced by either way of writing.
        await db.transaction().execute(async (trx) => {
          const load = await startLexicalBulkLoad(trx);
          for (const call of before) await load.add(call);
          await load.finish();
        });
        await db.transaction().execute(async (trx) => {
          await sql`TRUNCATE search_lexical_postings, search_lexical_terms, search_lexical_documents`.execute(
            trx,
          );
          await sql`UPDATE search_lexical_totals SET rows = 0, tokens = 0`.execute(trx);
          for (const call of calls) await writeDocuments(trx, call);
        });
        const written = await snapshot(db);
        await db.transaction().execute(async (trx) => {
          const load = await startLexicalBulkLoad(trx);
          for (const call of calls) await load.add(call);
          await load.finish();
        });
        assert.deepEqual(await snapshot(db), written);
        assert.deepEqual(await indexesOfPostings(db), indexes);
      }),
      { numRuns: 25 },
    );
  });

  test('a load that fails leaves the index as it was, its indexes included', async () => {
    const indexes = await indexesOfPostings(db);
    await db.transaction().execute(async (trx) => {
      const load = await startLexicalBulkLoad(trx);
      await load.add([{ id: 'kept', fields: lexicalFieldsOf({ name: 'weather' }) }]);
      await load.finish();
    });
    const held = await snapshot(db);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        const load = await startLexicalBulkLoad(trx);
        await load.add([{ id: 'lost', fields: lexicalFieldsOf({ name: 'rain' }) }]);
        throw new Error('the move failed');
      }),
      /the move failed/,
    );
    assert.deepEqual(await snapshot(db), held);
    assert.deepEqual(await indexesOfPostings(db), indexes);
  });
});
