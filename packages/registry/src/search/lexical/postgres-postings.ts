/**
 * The PostgreSQL lexical index's postings and their writes. A posting is one lexeme in one agent's row: every
 * position of it, field by field (`FIELD_POSITIONS`), under a primary key of (lexeme, row), so a search reads the
 * postings of its own lexemes and nothing else. It carries its row's length and restricted flag too, so that a
 * search ranks from postings alone and reads documents only for the agent ids of the rows it returns. Beside them, each lexeme's count of public rows holding it (the
 * document frequency BM25's idf needs), kept by every write, so that counting a common word is one keyed read, not
 * a walk of its thousands of postings.
 *
 * Writes are batched: a call writes its agents a few hundred per statement (the documents from arrays, their
 * postings made in SQL from the documents' text, the counts moved in the same statement), so that preloading or
 * rebuilding an index is a handful of statements per page of agents, not several per agent.
 *
 * The migration (`2026-11-28-101-search-lexical-postings`, PostgreSQL only) makes the tables, builds them from
 * the documents a database already holds, and drops the documents' `tsvector` columns and their GIN index, which
 * searches no longer read and every write paid for.
 */
import type { Kysely, Migration, QueryExecutorProvider, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import { chunks } from '../chunks.js';
import { FIELD_COLUMNS as FIELDS } from './fields.js';
import { CONFIG, FIELD_POSITIONS, indexWords } from './postgres-text.js';
import type { Executor, LexicalFields } from './types.js';

/** Agents per statement when writing: their postings (about 60 each) go in with them. */
const WRITE_BATCH = 500;

export const postgresPostingsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // COLLATE "C": byte order, so that a prefix (`LIKE 'weath%'`) is a range of the primary key.
    await sql`CREATE TABLE search_lexical_postings (
                lexeme text COLLATE "C" NOT NULL,
                row_id bigint NOT NULL,
                restricted boolean NOT NULL,
                length integer NOT NULL,
                positions integer[] NOT NULL,
                PRIMARY KEY (lexeme, row_id))`.execute(db);
    await sql`CREATE INDEX search_lexical_postings_row ON search_lexical_postings (row_id)`.execute(db);
    // The restricted agents' postings by lexeme: a search reads every restricted agent that matches, not only
    // those matching a rare word, and should not walk a common word's postings to find the few.
    await sql`CREATE INDEX search_lexical_postings_restricted ON search_lexical_postings (lexeme)
              WHERE restricted`.execute(db);
    await sql`CREATE TABLE search_lexical_terms (
                lexeme text COLLATE "C" PRIMARY KEY,
                public_rows integer NOT NULL)`.execute(db);
    await insertPostings(db, undefined);
    const vectors = FIELDS.map(([, column]) => `DROP COLUMN ${column}_v`).join(', ');
    await sql`ALTER TABLE search_lexical_documents DROP COLUMN document, ${sql.raw(vectors)}`.execute(db);
    // The planner's statistics of the new tables now, not at autovacuum's next round: a search reads them at once.
    await sql`ANALYZE search_lexical_documents, search_lexical_postings, search_lexical_terms`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE search_lexical_terms`.execute(db);
    await sql`DROP TABLE search_lexical_postings`.execute(db);
  },
};

export interface LexicalEntry {
  id: string;
  fields: LexicalFields;
  restricted?: boolean;
}

/**
 * The transaction-scoped advisory lock every lexical write takes first: writers take turns until they commit,
 * whatever lock their caller holds. Two at once would each find an agent new that both write (an agent's old
 * postings are found from its document, which the other could not yet have committed), and would move the counts
 * of the words every agent shares row by row in orders of their own, which can deadlock.
 */
const WRITE_LOCK = 'agentry.search-lexical-writes';

/** Indexes (or re-indexes) agents, a batch per few statements; the last entry of an id wins. */
export async function writeDocuments(db: Executor, entries: readonly LexicalEntry[]): Promise<void> {
  const latest = [...new Map(entries.map((entry) => [entry.id, entry])).values()];
  if (latest.length === 0) return;
  await takeWriteTurn(db);
  for (const batch of chunks(latest, WRITE_BATCH)) await writeBatch(db, batch);
}

/** Removes agents from the index. */
export async function removeDocuments(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await takeWriteTurn(db);
  for (const batch of chunks([...new Set(ids)], WRITE_BATCH)) {
    const removed = await sql<DocumentSize>`
      DELETE FROM search_lexical_documents WHERE agent_id = ANY(${batch}::text[])
      RETURNING row_id, restricted, length`.execute(db);
    if (removed.rows.length === 0) continue;
    await forgetPostings(
      db,
      removed.rows.map((row) => String(row.row_id)),
    );
    await moveTotals(db, totalsDelta([], removed.rows));
  }
}

/** Waits for the lexical index's write lock, held until the running transaction ends (see `WRITE_LOCK`). */
export async function takeWriteTurn(db: Executor): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${WRITE_LOCK}))`.execute(db);
}

