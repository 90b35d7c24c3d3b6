/**
 * The lexical index on SQLite FTS5: the only module of the search that speaks SQLite. One FTS5 row per agent with
 * a column per field, ranked by `bm25()` with a weight per column; a plain table maps agent ids to FTS5 rowids so
 * that replacing or removing an agent is a keyed lookup. Agents that match only a query's common clauses are not
 * scored when that provably leaves the top of the ranking as it was (`pruning.ts`).
 *
 * Tokenizer: `porter unicode61 remove_diacritics 2` — words split on anything that is not a letter or digit
 * (so `get_weather` is two words), case and accents folded, English stemmed (forecasts → forecast). camelCase
 * and Han/Kana text are prepared before they get here (see text/words.ts), since unicode61 keeps both whole.
 */

import type { Migration } from 'kysely';
import { type Generated, type Kysely, sql } from 'kysely';
import { chunks } from '../chunks.js';
// The FTS5 table's columns, in the order bm25() takes their weights.
import { FIELD_COLUMNS as COLUMNS, DEFAULT_FIELD_WEIGHTS, type FieldWeights } from './fields.js';
import { fts5Idf, provesTop, splitClauses } from './pruning.js';
import type { LexicalQuery, QueryClause } from './query.js';
import type {
  Executor,
  FieldMatches,
  LexicalDocument,
  LexicalDocumentPage,
  LexicalFields,
  LexicalIndex,
  LexicalMatch,
  LexicalSearchOptions,
} from './types.js';
import {
  frequencyStep,
  rowLength,
  scoreVisibleRows,
  tableTotals,
  weightedFrequency,
} from './visible-bm25.js';

interface LexicalRow {
  rowid: number;
  name: string;
  description: string;
  tags: string;
  capabilities: string;
  operation_names: string;
  operation_text: string;
  parameters: string;
}

export interface LexicalTables {
  /** Public agents: FTS5's statistics (bm25()) are theirs alone. */
  search_lexical: LexicalRow;
  /** Restricted agents, scored against what the caller may see (`visible-bm25.ts`). */
  search_lexical_restricted: LexicalRow;
  /** 1 when the agent's row is in `search_lexical_restricted`. */
  search_lexical_rows: { row_id: Generated<number>; agent_id: string; restricted: Generated<number> };
}

/** Where an agent's row is: public agents and restricted ones are ranked with different statistics. */
const PUBLIC_TABLE = 'search_lexical';
const RESTRICTED_TABLE = 'search_lexical_restricted';

export const sqliteLexicalMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE search_lexical_rows (row_id INTEGER PRIMARY KEY, agent_id TEXT NOT NULL UNIQUE)`.execute(
      db,
    );
    const columns = sql.raw(COLUMNS.map(([, column]) => column).join(', '));
    await sql`CREATE VIRTUAL TABLE search_lexical USING fts5(${columns}, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE search_lexical`.execute(db);
    await sql`DROP TABLE search_lexical_rows`.execute(db);
  },
};

/**
 * Restricted agents move to a table of their own, so that the public table's BM25 statistics hold only public
 * agents (`visible-bm25.ts`). In a registry's database the agents that are restricted are moved at once; the
 * search index alone (no `agents` table) has them moved by their next upsert.
 */
export const sqliteRestrictedLexicalMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const columns = sql.raw(COLUMNS.map(([, column]) => column).join(', '));
    await sql`CREATE VIRTUAL TABLE search_lexical_restricted USING fts5(${columns}, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(
      db,
    );
    await sql`ALTER TABLE search_lexical_rows ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0`.execute(db);
    await sql`CREATE INDEX search_lexical_rows_restricted ON search_lexical_rows (row_id) WHERE restricted = 1`.execute(
      db,
    );
    const agents = await sql<{ n: number }>`
      SELECT count(*) AS n FROM pragma_table_info('agents') WHERE name = 'restricted'`.execute(db);
    if (Number(agents.rows[0]?.n ?? 0) === 0) return;
    await sql`UPDATE search_lexical_rows SET restricted = 1
              WHERE agent_id IN (SELECT id FROM agents WHERE restricted = 1)`.execute(db);
    await sql`INSERT INTO search_lexical_restricted (rowid, ${columns})
              SELECT rowid, ${columns} FROM search_lexical
              WHERE rowid IN (SELECT row_id FROM search_lexical_rows WHERE restricted = 1)`.execute(db);
    await sql`DELETE FROM search_lexical
              WHERE rowid IN (SELECT row_id FROM search_lexical_rows WHERE restricted = 1)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE search_lexical_restricted`.execute(db);
  },
};

