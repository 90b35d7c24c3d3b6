/**
 * BM25 for restricted agents, with statistics over what the caller may see.
 *
 * FTS5's `bm25()` takes its statistics (how many rows there are, how many match each phrase, the average row
 * length) from the whole table it ranks. Were restricted agents in the same table as public ones, an anonymous
 * search's scores would move with the words of agents it may not see, and reveal them. So restricted agents have
 * a table of their own (`search_lexical_restricted`): the public table's `bm25()` knows only public agents, and
 * the restricted agents a caller may see are scored here, by FTS5's own formula (`fts5_aux.c`), with statistics
 * over the public agents and those restricted agents: nothing the caller may not see counts.
 *
 * For each phrase p of the query, FTS5 adds `idf(p) × F(k1 + 1) / (F + k1(1 − b + b·D/avgdl))`, where F is the
 * phrase's occurrences in the row weighted by their columns' weights, D the row's length in tokens (every
 * column), avgdl the average length, and `idf(p) = ln((N − n(p) + 0.5) / (n(p) + 0.5))` (at least 1e-6) for n(p)
 * of N rows matching p. F is read back from FTS5's own score of the row for the phrase alone (`weightedFrequency`:
 * bm25() reads positions from the index, where counting them by `highlight()` tokenized every column again, 5×
 * slower); lengths come from FTS5's own records of them (`%_docsize`, and the totals in `%_data`).
 */
import { sql } from 'kysely';
import { BM25_B as B, BM25_K1 as K1 } from './fields.js';
import { fts5Idf } from './pruning.js';
import type { Executor, LexicalMatch } from './types.js';

/** What the public table contributes to the statistics. */
export interface PublicStatistics {
  rows: number;
  /** Tokens in every column of every public row. */
  tokens: number;
  /** Public rows matching each phrase, in the order of the phrases scored. */
  matches: readonly number[];
}

/** A restricted row the caller may see, with what scoring it needs. */
export interface VisibleRow {
  rowId: number;
  id: string;
  /** Tokens in every column of the row. */
  length: number;
}

/**
 * One phrase's weighted frequency F (its occurrences in the row, each counted with its column's weight) in the
 * visible restricted rows that contain it, by row id.
 */
export type PhraseFrequencies = ReadonlyMap<number, number>;

/**
 * The BM25 score of each visible restricted row that matches a phrase, FTS5's formula with statistics over the
 * public rows and the visible restricted rows (`visible`, all of them, matching or not).
 */
export function scoreVisibleRows(
  visible: readonly VisibleRow[],
  frequencies: readonly PhraseFrequencies[],
  publicStatistics: PublicStatistics,
): LexicalMatch[] {
  const rows = publicStatistics.rows + visible.length;
  if (rows === 0) return [];
  let tokens = publicStatistics.tokens;
  for (const row of visible) tokens += row.length;
  const averageLength = tokens / rows;
  const idf = frequencies.map((found, p) => fts5Idf(rows, (publicStatistics.matches[p] ?? 0) + found.size));
  const out: LexicalMatch[] = [];
  for (const row of visible) {
    let score = 0;
    let matched = false;
    frequencies.forEach((found, p) => {
      const weighted = found.get(row.rowId);
      if (weighted === undefined || !(weighted > 0)) return;
      matched = true;
      score += (idf[p]! * weighted * (K1 + 1)) / (weighted + K1 * lengthNorm(row.length, averageLength));
    });
    if (matched) out.push({ id: row.id, score });
  }
  return out;
}

/**
 * F back from FTS5's own score of a row for one phrase (`-bm25()` of a one-phrase query on the table the row is
 * in, with that table's statistics): the score is `idf × F(k1 + 1) / (F + k1·norm)`, so F is
 * `score × k1·norm / (idf(k1 + 1) − score)`. F depends on the row alone; the table's statistics only serve to
 * undo FTS5's use of them, and are not kept.
 */
export function weightedFrequency(
  score: number,
  idf: number,
  length: number,
  averageLength: number,
  step: number,
): number {
  const norm = K1 * lengthNorm(length, averageLength);
  const room = idf * (K1 + 1) - score;
  const frequency = room > 0 ? (score * norm) / room : Number.POSITIVE_INFINITY;
  // Undone in floating point, F carries rounding errors of the statistics it was undone with, and those include
  // agents the caller may not see: rounded to what F can be (a sum of column weights), it holds none of them.
  return Math.round(frequency / step) * step;
}

/**
 * The values F can take are sums of column weights: multiples of the largest power of two (down to 2^-20) that
 * divides every weight (0.5 for the default weights).
 */
export function frequencyStep(weights: readonly number[]): number {
  for (let step = 1; step >= 2 ** -20; step /= 2) {
    if (weights.every((weight) => Number.isInteger(weight / step))) return step;
  }
  return 2 ** -20;
}

function lengthNorm(length: number, averageLength: number): number {
  return averageLength > 0 ? 1 - B + (B * length) / averageLength : 1;
}

/**
 * A list of SQLite varints (FTS5's record format: big-endian groups of 7 bits, the high bit set on all but the
 * last, a ninth byte of 8 bits).
 */
export function readVarints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    let value = 0;
    let i = 0;
    for (;;) {
      const byte = bytes[at++]!;
      if (i === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      i++;
      if ((byte & 0x80) === 0 || at >= bytes.length) break;
    }
    out.push(value);
  }
  return out;
}

/** Rows and tokens of an FTS5 table, from its totals record (`%_data`, id 1: the row count, then each column's). */
export async function tableTotals(db: Executor, table: string): Promise<{ rows: number; tokens: number }> {
  const result = await sql<{
    block: Uint8Array;
  }>`SELECT block FROM ${sql.table(`${table}_data`)} WHERE id = 1`.execute(db);
  const block = result.rows[0]?.block;
  if (block === undefined) return { rows: 0, tokens: 0 };
  const [rows = 0, ...columns] = readVarints(block);
  return { rows, tokens: columns.reduce((sum, size) => sum + size, 0) };
}

/** Each row's length in tokens (every column), from FTS5's `%_docsize`. */
export function rowLength(sizes: Uint8Array): number {
  return readVarints(sizes).reduce((sum, size) => sum + size, 0);
}