interface DocumentSize {
  row_id: string;
  restricted: boolean;
  length: number;
}

async function writeBatch(db: Executor, batch: readonly LexicalEntry[]): Promise<void> {
  const ids = batch.map((entry) => entry.id);
  const old = await sql<DocumentSize>`
    SELECT row_id, restricted, length FROM search_lexical_documents
    WHERE agent_id = ANY(${ids}::text[]) ORDER BY row_id FOR UPDATE`.execute(db);
  if (old.rows.length > 0) {
    await forgetPostings(
      db,
      old.rows.map((row) => String(row.row_id)),
    );
  }

  const { restricted, lengths, rows } = documentRows(batch);
  const updates = sql.raw(
    ['restricted', 'length', ...FIELDS.map(([, column]) => column)]
      .map((column) => `${column} = excluded.${column}`)
      .join(', '),
  );
  const written = await sql<{ row_id: string }>`
    ${rows}
    ON CONFLICT (agent_id) DO UPDATE SET ${updates}
    RETURNING row_id`.execute(db);
  await insertPostings(
    db,
    written.rows.map((row) => String(row.row_id)),
  );
  await moveTotals(
    db,
    totalsDelta(
      batch.map((_, index) => ({ restricted: restricted[index]!, length: lengths[index]! })),
      old.rows,
    ),
  );
}

/**
 * The documents of `batch` (one entry an id) as an INSERT of their rows — the text as indexed (`indexWords`), its
 * length in words, the restricted flag — and the lengths and flags it writes, for the totals.
 */
export function documentRows(batch: readonly LexicalEntry[]): {
  rows: RawBuilder<unknown>;
  lengths: number[];
  restricted: boolean[];
} {
  const ids = batch.map((entry) => entry.id);
  const texts = FIELDS.map(([field]) => batch.map((entry) => indexWords(entry.fields[field]).join(' ')));
  const lengths = batch.map((_, index) =>
    texts.reduce((sum, column) => sum + (column[index] === '' ? 0 : column[index]!.split(' ').length), 0),
  );
  const restricted = batch.map((entry) => entry.restricted === true);
  const columns = sql.raw(FIELDS.map(([, column]) => column).join(', '));
  const rows = sql`
    INSERT INTO search_lexical_documents (agent_id, restricted, length, ${columns})
    SELECT * FROM unnest(${ids}::text[], ${restricted}::boolean[], ${lengths}::integer[],
                         ${sql.join(texts.map((column) => sql`${column}::text[]`))})`;
  return { rows, lengths, restricted };
}

/**
 * Makes the postings of the documents `rowIds` (every document when undefined) from their text, and counts their
 * public ones into each lexeme's document frequency, in one statement.
 */
