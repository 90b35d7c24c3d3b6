/**
 * The lexical index on PostgreSQL: one row per agent with a `tsvector` per field (and one of every field, under a
 * GIN index, to find the matches), ranked by the same BM25 as SQLite's FTS5 (`sqlite.ts`): k1 1.2, b 0.75, each
 * phrase's occurrences weighted by their field's weight (DEFAULT_FIELD_WEIGHTS), FTS5's idf, and positive scores
 * (higher is better), which is what the fusion expects. `ts_rank` is not BM25 (no idf, no length normalisation
 * against the average), so it is not used.
 *
 * Where BM25 is computed: in TypeScript, over the matches' term frequencies. PostgreSQL finds the matching rows
 * (GIN, `@@`), and hands back, for each one, the positions of the query's lexemes in each field (`unnest` of the
 * field's tsvector, filtered to those lexemes); phrases are counted from the positions here, as FTS5 counts them
 * (inside one field). The corpus statistics come from a two-row totals table (rows and tokens, public and
 * restricted) kept up to date by every write, and each clause's document frequency from one counting statement
 * (the GIN index counts a one-lexeme clause). As with FTS5 (`pruning.ts`), the public agents that match only the
 * query's common clauses (a fifth of the agents or more) are not read when the top 100 provably stands without
 * them: a plain-language query's "a" or "for" matches every agent. Doing
 * it in SQL instead would need the phrase counting in SQL (positions of several lexemes joined per field), which
 * is no faster and far harder to keep identical to FTS5's; the work per query is the matches' positions either way.
 *
 * Restricted agents (hidden from some callers) are rows like any other but flagged: the public statistics (the
 * totals' public row, the document frequencies) count public rows only, and the restricted agents a caller may see
 * are scored with statistics over the public agents and those restricted agents (`visible-bm25.ts`'s rule), so
 * nothing a caller may not see moves a score.
 *
 * Text: words are split here (anything not a letter, digit or mark separates them; case and Latin accents folded),
 * so that PostgreSQL's parser sees plain words only and a row's length is its number of words, as with FTS5's
 * `unicode61`. Stemming is PostgreSQL's Snowball English stemmer (Porter's later algorithm; FTS5 uses the
 * original), in a configuration of our own (`agentry_english`) that keeps stop words, as FTS5 does. A prefix
 * (`word*`) is matched unstemmed (`:*`), a phrase as consecutive positions (what `<->` means).
 */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
// FIELDS: column names, and the field numbers the search query hands back.
import {
  BM25_B as B,
  DEFAULT_FIELD_WEIGHTS,
  FIELD_COLUMNS as FIELDS,
  type FieldWeights,
  BM25_K1 as K1,
} from './fields.js';
import { fts5Idf, provesTop, splitClauses } from './pruning.js';
import type { QueryClause } from './query.js';
import type { Executor, FieldMatches, LexicalIndex, LexicalMatch, LexicalSearchOptions } from './types.js';

/** The text search configuration the migration creates: Snowball English, no stop words. */
const CONFIG = 'agentry_english';
/** A clause matching more than this share of the public agents is common (pruning.ts; as FTS5's engine). */
const COMMON_SHARE = 0.2;
/** How deep the ranking must be exactly BM25's before the agents matching only common clauses are left out. */
const EXACT_DEPTH = 100;

/**
 * The lexical index's tables on PostgreSQL (migration `2026-11-28-100-search-lexical-postgres`): the documents,
 * their GIN index, a partial index of the restricted ones, and the totals the BM25 statistics need.
 */
