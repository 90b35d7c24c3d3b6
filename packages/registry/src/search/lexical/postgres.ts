/**
 * The lexical index on PostgreSQL: one row per agent (its fields' words, its length, whether it is restricted)
 * and a posting per lexeme and agent (postgres-postings.ts: every position of the lexeme, field by field, under a
 * primary key of (lexeme, row)), ranked by the same BM25 as SQLite's FTS5 (`sqlite.ts`): k1 1.2, b 0.75, each
 * phrase's occurrences weighted by their field's weight (DEFAULT_FIELD_WEIGHTS), FTS5's idf, and positive scores
 * (higher is better), which is what the fusion expects. `ts_rank` is not BM25 (no idf, no length normalisation
 * against the average), so it is not used.
 *
 * Where BM25 is computed: in TypeScript, over the matches' term frequencies. PostgreSQL hands back the postings
 * of the query's lexemes (a keyed range per lexeme, and per prefix) with each row's length; phrases are counted
 * from the positions here, as FTS5 counts them (inside one field). The corpus statistics come from a two-row
 * totals table (rows and tokens, public and restricted) and each lexeme's count of public rows, both kept up to
 * date by every write, and are kept in the replica until the database's change counter moves
 * (`postgres-statistics.ts`). As with FTS5 (`pruning.ts`), the public agents that match only the query's common
 * clauses (a fifth of the agents or more) are not read when the top 100 provably stands without them: a
 * plain-language query's "data" or "teams" matches half the agents. Doing it in SQL instead would need the phrase
 * counting in SQL (positions of several lexemes joined per field), which is no faster and far harder to keep
 * identical to FTS5's; the work per query is the matches' postings either way.
 *
 * Restricted agents (hidden from some callers) are rows like any other but flagged (their postings too): the
 * public statistics (the totals' public row, the lexemes' counts) count public rows only, and the restricted
 * agents a caller may see are scored with statistics over the public agents and those restricted agents
 * (`visible-bm25.ts`'s rule), so nothing a caller may not see moves a score.
 *
 * Text: words are split here (anything not a letter, digit or mark separates them; case and Latin accents folded),
 * so that PostgreSQL's parser sees plain words only and a row's length is its number of words, as with FTS5's
 * `unicode61`. Stemming is PostgreSQL's Snowball English stemmer (Porter's later algorithm; FTS5 uses the
 * original), in a configuration of our own (`agentry_english`) that keeps stop words, as FTS5 does. A prefix
 * (`word*`) is matched unstemmed, a phrase as consecutive positions in one field.
 */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
// FIELDS: column names, and the field numbers the postings' positions carry.
import {
  BM25_B as B,
  DEFAULT_FIELD_WEIGHTS,
  FIELD_COLUMNS as FIELDS,
  type FieldWeights,
  BM25_K1 as K1,
} from './fields.js';
import {
  type AgentPostings,
  clauseKey,
  exactLexemes,
  type PreparedClause,
  prefixPattern,
  renderClause,
  weightedFrequency,
} from './postgres-clauses.js';
import { postgresPostingsMigration, removeDocuments, writeDocuments } from './postgres-postings.js';
import { type PublicStatistics, publicStatisticsReader } from './postgres-statistics.js';
import { CONFIG, indexWords } from './postgres-text.js';
import { fts5Idf, provesTop, splitClauses } from './pruning.js';
import type { QueryClause } from './query.js';
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

export { indexWords } from './postgres-text.js';

/** A clause matching more than this share of the public agents is common (pruning.ts; as FTS5's engine). */
const COMMON_SHARE = 0.2;
/** How deep the ranking must be exactly BM25's before the agents matching only common clauses are left out. */
const EXACT_DEPTH = 100;
/** Query words whose stems are kept (a word's stem never changes); past it the cache starts again. */
const MAX_STEMS = 20_000;

/**
 * The first lexical migration on PostgreSQL (`2026-11-28-100-search-lexical-postgres`): the text search
 * configuration, the documents (with the `tsvector` columns and GIN index that the postings migration drops
 * again) and the totals the BM25 statistics need. Unchanged, since databases have recorded it as run.
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

/** Every PostgreSQL lexical migration by name, in the order they run (for a database of the lexical index alone). */
export const postgresLexicalMigrations: Readonly<Record<string, Migration>> = {
  '2026-11-28-100-search-lexical-postgres': postgresLexicalMigration,
  '2026-11-28-101-search-lexical-postings': postgresPostingsMigration,
};