// Control characters cannot occur in indexed text (they are not letters), so they mark highlights unambiguously.
const MARK_OPEN = '\u0002';
const MARK_CLOSE = '\u0003';

export interface SqliteLexicalOptions {
  weights?: Readonly<FieldWeights>;
  /**
   * A clause matching more than this share of the agents is common: agents that match only common clauses are not
   * scored when that provably leaves the top of the ranking unchanged (see `pruning.ts`). 1 scores every match.
   */
  commonShare?: number;
  /**
   * Explaining hits looks each one up (rather than filtering the query's matches) once the query's clauses match
   * more than this many agents a hit (default 3,000; see `EXPLAIN_LOOKUPS_FROM`).
   */
  explainLookupsFrom?: number;
  /**
   * Candidates (a filter's agents) from this many on are checked against the ranked matches in memory rather than
   * handed to SQLite as a list (default `LARGE_SCOPE`; `Infinity` always hands the list over).
   */
  largeScope?: number;
}

/**
 * From how many candidates on the ranking filters its matches in memory. A list of candidates goes to SQLite as
 * JSON, parsed and looked up row by row at every search: at 100,000 agents a filter keeping 55,000 of them cost
 * more than ranking every match (docs/web.md, "Speed"); a few thousand cost little either way.
 */
const LARGE_SCOPE = 5000;
/**
 * How much deeper than the candidates' share of the agents says the unfiltered ranking reads: a filter that keeps
 * fewer of the best matches than of all agents takes a second, filtered ranking.
 */
const DEPTH_MARGIN = 1.5;

/** Tuned on bench/registry's 10,000 agents: at 0.2 every query's top 100 was proven, and half the time was saved. */
const DEFAULT_COMMON_SHARE = 0.2;
/**
 * How deep the ranking must be exactly FTS5's before the rest may leave common-only matches out: hybrid search
 * fuses a pool of 1,000 but its top 10 comes from far higher up; below this, BM25 decides little.
 */
const EXACT_DEPTH = 100;

