/**
 * What both lexical engines (FTS5 in sqlite.ts, PostgreSQL in postgres.ts) share: the fields in column order, how
 * much a match in each counts, and FTS5's BM25 parameters, which the PostgreSQL engine, the restricted-agent
 * scoring and the pruning proof reproduce. One table, so the two engines cannot drift apart.
 */
import type { LexicalField } from './types.js';

/** Field order and column names; FTS5's `bm25()` takes one weight per column in this order. */
export const FIELD_COLUMNS: ReadonlyArray<readonly [LexicalField, string]> = [
  ['name', 'name'],
  ['description', 'description'],
  ['tags', 'tags'],
  ['capabilities', 'capabilities'],
  ['operationNames', 'operation_names'],
  ['operationText', 'operation_text'],
  ['parameters', 'parameters'],
];

export type FieldWeights = Record<LexicalField, number>;

/**
 * How much a match in each field counts. A name or tag is a deliberate label, a description is prose, parameter
 * names are strong hints but short. Tuned on the development benchmarks (docs/search.md).
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<FieldWeights> = {
  name: 6,
  description: 1.5,
  tags: 2,
  capabilities: 2,
  operationNames: 2,
  operationText: 1,
  parameters: 1,
};

/** FTS5's BM25 parameters (`fts5_aux.c`). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