/** One agent's postings of the query's lexemes. */
interface RowPositions {
  rowId: number;
  restricted: boolean;
  length: number;
  postings: AgentPostings;
}

export interface PostgresLexicalOptions {
  weights?: Readonly<FieldWeights>;
  /**
   * The database's change counter (`DatabaseDialect.changeCount`): the public statistics are kept between
   * searches until it moves. Without it they are read at every search.
   */
  changeCount?: () => number;
}

export function createPostgresLexicalIndex(options: PostgresLexicalOptions = {}): LexicalIndex {
  const weights = FIELDS.map(([field]) => Number((options.weights ?? DEFAULT_FIELD_WEIGHTS)[field]));
  const readStatistics = publicStatisticsReader(options.changeCount);
  const stems = new Map<string, string[]>();

  /** The query's clauses as lexemes: each word split and stemmed as the indexed text is; a prefix is not stemmed. */
  async function prepareClauses(db: Executor, clauses: readonly QueryClause[]): Promise<PreparedClause[]> {
    const wordsOf = (clause: QueryClause) =>
      clause.kind === 'phrase' ? clause.words.flatMap(indexWords) : indexWords(clause.word);
    const words = [...new Set(clauses.filter((clause) => clause.kind !== 'prefix').flatMap(wordsOf))];
    // This query's stems, whatever the cache forgets meanwhile.
    const known = new Map<string, string[]>();
    for (const word of words) {
      const lexemes = stems.get(word);
      if (lexemes !== undefined) known.set(word, lexemes);
    }
    const unknown = words.filter((word) => !known.has(word));
    if (unknown.length > 0) {
      const result = await sql<{ word: string; lexemes: string[] }>`
        SELECT word, array(SELECT u.lexeme FROM unnest(to_tsvector(${sql.lit(CONFIG)}::regconfig, word)) AS u
                           ORDER BY u.positions[1]) AS lexemes
        FROM unnest(${unknown}::text[]) AS word`.execute(db);
      if (stems.size + result.rows.length > MAX_STEMS) stems.clear();
      for (const row of result.rows) {
        stems.set(row.word, row.lexemes);
        known.set(row.word, row.lexemes);
      }
    }
    const out: PreparedClause[] = [];
    const seen = new Set<string>();
    for (const clause of clauses) {
      const prepared: PreparedClause =
        clause.kind === 'prefix'
          ? { lexemes: wordsOf(clause), prefix: true }
          : { lexemes: wordsOf(clause).flatMap((word) => known.get(word) ?? []), prefix: false };
      if (prepared.lexemes.length === 0) continue;
      const key = clauseKey(prepared);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(prepared);
    }
    return out;
  }

  return {
    write: writeDocuments,
    remove: removeDocuments,

    async search(db, query, options): Promise<LexicalMatch[]> {
      const limit = Math.floor(options.limit);
      if (limit <= 0 || options.candidates?.size === 0) return [];
      const clauses = await prepareClauses(db, query.clauses);
      if (clauses.length === 0) return [];
      const statistics = await readStatistics(db, clauses);

      // As FTS5's engine does (pruning.ts): the public agents that match a selective clause are ranked first; when
      // the top of their ranking provably clears what the common clauses alone can score, the agents that match
      // only common clauses are not read at all. Restricted agents (few, and ranked with other statistics) are
      // read whenever they match.
      const split =
        options.candidates === undefined
          ? splitClauses(clauses, statistics.matches, statistics.rows, COMMON_SHARE)
          : undefined;
      if (split !== undefined) {
        const rows = await matchingRows(db, clauses, options, {
          clauses: split.selective,
          lexemeRows: statistics.lexemeRows,
        });
        const ranking = await rankRows(db, rows, clauses, weights, statistics, options);
        const publicScores = ranking.public.map((match) => match.score);
        if (provesTop(publicScores, Math.min(limit, EXACT_DEPTH), split.ceiling)) {
          return withAgentIds(db, ranking.top(limit));
        }
      }
      const rows = await matchingRows(db, clauses, options);
      return withAgentIds(db, (await rankRows(db, rows, clauses, weights, statistics, options)).top(limit));
    },

    async explain(db, query, ids): Promise<Map<string, FieldMatches>> {
      const explanations = new Map<string, FieldMatches>();
      if (ids.length === 0) return explanations;
      const clauses = await prepareClauses(db, query.clauses);
      if (clauses.length === 0) return explanations;
      const tsquery = clauses.map(renderClause).join(' | ');
      // Indexed text is words and single spaces only, so brackets mark the matched words unambiguously. A field
      // is marked only when it matches the query (a phrase's words apart do not).
      const headlines = sql.raw(
        FIELDS.map(
          ([, column], index) =>
            `CASE WHEN to_tsvector('${CONFIG}', ${column}) @@ q.q THEN ts_headline('${CONFIG}', ${column}, q.q, 'HighlightAll=true, StartSel=[, StopSel=]') END AS c${index}`,
        ).join(', '),
      );
      const result = await sql<Record<string, string | null>>`
        SELECT agent_id AS id, ${headlines}
        FROM search_lexical_documents, (SELECT ${tsquery}::tsquery AS q) AS q
        WHERE agent_id = ANY(${[...ids]}::text[])`.execute(db);
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

    async documents(db, after, limit): Promise<LexicalDocumentPage> {
      const size = Math.max(1, Math.floor(limit));
      const rows = await storedDocuments(
        db,
        sql`row_id > ${after ?? '0'}::bigint ORDER BY row_id LIMIT ${size}`,
      );
      const last = rows.at(-1);
      return {
        documents: rows.map(documentOf),
        ...(last === undefined || rows.length < size ? {} : { next: String(last.row_id) }),
      };
    },

    async documentsOf(db, ids): Promise<LexicalDocument[]> {
      if (ids.length === 0) return [];
      const rows = await storedDocuments(
        db,
        sql`agent_id = ANY(${[...new Set(ids)]}::text[]) ORDER BY row_id`,
      );
      return rows.map(documentOf);
    },
  };
}

/** A stored document's row. Its text is the indexed words (`indexWords`), not the text as written. */
type StoredRow = { row_id: string; agent_id: string; restricted: boolean } & Record<string, string>;

/** The documents of the rows `condition` keeps, read by key (the primary key's order, or agent ids). */
async function storedDocuments(db: Executor, condition: ReturnType<typeof sql>): Promise<StoredRow[]> {
  const columns = sql.raw(FIELDS.map(([, column]) => column).join(', '));
  const result = await sql<StoredRow>`
    SELECT row_id, agent_id, restricted, ${columns} FROM search_lexical_documents WHERE ${condition}`.execute(
    db,
  );
  return result.rows;
}

function documentOf(row: StoredRow): LexicalDocument {
  const fields = {} as LexicalFields;
  for (const [field, column] of FIELDS) fields[field] = row[column] ?? '';
  return { id: row.agent_id, fields, restricted: row.restricted };
}

/** A row's score, before its agent id is read. */
interface RowScore {
  rowId: number;
  score: number;
}

interface RowRanking {
  /** The public rows, best first. */
  public: RowScore[];
  /** The first `limit` of the public and restricted rankings together. */
  top(limit: number): RowScore[];
}

/** The ranked rows as matches: their agent ids read by row (the only document reads of a search). */
async function withAgentIds(db: Executor, ranked: readonly RowScore[]): Promise<LexicalMatch[]> {
  if (ranked.length === 0) return [];
  const result = await sql<{ row_id: string; agent_id: string }>`
    SELECT row_id, agent_id FROM search_lexical_documents
    WHERE row_id = ANY(${ranked.map((row) => row.rowId)}::bigint[])`.execute(db);
  const ids = new Map(result.rows.map((row) => [Number(row.row_id), row.agent_id]));
  const matches: LexicalMatch[] = [];
  for (const { rowId, score } of ranked) {
    const id = ids.get(rowId);
    if (id !== undefined) matches.push({ id, score });
  }
  return matches;
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
  const frequencies = rows.map((row) =>
    clauses.map((clause) => weightedFrequency(row.postings, clause, weights)),
  );
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

  const publicRanking: RowScore[] = [];
  rows.forEach((row, index) => {
    if (!row.restricted && matched(index)) {
      publicRanking.push({
        rowId: row.rowId,
        score: score(index, statistics.rows, statistics.tokens, statistics.matches),
      });
    }
  });
  publicRanking.sort((a, b) => b.score - a.score || a.rowId - b.rowId);

  // The restricted agents the caller may see: none for most callers, and then nothing more is asked.
  const restrictedRanking: RowScore[] = [];
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
        .slice(0, limit),
  };
}