export function createSqliteLexicalIndex(options: SqliteLexicalOptions = {}): LexicalIndex {
  const weights = options.weights ?? DEFAULT_FIELD_WEIGHTS;
  const commonShare = options.commonShare ?? DEFAULT_COMMON_SHARE;
  const explainLookupsFrom = options.explainLookupsFrom ?? EXPLAIN_LOOKUPS_FROM;
  const largeScope = options.largeScope ?? LARGE_SCOPE;
  const bm25 = sql.raw(
    `bm25(search_lexical, ${COLUMNS.map(([field]) => Number(weights[field])).join(', ')})`,
  );
  const restrictedBm25 = sql.raw(
    `bm25(search_lexical_restricted, ${COLUMNS.map(([field]) => Number(weights[field])).join(', ')})`,
  );
  const clauseCounts = clauseFrequencies();
  const step = frequencyStep(COLUMNS.map(([field]) => Number(weights[field])));

  /** The public agents' ranking by FTS5's bm25(), over public agents only; pruned where that provably changes nothing. */
  async function publicRanking(
    db: Executor,
    query: LexicalQuery,
    match: string,
    options: LexicalSearchOptions,
  ): Promise<LexicalMatch[]> {
    if (options.candidates !== undefined && options.candidates.size >= largeScope) {
      const filtered = await filteredInMemory(db, query, match, options.limit, options.candidates);
      if (filtered !== undefined) return filtered;
    }
    // Candidates (a filter) already narrow the matches to a few; excluded agents are few among many.
    const prune = commonShare < 1 && options.candidates === undefined;
    const split = prune ? await clauseCounts.split(db, query.clauses, commonShare) : undefined;
    if (split) {
      const within = fts5Expression({ clauses: split.selective, words: [] });
      const pruned = await ranked(db, match, options.limit, options, within);
      const scores = pruned.map((hit) => hit.score);
      if (provesTop(scores, Math.min(Math.floor(options.limit), EXACT_DEPTH), split.ceiling)) return pruned;
    }
    return ranked(db, match, options.limit, options);
  }

  /**
   * The ranking `ranked` gives within `candidates`, found by ranking every match unfiltered, deep enough that
   * `limit` candidates are likely among them, and keeping the candidates in order. bm25() reads the whole table's
   * statistics whatever the WHERE clause, and both rankings order by score then rowid, so the candidates come in the
   * order and with the scores the filtered ranking gives them; nothing is pruned (as with candidates in SQL).
   * Undefined when the depth read holds fewer than `limit` candidates and more matches lie below it: the caller
   * ranks within the candidates then.
   */
  async function filteredInMemory(
    db: Executor,
    query: LexicalQuery,
    match: string,
    limit: number,
    candidates: ReadonlySet<string>,
  ): Promise<LexicalMatch[] | undefined> {
    const wanted = Math.floor(limit);
    const { rows } = await clauseCounts.matching(db, query.clauses);
    const share = Math.min(1, candidates.size / Math.max(1, rows));
    const depth = Math.ceil((wanted / share) * DEPTH_MARGIN) + wanted;
    const hits = await ranked(db, match, depth, {});
    const kept = hits.filter((hit) => candidates.has(hit.id));
    if (kept.length >= wanted) return kept.slice(0, wanted);
    return hits.length < depth ? kept : undefined;
  }

  /**
   * The restricted agents the caller may see that match, scored by FTS5's formula with statistics over the public
   * agents and those restricted agents (`visible-bm25.ts`): nothing the caller may not see moves a score.
   */
  async function restrictedRanking(
    db: Executor,
    query: LexicalQuery,
    options: LexicalSearchOptions,
  ): Promise<LexicalMatch[]> {
    // The restricted agents the caller may see, with their lengths: none for most callers, and then nothing more
    // is asked (an indexed read of the partial index).
    // Many candidates are checked here rather than sent as a list (`largeScope`). In row order whichever way they
    // are read: agents of equal score keep it when merged with the public ones (as those keep rowid order).
    const candidates = options.candidates;
    const inMemory = candidates !== undefined && candidates.size >= largeScope;
    const read = await sql<{ row_id: number; id: string; sz: Uint8Array | null }>`
      SELECT rows.row_id, rows.agent_id AS id, sizes.sz
      FROM search_lexical_rows AS rows
      LEFT JOIN search_lexical_restricted_docsize AS sizes ON sizes.id = rows.row_id
      WHERE rows.restricted = 1 ${visibleTo(inMemory ? {} : options)}
      ORDER BY rows.row_id`.execute(db);
    const visible = inMemory ? { rows: read.rows.filter((row) => candidates.has(row.id)) } : read;
    if (visible.rows.length === 0) return [];
    const clauses = query.clauses.filter((clause) => renderClause(clause).length > 0);
    const lengths = new Map(visible.rows.map((row) => [row.row_id, row.sz ? rowLength(row.sz) : 0]));
    const frequencies = await phraseFrequencies(db, clauses.map(renderClause), lengths);
    if (frequencies.every((found) => found.size === 0)) return [];
    const [publicMatches, totals] = await Promise.all([
      clauseCounts.matching(db, clauses),
      tableTotals(db, PUBLIC_TABLE),
    ]);
    return scoreVisibleRows(
      visible.rows.map((row) => ({ rowId: row.row_id, id: row.id, length: lengths.get(row.row_id)! })),
      frequencies,
      { rows: totals.rows, tokens: totals.tokens, matches: publicMatches.counts },
    );
  }

  /**
   * Each phrase's weighted frequency in the given restricted rows (by row id, with their lengths), read back from
   * FTS5's score of each row for the phrase alone (`weightedFrequency`). One compound statement for every phrase.
   */
  async function phraseFrequencies(
    db: Executor,
    phrases: readonly string[],
    lengths: ReadonlyMap<number, number>,
  ): Promise<Array<Map<number, number>>> {
    const out = phrases.map(() => new Map<number, number>());
    if (phrases.length === 0 || lengths.size === 0) return out;
    const within = JSON.stringify([...lengths.keys()]);
    const parts = phrases.map(
      (phrase, index) => sql`
        SELECT ${index} AS phrase, search_lexical_restricted.rowid AS row_id, -${restrictedBm25} AS score,
               (SELECT count(*) FROM search_lexical_restricted WHERE search_lexical_restricted MATCH ${phrase}) AS matches
        FROM search_lexical_restricted
        WHERE search_lexical_restricted MATCH ${phrase}
          AND +search_lexical_restricted.rowid IN (SELECT value FROM json_each(${within}))`,
    );
    const [result, table] = await Promise.all([
      sql<{
        phrase: number;
        row_id: number;
        score: number;
        matches: number;
      }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db),
      tableTotals(db, RESTRICTED_TABLE),
    ]);
    const averageLength = table.rows > 0 ? table.tokens / table.rows : 0;
    for (const row of result.rows) {
      const idf = fts5Idf(table.rows, Number(row.matches));
      const length = lengths.get(row.row_id) ?? 0;
      out[row.phrase]!.set(row.row_id, weightedFrequency(row.score, idf, length, averageLength, step));
    }
    return out;
  }

  /** The ranked matches of `match`, optionally only among the agents that match `within` too. */
  async function ranked(
    db: Executor,
    match: string,
    limit: number,
    scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>,
    within?: string,
  ): Promise<LexicalMatch[]> {
    const only = scope.candidates ? sql`AND ${notLookedUp} IN ${rowIdsOf([...scope.candidates])}` : sql``;
    const except =
      scope.excluded && scope.excluded.size > 0
        ? sql`AND ${notLookedUp} NOT IN ${rowIdsOf([...scope.excluded])}`
        : sql``;
    const selective =
      within === undefined
        ? sql``
        : sql`AND ${notLookedUp} IN (SELECT rowid FROM search_lexical WHERE search_lexical MATCH ${within})`;
    // Ranked first, then named: only the kept matches are joined to their agent ids (every match ranked is scored;
    // at 10,000 agents a common word matches thousands), and bm25() is computed once per match. Ties go by rowid,
    // so that a ranking and its pruned twin list equal scores in one order.
    const result = await sql<{ id: string; score: number }>`
      SELECT rows.agent_id AS id, -ranked.weighted AS score
      FROM (SELECT search_lexical.rowid AS row_id, ${bm25} AS weighted FROM search_lexical
            WHERE search_lexical MATCH ${match} ${only} ${except} ${selective}
            ORDER BY weighted, search_lexical.rowid LIMIT ${Math.floor(limit)}) AS ranked
      JOIN search_lexical_rows AS rows ON rows.row_id = ranked.row_id
      ORDER BY ranked.weighted, ranked.row_id`.execute(db);
    return result.rows;
  }

  return {
    async write(db, entries): Promise<void> {
      // The last entry of an agent is the one that stands, as if each were written in turn.
      const latest = new Map(entries.map((entry) => [entry.id, entry]));
      const existing = new Map<string, { row_id: number; restricted: number }>();
      for (const chunk of chunks([...latest.keys()])) {
        const rows = await db
          .selectFrom('search_lexical_rows')
          .select(['agent_id', 'row_id', 'restricted'])
          .where('agent_id', 'in', chunk)
          .execute();
        for (const row of rows) existing.set(row.agent_id, row);
      }
      const fresh: Array<(typeof entries)[number]> = [];
      for (const entry of latest.values()) {
        const { id, fields, restricted = false } = entry;
        const held = existing.get(id);
        if (held === undefined) {
          fresh.push(entry);
          continue;
        }
        await sql`DELETE FROM ${tableOf(held.restricted === 1)} WHERE rowid = ${held.row_id}`.execute(db);
        if ((held.restricted === 1) !== restricted) {
          await db
            .updateTable('search_lexical_rows')
            .set({ restricted: restricted ? 1 : 0 })
            .where('row_id', '=', held.row_id)
            .execute();
        }
        await insertLexicalRows(db, restricted, [{ rowId: held.row_id, fields }]);
      }
      // New agents (all of a bulk load): their row ids, then their FTS5 rows, many to a statement.
      for (const chunk of chunks(fresh)) {
        const inserted = await db
          .insertInto('search_lexical_rows')
          .values(
            chunk.map(({ id, restricted = false }) => ({ agent_id: id, restricted: restricted ? 1 : 0 })),
          )
          .returning(['agent_id', 'row_id'])
          .execute();
        const rowIds = new Map(inserted.map((row) => [row.agent_id, row.row_id]));
        for (const restricted of [false, true]) {
          const rows = chunk
            .filter((entry) => (entry.restricted ?? false) === restricted)
            .map(({ id, fields }) => ({ rowId: rowIds.get(id)!, fields }));
          await insertLexicalRows(db, restricted, rows);
        }
      }
    },

    async remove(db, ids): Promise<void> {
      for (const id of ids) {
        const existing = await db
          .selectFrom('search_lexical_rows')
          .select(['row_id', 'restricted'])
          .where('agent_id', '=', id)
          .executeTakeFirst();
        if (!existing) continue;
        await sql`DELETE FROM ${tableOf(existing.restricted === 1)} WHERE rowid = ${existing.row_id}`.execute(
          db,
        );
        await db.deleteFrom('search_lexical_rows').where('row_id', '=', existing.row_id).execute();
      }
    },

    async search(db, query, options): Promise<LexicalMatch[]> {
      const match = fts5Expression(query);
      if (match === undefined || options.limit <= 0) return [];
      if (options.candidates?.size === 0) return [];
      const [publicMatches, restrictedMatches] = await Promise.all([
        publicRanking(db, query, match, options),
        restrictedRanking(db, query, options),
      ]);
      if (restrictedMatches.length === 0) return publicMatches;
      return [...publicMatches, ...restrictedMatches]
        .sort((a, b) => b.score - a.score)
        .slice(0, Math.floor(options.limit));
    },

    async explain(db, query, ids): Promise<Map<string, FieldMatches>> {
      const explanations = new Map<string, FieldMatches>();
      const match = fts5Expression(query);
      if (match === undefined || ids.length === 0) return explanations;
      const highlighted = async (restricted: boolean) => {
        const table = tableOf(restricted);
        const result = await sql<Record<string, string | null>>`
          SELECT rows.agent_id AS id, ${highlights(restricted)}
          FROM ${table} CROSS JOIN search_lexical_rows AS rows ON rows.row_id = ${table}.rowid
          WHERE ${table} MATCH ${match} AND ${notLookedUpIn(restricted)} IN ${rowIdsOf(ids)}`.execute(db);
        return result.rows;
      };
      // Filtering the matches reads every one of them; looking the hits up costs about a millisecond each, whatever
      // the size. The clause counts (remembered from the ranking) bound the matches.
      const { counts } = await clauseCounts.matching(db, query.clauses);
      const matches = counts.reduce((sum, count) => sum + count, 0);
      const lookedUp = async () => {
        const result = await sql<Record<string, string | null>>`
          SELECT rows.agent_id AS id, ${highlights(false)}
          FROM search_lexical_rows AS rows CROSS JOIN search_lexical ON search_lexical.rowid = rows.row_id
          WHERE search_lexical MATCH ${match}
            AND rows.agent_id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`.execute(db);
        return result.rows;
      };
      const rows = [
        ...(matches > explainLookupsFrom * ids.length ? await lookedUp() : await highlighted(false)),
      ];
      if (await hasRestricted(db)) rows.push(...(await highlighted(true)));
      for (const row of rows) {
        const matches: FieldMatches = {};
        COLUMNS.forEach(([field], index) => {
          const words = markedWords(row[`c${index}`] ?? '');
          if (words.length > 0) matches[field] = words;
        });
        explanations.set(String(row['id']), matches);
      }
      return explanations;
    },

    async count(db): Promise<number> {
      const row = await db
        .selectFrom('search_lexical_rows')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async documents(db, after, limit): Promise<LexicalDocumentPage> {
      const size = Math.max(1, Math.floor(limit));
      const rows = await storedDocuments(
        db,
        sql`rows.row_id > ${Number(after ?? 0)} ORDER BY rows.row_id LIMIT ${size}`,
      );
      const last = rows.at(-1);
      return {
        documents: rows.map(documentOf),
        ...(last === undefined || rows.length < size ? {} : { next: String(last.row_id) }),
      };
    },

    async documentsOf(db, ids): Promise<LexicalDocument[]> {
      const out: LexicalDocument[] = [];
      for (const chunk of chunks([...new Set(ids)])) {
        const rows = await storedDocuments(
          db,
          sql`rows.agent_id IN (SELECT value FROM json_each(${JSON.stringify(chunk)})) ORDER BY rows.row_id`,
        );
        out.push(...rows.map(documentOf));
      }
      return out;
    },
  };
}

