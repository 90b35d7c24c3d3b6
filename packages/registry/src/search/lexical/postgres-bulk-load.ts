/**
 * Writing the PostgreSQL lexical index anew from every agent (`agentry migrate`, move-database.ts): the same rows
 * as writing the agents one batch after another through `writeDocuments` (postgres-postings.ts) — documents, their
 * postings, each lexeme's count of public rows, the totals — made in the order a bulk load wants.
 *
 * Written batch by batch, each batch's postings go into the primary key (lexeme, row) and the row index at places
 * spread over the whole of them, and each batch moves the counts of the words every agent shares once more. At
 * 1,000,000 agents that is some 60,000,000 postings, an index several times the server's buffers, and a page read
 * from disk for most of them. Here the index is emptied, the postings table's indexes are dropped (in the
 * transaction: nobody sees the table without them), each batch writes its documents and appends its postings, and
 * at the end the counts are taken in one pass over the postings and the indexes are built again by sorting, as
 * CREATE INDEX does.
 */
import { sql } from 'kysely';
import { documentRows, type LexicalEntry, postingsInsert, takeWriteTurn } from './postgres-postings.js';
import type { Executor } from './types.js';

/** Agents per statement: their postings (about 60 each) go in with them. */
const LOAD_BATCH = 500;
/**
 * The sort memory the indexes are built with, for this transaction alone (PostgreSQL's default, 64 MB, spills a
 * sort of 60,000,000 postings to disk in a thousand runs).
 */
const INDEX_BUILD_MEMORY = '256MB';

/** A load under way: `add` agents (an id in one call only; within a call its last entry wins), then `finish`. */
export interface LexicalBulkLoad {
  add(entries: readonly LexicalEntry[]): Promise<void>;
  /** Counts the lexemes and totals, and builds the postings' indexes again. */
  finish(): Promise<void>;
}

/**
 * Empties the lexical index in `db` (a transaction: the load is seen whole at its commit, or not at all) and starts
 * loading it. The transaction holds the lexical index's write turn until it ends.
 */
export async function startLexicalBulkLoad(db: Executor): Promise<LexicalBulkLoad> {
  await takeWriteTurn(db);
  await sql`TRUNCATE search_lexical_postings, search_lexical_terms, search_lexical_documents`.execute(db);
  await sql`UPDATE search_lexical_totals SET rows = 0, tokens = 0`.execute(db);
  const rebuild = await dropIndexes(db, 'search_lexical_postings');
  return {
    async add(entries) {
      const latest = [...new Map(entries.map((entry) => [entry.id, entry])).values()];
      for (let from = 0; from < latest.length; from += LOAD_BATCH) {
        const { rows } = documentRows(latest.slice(from, from + LOAD_BATCH));
        const written = await sql<{ row_id: string }>`${rows} RETURNING row_id`.execute(db);
        await sql`${postingsInsert(written.rows.map((row) => String(row.row_id)))}`.execute(db);
      }
    },
    async finish() {
      await sql`INSERT INTO search_lexical_terms (lexeme, public_rows)
        SELECT lexeme, count(*) FROM search_lexical_postings WHERE NOT restricted GROUP BY lexeme`.execute(
        db,
      );
      await sql`UPDATE search_lexical_totals AS t SET rows = d.rows, tokens = d.tokens
        FROM (SELECT restricted, count(*) AS rows, coalesce(sum(length), 0) AS tokens
              FROM search_lexical_documents GROUP BY restricted) AS d
        WHERE t.restricted = d.restricted`.execute(db);
      await sql`SELECT set_config('maintenance_work_mem', ${INDEX_BUILD_MEMORY}, true)`.execute(db);
      for (const statement of rebuild) await sql.raw(statement).execute(db);
    },
  };
}

/**
 * Drops every index of `table` (a constraint's with its constraint) and returns the statements that make them
 * again, constraints first: read from the catalog, so an index a later migration adds is rebuilt too.
 */
async function dropIndexes(db: Executor, table: string): Promise<string[]> {
  const { rows } = await sql<{ index: string; definition: string; constraint: string | null; rule: string }>`
    SELECT i.indexrelid::regclass::text AS index, pg_get_indexdef(i.indexrelid) AS definition,
           c.conname AS constraint, pg_get_constraintdef(c.oid) AS rule
    FROM pg_index AS i
    LEFT JOIN pg_constraint AS c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
    WHERE i.indrelid = ${table}::regclass
    ORDER BY i.indisprimary DESC, i.indexrelid::regclass::text`.execute(db);
  const recreate: string[] = [];
  for (const { index, definition, constraint, rule } of rows) {
    if (constraint === null) {
      await sql`DROP INDEX ${sql.raw(index)}`.execute(db);
      recreate.push(definition);
    } else {
      await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${sql.id(constraint)}`.execute(db);
      recreate.push(`ALTER TABLE ${table} ADD CONSTRAINT "${constraint.replaceAll('"', '""')}" ${rule}`);
    }
  }
  return recreate;
}