/** The condition on a document row that keeps the agents in the search's scope. */
function scopeCondition(scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>) {
  if (scope.candidates !== undefined) return sql`AND agent_id = ANY(${[...scope.candidates]}::text[])`;
  if (scope.excluded !== undefined && scope.excluded.size > 0) {
    return sql`AND NOT (agent_id = ANY(${[...scope.excluded]}::text[]))`;
  }
  return sql``;
}

/** The condition on a posting (`p`) that keeps the agents in the search's scope (their rows found by agent id). */
function postingScopeCondition(scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>) {
  if (scope.candidates !== undefined) {
    return sql`AND p.row_id IN (SELECT row_id FROM search_lexical_documents
                                WHERE agent_id = ANY(${[...scope.candidates]}::text[]))`;
  }
  if (scope.excluded !== undefined && scope.excluded.size > 0) {
    return sql`AND p.row_id NOT IN (SELECT row_id FROM search_lexical_documents
                                    WHERE agent_id = ANY(${[...scope.excluded]}::text[]))`;
  }
  return sql``;
}

/** Postings whose lexeme is one of `exact` or starts with one of `patterns` (each a range of the primary key). */
function lexemeCondition(column: string, exact: readonly string[], patterns: readonly string[]) {
  const lexeme = sql.raw(column);
  return sql`(${sql.join(
    [sql`${lexeme} = ANY(${exact}::text[])`, ...patterns.map((pattern) => sql`${lexeme} LIKE ${pattern}`)],
    sql` OR `,
  )})`;
}