/** A stored document's row: its agent, its table, and its columns from whichever of the two tables holds it. */
type StoredRow = { row_id: number; id: string; restricted: number } & Record<`c${number}`, string | null>;

/**
 * The documents of the rows `condition` keeps (on `search_lexical_rows AS rows`), their text read from FTS5's
 * content tables (`%_content`: a plain table by rowid, columns c0… in column order) by key: one statement, no
 * MATCH, nothing tokenized.
 */
async function storedDocuments(db: Executor, condition: ReturnType<typeof sql>): Promise<StoredRow[]> {
  const columns = sql.raw(
    COLUMNS.map((_, index) => `coalesce(p.c${index}, r.c${index}) AS c${index}`).join(', '),
  );
  const result = await sql<StoredRow>`
    SELECT rows.row_id, rows.agent_id AS id, rows.restricted, ${columns}
    FROM search_lexical_rows AS rows
    LEFT JOIN search_lexical_content AS p ON rows.restricted = 0 AND p.id = rows.row_id
    LEFT JOIN search_lexical_restricted_content AS r ON rows.restricted = 1 AND r.id = rows.row_id
    WHERE ${condition}`.execute(db);
  return result.rows;
}

function documentOf(row: StoredRow): LexicalDocument {
  const fields = {} as LexicalFields;
  COLUMNS.forEach(([field], index) => {
    fields[field] = String(row[`c${index}`] ?? '');
  });
  return { id: row.id, fields, restricted: row.restricted === 1 };
}