async function insertPostings(
  db: QueryExecutorProvider,
  rowIds: readonly string[] | undefined,
): Promise<void> {
  await sql`
    WITH inserted AS (
      ${postingsInsert(rowIds)}
      RETURNING lexeme, restricted)
    INSERT INTO search_lexical_terms (lexeme, public_rows)
    SELECT lexeme, count(*) FROM inserted WHERE NOT restricted GROUP BY lexeme
    ON CONFLICT (lexeme) DO UPDATE SET public_rows = search_lexical_terms.public_rows + excluded.public_rows`.execute(
    db,
  );
}

/**
 * The statement that makes the postings of the documents `rowIds` (every document when undefined) from their text:
 * the documents' fields through the text search configuration, each lexeme's positions in one array per row.
 */
export function postingsInsert(rowIds: readonly string[] | undefined): RawBuilder<unknown> {
  const vectors = sql.raw(
    FIELDS.map(([, column], field) => `(${field}, to_tsvector('${CONFIG}'::regconfig, d.${column}))`).join(
      ', ',
    ),
  );
  const which = rowIds === undefined ? sql`` : sql`WHERE d.row_id = ANY(${rowIds}::bigint[])`;
  return sql`
      INSERT INTO search_lexical_postings (lexeme, row_id, restricted, length, positions)
      SELECT u.lexeme, d.row_id, d.restricted, d.length,
             array_agg(f.field * ${sql.lit(FIELD_POSITIONS)} + pos.p ORDER BY f.field, pos.p)
      FROM search_lexical_documents AS d
      CROSS JOIN LATERAL (VALUES ${vectors}) AS f(field, v)
      CROSS JOIN LATERAL unnest(f.v) AS u
      CROSS JOIN LATERAL unnest(u.positions) AS pos(p)
      ${which}
      GROUP BY u.lexeme, d.row_id, d.restricted, d.length`;
}

/** Deletes the postings of the documents `rowIds` and takes their public ones out of the document frequencies. */
async function forgetPostings(db: Executor, rowIds: readonly string[]): Promise<void> {
  await sql`
    WITH gone AS (
      DELETE FROM search_lexical_postings WHERE row_id = ANY(${rowIds}::bigint[]) RETURNING lexeme, restricted)
    UPDATE search_lexical_terms AS t SET public_rows = t.public_rows - g.n
    FROM (SELECT lexeme, count(*) AS n FROM gone WHERE NOT restricted GROUP BY lexeme) AS g
    WHERE t.lexeme = g.lexeme`.execute(db);
}

interface TotalsDelta {
  publicRows: number;
  publicTokens: number;
  restrictedRows: number;
  restrictedTokens: number;
}

/** What the totals move by when `added` documents replace (or join) `removed` ones. */
function totalsDelta(
  added: ReadonlyArray<{ restricted: boolean; length: number }>,
  removed: readonly DocumentSize[],
): TotalsDelta {
  const delta: TotalsDelta = { publicRows: 0, publicTokens: 0, restrictedRows: 0, restrictedTokens: 0 };
  const move = (restricted: boolean, rows: number, tokens: number) => {
    if (restricted) {
      delta.restrictedRows += rows;
      delta.restrictedTokens += tokens;
    } else {
      delta.publicRows += rows;
      delta.publicTokens += tokens;
    }
  };
  for (const document of added) move(document.restricted, 1, document.length);
  for (const document of removed) move(document.restricted, -1, -Number(document.length));
  return delta;
}

async function moveTotals(db: Executor, delta: TotalsDelta): Promise<void> {
  await sql`
    UPDATE search_lexical_totals
    SET rows = rows + CASE WHEN restricted THEN ${delta.restrictedRows}::bigint ELSE ${delta.publicRows}::bigint END,
        tokens = tokens + CASE WHEN restricted THEN ${delta.restrictedTokens}::bigint
                                ELSE ${delta.publicTokens}::bigint END`.execute(db);
}