export const postgresLexicalMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TEXT SEARCH DICTIONARY agentry_english_stem (TEMPLATE = snowball, LANGUAGE = english)`.execute(
      db,
    );
    await sql`CREATE TEXT SEARCH CONFIGURATION agentry_english (COPY = english)`.execute(db);
    await sql`ALTER TEXT SEARCH CONFIGURATION agentry_english
              ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
              WITH agentry_english_stem`.execute(db);
    const texts = sql.raw(FIELDS.map(([, column]) => `${column} text NOT NULL`).join(', '));
    const vectors = sql.raw(FIELDS.map(([, column]) => `${column}_v tsvector NOT NULL`).join(', '));
    await sql`CREATE TABLE search_lexical_documents (
                row_id bigserial PRIMARY KEY,
                agent_id text NOT NULL UNIQUE,
                restricted boolean NOT NULL DEFAULT false,
                length integer NOT NULL,
                ${texts}, ${vectors},
                document tsvector NOT NULL)`.execute(db);
    await sql`CREATE INDEX search_lexical_documents_match ON search_lexical_documents USING gin (document)`.execute(
      db,
    );
    await sql`CREATE INDEX search_lexical_documents_restricted ON search_lexical_documents (row_id)
              WHERE restricted`.execute(db);
    await sql`CREATE TABLE search_lexical_totals (
                restricted boolean PRIMARY KEY, rows bigint NOT NULL, tokens bigint NOT NULL)`.execute(db);
    await sql`INSERT INTO search_lexical_totals VALUES (false, 0, 0), (true, 0, 0)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE search_lexical_totals`.execute(db);
    await sql`DROP TABLE search_lexical_documents`.execute(db);
    await sql`DROP TEXT SEARCH CONFIGURATION agentry_english`.execute(db);
    await sql`DROP TEXT SEARCH DICTIONARY agentry_english_stem`.execute(db);
  },
};

/** The words of a text as FTS5's `unicode61 remove_diacritics 2` splits them, lower case, Latin accents removed. */
export function indexWords(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}]+/gu) ?? []
  );
}

/** A clause as lexemes in order; the last one a prefix for a `word*` clause. */
interface PreparedClause {
  lexemes: string[];
  prefix: boolean;
}

/** One field's positions of the query's lexemes in one row. */
interface RowPositions {
  rowId: number;
  id: string;
  restricted: boolean;
  length: number;
  /** By field number, then lexeme. */
  fields: Array<Map<string, number[]>>;
}

export interface PostgresLexicalOptions {
  weights?: Readonly<FieldWeights>;
}

export function createPostgresLexicalIndex(options: PostgresLexicalOptions = {}): LexicalIndex {
  const weights = FIELDS.map(([field]) => Number((options.weights ?? DEFAULT_FIELD_WEIGHTS)[field]));

  return {
    async write(db, entries): Promise<void> {
      // The last entry of an id wins, as if written one after another.
      const latest = new Map(entries.map((entry) => [entry.id, entry]));
      for (const { id, fields, restricted = false } of latest.values()) {
        const words = FIELDS.map(([field]) => indexWords(fields[field]).join(' '));
        const length = words.reduce((sum, text) => sum + (text === '' ? 0 : text.split(' ').length), 0);
        const old = await sql<{ restricted: boolean; length: number }>`
          SELECT restricted, length FROM search_lexical_documents WHERE agent_id = ${id} FOR UPDATE`.execute(
          db,
        );
        const previous = old.rows[0];
        const vectors = words.map((text) => sql`to_tsvector(${sql.lit(CONFIG)}::regconfig, ${text})`);
        const columns = sql.raw(
          [
            ...FIELDS.map(([, column]) => column),
            ...FIELDS.map(([, column]) => `${column}_v`),
            'document',
          ].join(', '),
        );
        const all = sql`to_tsvector(${sql.lit(CONFIG)}::regconfig, ${words.join(' ')})`;
        const updates = sql.raw(
          [
            'restricted = excluded.restricted',
            'length = excluded.length',
            ...FIELDS.map(
              ([, column]) => `${column} = excluded.${column}, ${column}_v = excluded.${column}_v`,
            ),
            'document = excluded.document',
          ].join(', '),
        );
        await sql`INSERT INTO search_lexical_documents (agent_id, restricted, length, ${columns})
                  VALUES (${id}, ${restricted}, ${length}, ${sql.join(words.map((text) => sql`${text}`))},
                          ${sql.join(vectors)}, ${all})
                  ON CONFLICT (agent_id) DO UPDATE SET ${updates}`.execute(db);
        if (previous) await moveTotals(db, previous.restricted, -1, -Number(previous.length));
        await moveTotals(db, restricted, 1, length);
      }
    },

    async remove(db, ids): Promise<void> {
      if (ids.length === 0) return;
      const removed = await sql<{ restricted: boolean; length: number }>`
        DELETE FROM search_lexical_documents WHERE agent_id = ANY(${[...ids]}::text[])
        RETURNING restricted, length`.execute(db);
      for (const restricted of [false, true]) {
        const gone = removed.rows.filter((row) => row.restricted === restricted);
        if (gone.length === 0) continue;
        const tokens = gone.reduce((sum, row) => sum + Number(row.length), 0);
        await moveTotals(db, restricted, -gone.length, -tokens);
      }
    },

    async search(db, query, options): Promise<LexicalMatch[]> {
      const limit = Math.floor(options.limit);
      if (limit <= 0 || options.candidates?.size === 0) return [];
      const clauses = await prepareClauses(db, query.clauses);
      if (clauses.length === 0) return [];
      const tsquery = clauses.map(renderClause).join(' | ');
      const [totals, publicMatches] = await Promise.all([
        sql<{ restricted: boolean; rows: string; tokens: string }>`
          SELECT restricted, rows, tokens FROM search_lexical_totals`.execute(db),
        publicMatchCounts(db, clauses),
      ]);
      const publicTotals = totals.rows.find((row) => !row.restricted);
      const statistics: PublicStatistics = {
        rows: Number(publicTotals?.rows ?? 0),
        tokens: Number(publicTotals?.tokens ?? 0),
        matches: publicMatches,
      };

      // As FTS5's engine does (pruning.ts): the public agents that match a selective clause are ranked first; when
      // the top of their ranking provably clears what the common clauses alone can score, the agents that match
      // only common clauses are not read at all. Restricted agents (few, and ranked with other statistics) are
      // read whenever they match.
      const split =
        options.candidates === undefined
          ? splitClauses(clauses, publicMatches, statistics.rows, COMMON_SHARE)
          : undefined;
      if (split !== undefined) {
        const selective = split.selective.map(renderClause).join(' | ');
        const rows = await matchingRows(db, clauses, { all: tsquery, selective }, options);
        const ranking = await rankRows(db, rows, clauses, weights, statistics, options);
        const publicScores = ranking.public.map((match) => match.score);
        if (provesTop(publicScores, Math.min(limit, EXACT_DEPTH), split.ceiling)) return ranking.top(limit);
      }
      const rows = await matchingRows(db, clauses, { all: tsquery }, options);
      return (await rankRows(db, rows, clauses, weights, statistics, options)).top(limit);
    },

    async explain(db, query, ids): Promise<Map<string, FieldMatches>> {
      const explanations = new Map<string, FieldMatches>();
      if (ids.length === 0) return explanations;
      const clauses = await prepareClauses(db, query.clauses);
      if (clauses.length === 0) return explanations;
      const tsquery = clauses.map(renderClause).join(' | ');
      // Indexed text is words and single spaces only, so brackets mark the matched words unambiguously.
      const headlines = sql.raw(
        FIELDS.map(
          ([, column], index) =>
            `CASE WHEN ${column}_v @@ q.q THEN ts_headline('${CONFIG}', ${column}, q.q, 'HighlightAll=true, StartSel=[, StopSel=]') END AS c${index}`,
        ).join(', '),
      );
      const result = await sql<Record<string, string | null>>`
        SELECT agent_id AS id, ${headlines}
        FROM search_lexical_documents, (SELECT ${tsquery}::tsquery AS q) AS q
        WHERE agent_id = ANY(${[...ids]}::text[]) AND document @@ q.q`.execute(db);
      for (const row of result.rows) {
        const matches: FieldMatches = {};
        FIELDS.forEach(([field], index) => {
          const words = [...new Set((row[`c${index}`] ?? '').match(/\[[^\]]*\]/g) ?? [])].map((mark) =>
            mark.slice(1, -1),
          );
          if (words.length > 0) matches[field] = words;
        });
        if (Object.keys(matches).length > 0) explanations.set(String(row['id']), matches);
      }
      return explanations;
    },

    async count(db): Promise<number> {
      const result = await sql<{ n: string }>`SELECT count(*) AS n FROM search_lexical_documents`.execute(db);
      return Number(result.rows[0]?.n ?? 0);
    },
  };
}

/** The public agents' statistics a ranking uses: rows, words, and how many of them match each clause. */
interface PublicStatistics {
  rows: number;
  tokens: number;
  matches: readonly number[];
}

interface RowRanking {
  /** The public rows, best first. */
  public: Array<LexicalMatch & { rowId: number }>;
  /** The first `limit` of the public and restricted rankings together. */
  top(limit: number): LexicalMatch[];
}

/**
 * Scores the matching rows by FTS5's BM25: public rows with the public statistics; restricted rows (those the
 * caller may see) with statistics over the public agents and the restricted agents in scope.
 */
async function rankRows(
  db: Executor,
  rows: readonly RowPositions[],
  clauses: readonly PreparedClause[],
  weights: readonly number[],
  statistics: PublicStatistics,
  options: LexicalSearchOptions,
): Promise<RowRanking> {
  const frequencies = rows.map((row) => clauses.map((clause) => weightedFrequency(row, clause, weights)));
  const score = (index: number, documents: number, tokens: number, matches: readonly number[]): number => {
    const row = rows[index]!;
    const averageLength = documents > 0 ? tokens / documents : 0;
    const norm = averageLength > 0 ? 1 - B + (B * row.length) / averageLength : 1;
    let total = 0;
    frequencies[index]!.forEach((weighted, p) => {
      if (!(weighted > 0)) return;
      total += (fts5Idf(documents, matches[p]!) * weighted * (K1 + 1)) / (weighted + K1 * norm);
    });
    return total;
  };
  const matched = (index: number) => frequencies[index]!.some((weighted) => weighted > 0);

  const publicRanking: Array<LexicalMatch & { rowId: number }> = [];
  rows.forEach((row, index) => {
    if (!row.restricted && matched(index)) {
      publicRanking.push({
        id: row.id,
        rowId: row.rowId,
        score: score(index, statistics.rows, statistics.tokens, statistics.matches),
      });
    }
  });
  publicRanking.sort((a, b) => b.score - a.score || a.rowId - b.rowId);

  // The restricted agents the caller may see: none for most callers, and then nothing more is asked.
  const restrictedRanking: Array<LexicalMatch & { rowId: number }> = [];
  if (rows.some((row) => row.restricted)) {
    const visible = await sql<{ rows: string; tokens: string | null }>`
      SELECT count(*) AS rows, sum(length) AS tokens FROM search_lexical_documents
      WHERE restricted ${scopeCondition(options)}`.execute(db);
    const documents = statistics.rows + Number(visible.rows[0]?.rows ?? 0);
    const tokens = statistics.tokens + Number(visible.rows[0]?.tokens ?? 0);
    const matches = clauses.map(
      (_, p) =>
        statistics.matches[p]! +
        rows.filter((row, index) => row.restricted && frequencies[index]![p]! > 0).length,
    );
    rows.forEach((row, index) => {
      if (row.restricted && matched(index)) {
        restrictedRanking.push({
          id: row.id,
          rowId: row.rowId,
          score: score(index, documents, tokens, matches),
        });
      }
    });
    restrictedRanking.sort((a, b) => b.score - a.score || a.rowId - b.rowId);
  }
  return {
    public: publicRanking,
    top: (limit) =>
      [...publicRanking.slice(0, limit), ...restrictedRanking]
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map(({ id, score }) => ({ id, score })),
  };
}

async function moveTotals(db: Executor, restricted: boolean, rows: number, tokens: number): Promise<void> {
  await sql`UPDATE search_lexical_totals SET rows = rows + ${rows}, tokens = tokens + ${tokens}
            WHERE restricted = ${restricted}`.execute(db);
}

/** The query's clauses as lexemes: each word split and stemmed as the indexed text is; a prefix is not stemmed. */
async function prepareClauses(db: Executor, clauses: readonly QueryClause[]): Promise<PreparedClause[]> {
  const wordsOf = (clause: QueryClause) =>
    clause.kind === 'phrase' ? clause.words.flatMap(indexWords) : indexWords(clause.word);
  const words = [...new Set(clauses.filter((clause) => clause.kind !== 'prefix').flatMap(wordsOf))];
  const stems = new Map<string, string[]>();
  if (words.length > 0) {
    const result = await sql<{ word: string; lexemes: string[] }>`
      SELECT word, array(SELECT u.lexeme FROM unnest(to_tsvector(${sql.lit(CONFIG)}::regconfig, word)) AS u
                         ORDER BY u.positions[1]) AS lexemes
      FROM unnest(${words}::text[]) AS word`.execute(db);
    for (const row of result.rows) stems.set(row.word, row.lexemes);
  }
  const out: PreparedClause[] = [];
  const seen = new Set<string>();
  for (const clause of clauses) {
    const prepared: PreparedClause =
      clause.kind === 'prefix'
        ? { lexemes: wordsOf(clause), prefix: true }
        : { lexemes: wordsOf(clause).flatMap((word) => stems.get(word) ?? []), prefix: false };
    if (prepared.lexemes.length === 0) continue;
    const key = `${prepared.prefix ? '*' : ''}${prepared.lexemes.join(' ')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(prepared);
  }
  return out;
}