/** Clause counts kept at most, so that a registry that is never written to does not keep every query's. */
const MAX_REMEMBERED_COUNTS = 10_000;

/**
 * How many agents each clause matches, and how many there are, for `splitClauses`. Remembered until the database
 * changes: `total_changes()` moves with this connection's writes and `data_version` with any other's, so a count
 * is never stale (the proof that pruning left the top unchanged rests on it).
 */
function clauseFrequencies() {
  let state = '';
  let rows = 0;
  const counts = new Map<string, number>();
  /** How many public agents match each clause, and how many public agents there are. */
  async function matching(db: Executor, clauses: readonly QueryClause[]) {
    const now = await sql<{ own: number; others: number; rows: number }>`
      SELECT total_changes() AS own, (SELECT data_version FROM pragma_data_version) AS others,
             (SELECT count(*) FROM search_lexical_rows)
               - (SELECT count(*) FROM search_lexical_rows WHERE restricted = 1) AS rows`.execute(db);
    const { own, others, rows: total } = now.rows[0]!;
    if (`${own}:${others}` !== state || counts.size > MAX_REMEMBERED_COUNTS) {
      state = `${own}:${others}`;
      rows = total;
      counts.clear();
    }
    const keys = clauses.map(renderClause);
    const missing = [...new Set(keys.filter((key) => !counts.has(key)))];
    if (missing.length > 0) {
      const counted = await sql<{ n: string }>`
        SELECT json_array(${sql.join(
          missing.map((key) => sql`(SELECT count(*) FROM search_lexical WHERE search_lexical MATCH ${key})`),
        )}) AS n`.execute(db);
      const values = JSON.parse(counted.rows[0]!.n) as number[];
      for (const [i, key] of missing.entries()) counts.set(key, values[i]!);
    }
    return { rows, counts: keys.map((key) => counts.get(key)!) };
  }
  return {
    matching,
    async split(db: Executor, clauses: readonly QueryClause[], commonShare: number) {
      const found = await matching(db, clauses);
      return splitClauses(clauses, found.counts, found.rows, commonShare);
    },
  };
}

