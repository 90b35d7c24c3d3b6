/**
 * What the search index needs from a lexical (BM25) engine. SQLite's FTS5 implements it in `sqlite.ts`; a
 * PostgreSQL implementation (tsvector, ts_rank) can be a second one without touching the index or the fusion.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { LexicalQuery } from './query.js';

/** One agent's text per field, already prepared for indexing (identifiers split, unspaced scripts spaced). */
export interface LexicalFields {
  name: string;
  description: string;
  tags: string;
  capabilities: string;
  operationNames: string;
  operationText: string;
  parameters: string;
}

export type LexicalField = keyof LexicalFields;

export interface LexicalMatch {
  id: string;
  /** BM25: higher is better, positive, comparable within one query. */
  score: number;
}

/** For an explanation: the words of the query that matched, per field (stemmed forms as the text has them). */
export type FieldMatches = Partial<Record<LexicalField, string[]>>;

/** One agent's entry as the index stores it. */
export interface LexicalDocument {
  id: string;
  fields: LexicalFields;
  restricted: boolean;
}

/** A page of stored documents, and where the next one starts (absent: this is the last). */
export interface LexicalDocumentPage {
  documents: LexicalDocument[];
  next?: string;
}

export interface LexicalSearchOptions {
  limit: number;
  candidates?: ReadonlySet<string>;
  excluded?: ReadonlySet<string>;
}

/** The database or a transaction on it. */
export type Executor = Kysely<Database>;

export interface LexicalIndex {
  /**
   * Index (or re-index) agents. A restricted agent (hidden from some callers) is kept apart, so that it counts in
   * no statistics of a search by a caller who may not see it.
   */
  write(
    db: Executor,
    entries: ReadonlyArray<{ id: string; fields: LexicalFields; restricted?: boolean }>,
  ): Promise<void>;
  remove(db: Executor, ids: readonly string[]): Promise<void>;
  search(db: Executor, query: LexicalQuery, options: LexicalSearchOptions): Promise<LexicalMatch[]>;
  /** Which query words each field of these agents matched. */
  explain(db: Executor, query: LexicalQuery, ids: readonly string[]): Promise<Map<string, FieldMatches>>;
  /** How many agents are indexed. */
  count(db: Executor): Promise<number>;
  /**
   * The stored documents a page at a time (`limit` agents), in the order of their rows: a keyed walk, so reading
   * them all takes time linear in their number. `after` is the previous page's `next` (undefined: the first page).
   * An agent written meanwhile may be read in its old form, twice, or not at all: a reader that must hold every
   * agent follows the change log (change-log.ts) and reads those again with `documentsOf`.
   */
  documents(db: Executor, after: string | undefined, limit: number): Promise<LexicalDocumentPage>;
  /** The stored documents of those of these agents that are indexed, in the order of their rows. */
  documentsOf(db: Executor, ids: readonly string[]): Promise<LexicalDocument[]>;
}
