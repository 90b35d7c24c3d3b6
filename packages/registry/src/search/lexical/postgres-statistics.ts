/**
 * The public agents' statistics a PostgreSQL lexical search ranks with: how many public rows and words there are
 * (the totals table), and how many public rows match each clause (a word: its count in `search_lexical_terms`; a
 * prefix: the distinct rows of its lexemes' postings; a phrase: its lexemes' positions in the rows holding the
 * rarest of them, counted here inside one field, as FTS5 counts it).
 *
 * They are kept in the replica between searches while the database's change counter (db/postgres.ts: own writes
 * at once, every other replica's commits through LISTEN/NOTIFY) stays where it was when they were read: a plain
 * query's common words ("data", "small teams") are then counted once per change, not once per search. Only public
 * statistics are kept, so nothing restricted can stay behind in them; the counter is read before the database is,
 * so a write that lands during the read leaves nothing kept under a count it moved.
 */
import { sql } from 'kysely';
import {
  addPosting,
  clauseKey,
  emptyFieldPositions,
  exactLexemes,
  type FieldPositions,
  occursIn,
  type PreparedClause,
  prefixPattern,
} from './postgres-clauses.js';
import type { Executor } from './types.js';

export interface PublicStatistics {
  rows: number;
  tokens: number;
  /** Public rows matching each clause, in the clauses' order. */
  matches: readonly number[];
  /** Public rows holding each exact lexeme of the multi-lexeme clauses (to pick which of a phrase's to read by). */
  lexemeRows: ReadonlyMap<string, number>;
}

/** Clause and lexeme counts kept at most; past it the cache starts again. */
const MAX_KEPT = 20_000;

interface Kept {
  at: number;
  totals?: { rows: number; tokens: number };
  /** By clause key, and by `=lexeme` for a lexeme's rows. */
  counts: Map<string, number>;
}

export type StatisticsReader = (
  db: Executor,
  clauses: readonly PreparedClause[],
) => Promise<PublicStatistics>;

/** Reads the public statistics, kept until `changeCount` moves (read every time without one). */
export function publicStatisticsReader(changeCount?: () => number): StatisticsReader {
  let kept: Kept | undefined;

  return async (db, clauses) => {
    const at = changeCount?.();
    const current: Kept =
      at !== undefined && kept !== undefined && kept.at === at
        ? kept
        : { at: at ?? Number.NaN, counts: new Map() };
    const lexemeKeys = [...new Set(clauses.filter((c) => c.lexemes.length > 1).flatMap(exactLexemes))].map(
      (lexeme) => `=${lexeme}`,
    );
    const missing = clauses.filter((clause) => !current.counts.has(clauseKey(clause)));
    const missingLexemes = lexemeKeys.filter((key) => !current.counts.has(key)).map((key) => key.slice(1));
    const [totals, counts] = await Promise.all([
      current.totals ?? readTotals(db),
      countMatches(db, missing, missingLexemes),
    ]);
    const found = (key: string): number => counts.get(key) ?? current.counts.get(key) ?? 0;
    // Kept only when nothing moved the counter while they were read.
    if (at !== undefined && changeCount?.() === at) {
      if (kept === undefined || kept.at !== at || kept.counts.size > MAX_KEPT)
        kept = { at, counts: new Map() };
      kept.totals = totals;
      for (const [key, count] of counts) kept.counts.set(key, count);
    }
    return {
      ...totals,
      matches: clauses.map((clause) => found(clauseKey(clause))),
      lexemeRows: new Map(lexemeKeys.map((key) => [key.slice(1), found(key)])),
    };
  };
}

async function readTotals(db: Executor): Promise<{ rows: number; tokens: number }> {
  const result = await sql<{ rows: string; tokens: string }>`
    SELECT rows, tokens FROM search_lexical_totals WHERE NOT restricted`.execute(db);
  return { rows: Number(result.rows[0]?.rows ?? 0), tokens: Number(result.rows[0]?.tokens ?? 0) };
}

/** Public rows matching each clause (by clause key) and holding each lexeme (by `=lexeme`). */
async function countMatches(
  db: Executor,
  clauses: readonly PreparedClause[],
  lexemes: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const words = clauses.filter((clause) => clause.lexemes.length === 1 && !clause.prefix);
  const prefixes = clauses.filter((clause) => clause.lexemes.length === 1 && clause.prefix);
  const phrases = clauses.filter((clause) => clause.lexemes.length > 1);
  // Every phrase's lexemes are counted too: the rarest of them says which rows to read the phrase in.
  const phraseLexemes = phrases.flatMap(exactLexemes);
  const termLexemes = [
    ...new Set([...words.map((clause) => clause.lexemes[0]!), ...lexemes, ...phraseLexemes]),
  ];
  const [terms, prefixCounts] = await Promise.all([
    termLexemes.length === 0
      ? Promise.resolve(new Map<string, number>())
      : sql<{ lexeme: string; public_rows: number }>`
          SELECT lexeme, public_rows FROM search_lexical_terms WHERE lexeme = ANY(${termLexemes}::text[])`
          .execute(db)
          .then((result) => new Map(result.rows.map((row) => [row.lexeme, Number(row.public_rows)]))),
    Promise.all(prefixes.map((clause) => countPrefix(db, prefixPattern(clause)!))),
  ]);
  for (const clause of words) counts.set(clauseKey(clause), terms.get(clause.lexemes[0]!) ?? 0);
  for (const lexeme of lexemes) counts.set(`=${lexeme}`, terms.get(lexeme) ?? 0);
  prefixes.forEach((clause, index) => {
    counts.set(clauseKey(clause), prefixCounts[index]!);
  });
  const phraseCounts = await Promise.all(phrases.map((clause) => countPhrase(db, clause, terms)));
  phrases.forEach((clause, index) => {
    counts.set(clauseKey(clause), phraseCounts[index]!);
  });
  return counts;
}

async function countPrefix(db: Executor, pattern: string): Promise<number> {
  const result = await sql<{ n: string }>`
    SELECT count(DISTINCT row_id) AS n FROM search_lexical_postings
    WHERE lexeme LIKE ${pattern} AND NOT restricted`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Public rows holding the phrase inside one field: read in the rows that hold its rarest exact lexeme. */
async function countPhrase(
  db: Executor,
  clause: PreparedClause,
  terms: ReadonlyMap<string, number>,
): Promise<number> {
  const exact = exactLexemes(clause);
  const driving = exact.reduce((best, lexeme) =>
    (terms.get(lexeme) ?? 0) < (terms.get(best) ?? 0) ? lexeme : best,
  );
  if ((terms.get(driving) ?? 0) === 0) return 0;
  const pattern = prefixPattern(clause);
  const result = await sql<{ row_id: string; lexeme: string; positions: number[] }>`
    SELECT p.row_id, p.lexeme, p.positions FROM search_lexical_postings AS p
    WHERE NOT p.restricted
      AND (p.lexeme = ANY(${exact}::text[]) ${pattern === undefined ? sql`` : sql`OR p.lexeme LIKE ${pattern}`})
      AND p.row_id IN (SELECT row_id FROM search_lexical_postings WHERE lexeme = ${driving})`.execute(db);
  const rows = new Map<string, FieldPositions>();
  for (const posting of result.rows) {
    let fields = rows.get(posting.row_id);
    if (fields === undefined) {
      fields = emptyFieldPositions();
      rows.set(posting.row_id, fields);
    }
    addPosting(fields, posting.lexeme, posting.positions);
  }
  let count = 0;
  for (const fields of rows.values()) if (occursIn(fields, clause)) count++;
  return count;
}