/** A clause as tsquery text: quoted lexemes (never operators), `<->` between a phrase's, `:*` on a prefix. */
function renderClause(clause: PreparedClause): string {
  const parts = clause.lexemes.map((lexeme) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);
  if (clause.prefix) parts[parts.length - 1] += ':*';
  return parts.length === 1 ? parts[0]! : `(${parts.join(' <-> ')})`;
}

/** The condition on a document row that keeps the agents in the search's scope. */
function scopeCondition(scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>) {
  if (scope.candidates !== undefined) return sql`AND agent_id = ANY(${[...scope.candidates]}::text[])`;
  if (scope.excluded !== undefined && scope.excluded.size > 0) {
    return sql`AND NOT (agent_id = ANY(${[...scope.excluded]}::text[]))`;
  }
  return sql``;
}

/**
 * The rows in scope that match (`query.all`), each with the positions of the query's lexemes in each field; with
 * `query.selective`, the public rows only among those that match it (restricted ones whenever they match).
 */
async function matchingRows(
  db: Executor,
  clauses: readonly PreparedClause[],
  query: { all: string; selective?: string },
  scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>,
): Promise<RowPositions[]> {
  const matches =
    query.selective === undefined
      ? sql`d.document @@ ${query.all}::tsquery`
      : // Two index reads, not one scan of every row for the OR: the GIN index for the selective clauses, and the
        // partial index of restricted rows (OFFSET 0 keeps PostgreSQL from reading every match of the common
        // clauses through the GIN index to find the few restricted ones).
        sql`d.row_id IN (SELECT row_id FROM search_lexical_documents WHERE document @@ ${query.selective}::tsquery
                         UNION ALL
                         SELECT row_id FROM (SELECT row_id, document FROM search_lexical_documents
                                             WHERE restricted OFFSET 0) AS r
                         WHERE document @@ ${query.all}::tsquery)`;
  const exact = [
    ...new Set(clauses.flatMap((clause) => (clause.prefix ? clause.lexemes.slice(0, -1) : clause.lexemes))),
  ];
  const prefixes = [
    ...new Set(
      clauses.filter((clause) => clause.prefix).map((clause) => `${likeEscape(clause.lexemes.at(-1)!)}%`),
    ),
  ];
  const fieldVectors = sql.raw(FIELDS.map(([, column], index) => `(${index}, d.${column}_v)`).join(', '));
  const result = await sql<{
    row_id: string;
    id: string;
    restricted: boolean;
    length: number;
    field: number;
    lexeme: string;
    positions: number[];
  }>`
    SELECT d.row_id, d.agent_id AS id, d.restricted, d.length, f.field, u.lexeme, u.positions
    FROM search_lexical_documents AS d
    CROSS JOIN LATERAL (VALUES ${fieldVectors}) AS f(field, v)
    CROSS JOIN LATERAL unnest(f.v) AS u
    WHERE ${matches} ${scopeCondition(scope)}
      AND (u.lexeme = ANY(${exact}::text[]) OR u.lexeme LIKE ANY(${prefixes}::text[]))`.execute(db);
  const rows = new Map<number, RowPositions>();
  for (const found of result.rows) {
    const rowId = Number(found.row_id);
    let row = rows.get(rowId);
    if (!row) {
      row = {
        rowId,
        id: found.id,
        restricted: found.restricted,
        length: Number(found.length),
        fields: FIELDS.map(() => new Map()),
      };
      rows.set(rowId, row);
    }
    row.fields[found.field]!.set(found.lexeme, found.positions.map(Number));
  }
  return [...rows.values()];
}