/**
 * A set of agents restricts a MATCH as a filter on its matches, never as FTS5 rowid lookups: SQLite would hand
 * FTS5 the set as `rowid = ?` constraints and run the whole query once per agent, recomputing bm25()'s statistics
 * each time. Measured at 10,000 agents (docs/search.md): a search restricted to 300 agents took 76 ms that way
 * against 1.6 ms filtering the matches, 3,000 agents 817 against 7.5 ms, and explaining ten hits 2.6 against 1.2 ms.
 * The unary `+` makes the rowid an expression the virtual table cannot take as a constraint; CROSS JOIN keeps
 * FTS5 the outer loop of a join to agent ids for the same reason.
 */
const notLookedUp = sql.raw('+search_lexical.rowid');

/**
 * Explaining hits looks each one up once the query's clauses match more than this many agents per hit, counted as
 * the sum of the clauses' counts (which overstates the matches: one agent matches several clauses). A lookup of a
 * hit costs about 0.75 ms (FTS5 runs the MATCH for its rowid), filtering about 0.75 µs a match: ten hits of each of
 * four bench queries took 12 ms in all filtering against 30 ms looked up at 10,000 agents (700-4,000 matches), 80
 * against 35 ms at 100,000 (7,000-40,000). At 10,000 agents the bench's queries sum to at most 17,000, under the
 * threshold for ten hits: small registries filter as before; at 1,000,000 filtering would read ~400,000 matches.
 */
