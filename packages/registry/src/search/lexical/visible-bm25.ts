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
 * of N rows matching p. Occurrences are counted with `highlight()`, one phrase at a time; lengths are read from
 * FTS5's own records of them (`%_docsize`, and the totals in `%_data`).
 */
import { sql } from 'kysely';
import { fts5Idf } from './pruning.js';
import type { Executor, LexicalMatch } from './types.js';

/** FTS5's BM25 parameters (`fts5_aux.c`). */
const K1 = 1.2;
const B = 0.75;

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
 * Occurrences of one phrase in the visible restricted rows that contain it: by row id, per column (in the
 * table's column order).
 */
export type PhraseOccurrences = ReadonlyMap<number, readonly number[]>;

/**
 * The BM25 score of each visible restricted row that matches a phrase, FTS5's formula with statistics over the
 * public rows and the visible restricted rows (`visible`, all of them, matching or not).
 */
export function scoreVisibleRows(
  visible: readonly VisibleRow[],
  occurrences: readonly PhraseOccurrences[],
  publicStatistics: PublicStatistics,
  columnWeights: readonly number[],
): LexicalMatch[] {
  const rows = publicStatistics.rows + visible.length;
  if (rows === 0) return [];
  let tokens = publicStatistics.tokens;
  for (const row of visible) tokens += row.length;
  const averageLength = tokens / rows;
  const idf = occurrences.map((found, p) => fts5Idf(rows, (publicStatistics.matches[p] ?? 0) + found.size));
  const out: LexicalMatch[] = [];
  for (const row of visible) {
    let score = 0;
    let matched = false;
    occurrences.forEach((found, p) => {
      const counts = found.get(row.rowId);
      if (counts === undefined) return;
      let weighted = 0;
      counts.forEach((count, column) => {
        weighted += count * (columnWeights[column] ?? 1);
      });
      if (weighted <= 0) return;
      matched = true;
      const norm = averageLength > 0 ? 1 - B + (B * row.length) / averageLength : 1;
      score += (idf[p]! * weighted * (K1 + 1)) / (weighted + K1 * norm);
    });
    if (matched) out.push({ id: row.id, score });
  }
  return out;
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

/** Occurrences per column of a `highlight()` output marked with `open`/`close`: one per marked span. */
export function countMarks(text: string | null, open: string): number {
  if (text === null) return 0;
  let count = 0;
  for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) count++;
  return count;
}