/**
 * How many public agents match each clause, in one field (FTS5's phrases never span columns). A clause of one
 * lexeme is in some field exactly when it is in the whole document, which the GIN index counts alone; a phrase is
 * looked for field by field among the documents that hold it.
 */
async function publicMatchCounts(db: Executor, clauses: readonly PreparedClause[]): Promise<number[]> {
  const counts = clauses.map((clause, index) => {
    const query = sql`${renderClause(clause)}::tsquery`;
    const inAField =
      clause.lexemes.length === 1
        ? sql``
        : sql`AND (${sql.join(
            FIELDS.map(([, column]) => sql`${sql.raw(`${column}_v`)} @@ ${query}`),
            sql` OR `,
          )})`;
    return sql`(SELECT count(*) FROM search_lexical_documents
                WHERE NOT restricted AND document @@ ${query} ${inAField}) AS ${sql.raw(`n${index}`)}`;
  });
  const result = await sql<Record<string, string>>`SELECT ${sql.join(counts)}`.execute(db);
  return clauses.map((_, index) => Number(result.rows[0]?.[`n${index}`] ?? 0));
}

/** A clause's occurrences in a row, each counted with its field's weight (FTS5's F). */
function weightedFrequency(row: RowPositions, clause: PreparedClause, weights: readonly number[]): number {
  let total = 0;
  row.fields.forEach((positions, field) => {
    const count = occurrences(positions, clause);
    if (count > 0) total += count * weights[field]!;
  });
  return total;
}

/** How many times a clause occurs in one field: for a phrase, the starts of its lexemes at consecutive positions. */
function occurrences(positions: ReadonlyMap<string, number[]>, clause: PreparedClause): number {
  // One lexeme (most clauses): its positions counted, no sets made. A position holds one lexeme.
  if (clause.lexemes.length === 1) {
    const lexeme = clause.lexemes[0]!;
    if (!clause.prefix) return positions.get(lexeme)?.length ?? 0;
    let count = 0;
    for (const [found, where] of positions) if (found.startsWith(lexeme)) count += where.length;
    return count;
  }
  const at = (index: number): Set<number> => {
    const lexeme = clause.lexemes[index]!;
    if (clause.prefix && index === clause.lexemes.length - 1) {
      const all = new Set<number>();
      for (const [found, where] of positions) if (found.startsWith(lexeme)) for (const p of where) all.add(p);
      return all;
    }
    return new Set(positions.get(lexeme) ?? []);
  };
  let starts = at(0);
  for (let index = 1; index < clause.lexemes.length && starts.size > 0; index++) {
    const next = at(index);
    starts = new Set([...starts].filter((start) => next.has(start + index)));
  }
  return starts.size;
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