const EXPLAIN_LOOKUPS_FROM = 3000;

function tableOf(restricted: boolean) {
  return sql.table(restricted ? RESTRICTED_TABLE : PUBLIC_TABLE);
}

function notLookedUpIn(restricted: boolean) {
  return sql.raw(`+${restricted ? RESTRICTED_TABLE : PUBLIC_TABLE}.rowid`);
}

/** Every column of the table's current match, its matched phrases between MARK_OPEN and MARK_CLOSE. */
function highlights(restricted: boolean) {
  const table = restricted ? RESTRICTED_TABLE : PUBLIC_TABLE;
  return sql.raw(
    COLUMNS.map(
      (_, index) =>
        `highlight(${table}, ${index}, char(${MARK_OPEN.charCodeAt(0)}), char(${MARK_CLOSE.charCodeAt(0)})) AS c${index}`,
    ).join(', '),
  );
}

/** Whether any agent is restricted (an indexed read of the partial index). */
async function hasRestricted(db: Executor): Promise<boolean> {
  const found = await sql<{ one: number }>`
    SELECT 1 AS one FROM search_lexical_rows WHERE restricted = 1 LIMIT 1`.execute(db);
  return found.rows.length > 0;
}

/** The condition on `rows` (search_lexical_rows) that keeps the agents the caller may see. */
function visibleTo(scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>) {
  if (scope.candidates !== undefined) {
    return sql`AND rows.agent_id IN (SELECT value FROM json_each(${JSON.stringify([...scope.candidates])}))`;
  }
  if (scope.excluded !== undefined && scope.excluded.size > 0) {
    return sql`AND rows.agent_id NOT IN (SELECT value FROM json_each(${JSON.stringify([...scope.excluded])}))`;
  }
  return sql``;
}

function rowIdsOf(ids: readonly string[]) {
  return sql`(SELECT row_id FROM search_lexical_rows WHERE agent_id IN (SELECT value FROM json_each(${JSON.stringify(ids)})))`;
}

/** The query as an FTS5 expression: every clause an alternative (OR), each word a quoted string. */
export function fts5Expression(query: LexicalQuery): string | undefined {
  const parts = query.clauses.map(renderClause).filter((part) => part.length > 0);
  return parts.length === 0 ? undefined : parts.join(' OR ');
}

function renderClause(clause: QueryClause): string {
  switch (clause.kind) {
    case 'term':
      return quote(clause.word);
    case 'prefix':
      return `${quote(clause.word)}*`;
    case 'phrase':
      return quote(clause.words.join(' '));
  }
}

/** An FTS5 string: inside double quotes nothing is an operator; a quote is written twice. */
function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function markedWords(text: string): string[] {
  const words = new Set<string>();
  let at = text.indexOf(MARK_OPEN);
  while (at >= 0) {
    const end = text.indexOf(MARK_CLOSE, at);
    if (end < 0) break;
    words.add(text.slice(at + 1, end).toLowerCase());
    at = text.indexOf(MARK_OPEN, end);
  }
  return [...words];
}

/** FTS5 rows of one table (public or restricted), many to a statement (eight bound values a row). */
async function insertLexicalRows(
  db: Executor,
  restricted: boolean,
  rows: ReadonlyArray<{ rowId: number; fields: LexicalFields }>,
): Promise<void> {
  for (const chunk of chunks(rows, LEXICAL_ROWS_PER_STATEMENT)) {
    const values = chunk.map(
      ({ rowId, fields }) =>
        sql`(${rowId}, ${fields.name}, ${fields.description}, ${fields.tags}, ${fields.capabilities}, ${fields.operationNames}, ${fields.operationText}, ${fields.parameters})`,
    );
    await sql`INSERT INTO ${tableOf(restricted)} (rowid, name, description, tags, capabilities, operation_names, operation_text, parameters)
      VALUES ${sql.join(values)}`.execute(db);
  }
}

/** 2,000 bound values a statement, far inside what SQLite (32,766) accepts. */
const LEXICAL_ROWS_PER_STATEMENT = 250;
