/** Row types of the federation's table (migrations.ts), for Kysely; part of the registry's `Database` (db/). */

/** Where the last import of another registry got to (sync.ts). */
export interface FederationSourcesTable {
  base_url: string;
  kind: string;
  /** The latest update time the last completed import saw: the next one's `updated_since`. */
  updated_since: string | null;
  last_imported_at: string;
}

export interface FederationTables {
  federation_sources: FederationSourcesTable;
}
