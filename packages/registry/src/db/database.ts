/**
 * The registry's database as Kysely sees it: every table of every part that keeps its rows in it — the store's
 * (store/schema.ts), the search index's (search/tables.ts), the crawler's (crawl/tables.ts) and the federation's
 * (federation/tables.ts). One type, so that every part is handed the same `Kysely<Database>` (Kysely's table map
 * is invariant: a handle typed with some of the tables is not one typed with all of them).
 */
import type { CrawlTables } from '../crawl/tables.js';
import type { FederationTables } from '../federation/tables.js';
import type { SearchTables } from '../search/tables.js';
import type { RegistryTables } from '../store/schema.js';

export interface Database extends RegistryTables, SearchTables, CrawlTables, FederationTables {}