/**
 * The rows in scope that match a clause, each with its postings of the query's lexemes; with `selective`, the
 * public rows only among those that hold a lexeme of a selective clause (a phrase: its rarest exact lexeme, which
 * every row holding the phrase holds), and the restricted ones whenever they match.
 */
async function matchingRows(
  db: Executor,
  clauses: readonly PreparedClause[],
  scope: Pick<LexicalSearchOptions, 'candidates' | 'excluded'>,
  selective?: { clauses: readonly PreparedClause[]; lexemeRows: ReadonlyMap<string, number> },
): Promise<RowPositions[]> {
  const exact = [...new Set(clauses.flatMap(exactLexemes))];
  const patterns = [...new Set(clauses.map(prefixPattern).filter((pattern) => pattern !== undefined))];
  const matches = lexemeCondition('p.lexeme', exact, patterns);
  // Pruned: the rows holding a selective clause's lexeme, and the restricted rows that match (their own partial
  // index), found first; then each one's postings of the query's lexemes, probed by (lexeme, row), so that the
  // postings of the common words outside those rows are not read.
  let rowsAmong = sql`search_lexical_postings AS p`;
  if (selective !== undefined) {
    const driving = selective.clauses.filter((clause) => !clause.prefix || clause.lexemes.length > 1);
    const drivingExact = [
      ...new Set(
        driving.map((clause) =>
          exactLexemes(clause).reduce((best, lexeme) =>
            (selective.lexemeRows.get(lexeme) ?? 0) < (selective.lexemeRows.get(best) ?? 0) ? lexeme : best,
          ),
        ),
      ),
    ];
    const drivingPatterns = selective.clauses
      .filter((clause) => clause.prefix && clause.lexemes.length === 1)
      .map((clause) => prefixPattern(clause)!);
    rowsAmong = sql`(SELECT row_id FROM search_lexical_postings
                     WHERE ${lexemeCondition('lexeme', drivingExact, drivingPatterns)}
                     UNION
                     SELECT row_id FROM search_lexical_postings
                     WHERE restricted AND ${lexemeCondition('lexeme', exact, patterns)}) AS r
                    JOIN search_lexical_postings AS p ON p.row_id = r.row_id`;
  }
  const result = await sql<{
    row_id: string;
    lexeme: string;
    positions: number[];
    restricted: boolean;
    length: number;
  }>`
    SELECT p.row_id, p.lexeme, p.positions, p.restricted, p.length
    FROM ${rowsAmong}
    WHERE ${matches} ${postingScopeCondition(scope)}`.execute(db);
  const rows = new Map<number, RowPositions>();
  for (const found of result.rows) {
    const rowId = Number(found.row_id);
    let row = rows.get(rowId);
    if (!row) {
      row = {
        rowId,
        restricted: found.restricted,
        length: Number(found.length),
        postings: { lexemes: [], positions: [] },
      };
      rows.set(rowId, row);
    }
    row.postings.lexemes.push(found.lexeme);
    row.postings.positions.push(found.positions);
  }
  return [...rows.values()];
}
