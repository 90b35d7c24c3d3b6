/**
 * The search index's tables, as Kysely sees them; part of the registry's `Database` (db/database.ts). The lexical
 * index's own tables are described by its module (SQLite: an FTS5 table and its key map); the vectors table is
 * plain SQL that any database can hold.
 */
import type { LexicalTables } from './lexical/sqlite.js';

export interface SearchVectorsTable {
  agent_id: string;
  /** What was (or is to be) embedded, so vectors can be rebuilt without the store, e.g. after a model change. */
  text: string;
  /** The embedding provider's id; null while the agent waits to be embedded. */
  provider: string | null;
  dims: number;
  /** `dims` little-endian float32 values, unit length; null while the agent waits to be embedded. */
  vector: Uint8Array | null;
}

/** Agents ranked lower whatever the query (see Demotion); an agent without a row has no penalty. */
export interface SearchDemotionsTable {
  agent_id: string;
  penalty: number;
  /** JSON array of strings: the reasons, as told in `why`. */
  reasons: string;
}

/** The agents whose vectors or demotions changed, by the write that last changed them (see change-log.ts). */
export interface SearchChangesTable {
  agent_id: string;
  seq: number;
}

export interface SearchTables extends LexicalTables {
  search_vectors: SearchVectorsTable;
  search_demotions: SearchDemotionsTable;
  search_changes: SearchChangesTable;
}
