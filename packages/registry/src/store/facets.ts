/**
 * Facet counts for the web app's filters (GET /facets): of the agents a caller may see that match the filters, how
 * many have each tag, capability, language and status, arrived each way (registered, crawled, imported), were
 * described in each format, can be called over each transport and take each kind of authentication. With a text
 * query, the counts are over the agents its ranking holds.
 *
 * The values and the filters are read from the index in memory (facet-index.ts), brought up to date with the
 * database first; who may not see what is asked of the database at every count (`hiddenAgentIds`), so that a hidden agent is never
 * counted for a caller who may not see it, however recently it was hidden. Those agents are the restricted ones
 * the caller is not given (the agents_restricted index holds them), usually a few: the counts are then one pass
 * over the agents in memory (measured at 100,000 agents, a filter that keeps 25-80% of them: 45-180 ms a request
 * at load average 12-18, against 2-16 s for counts in SQL, which looked each agent of the scope up once per
 * facet).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { Caller } from '../records/types.js';
import type { FacetCount, FacetIndex } from './facet-index.js';
import { type AgentFilters, filterRequirements, hiddenAgentIds } from './filters.js';

export type { FacetCount } from './facet-index.js';

export interface AgentFacets {
  /** Agents in scope. */
  total: number;
  tags: FacetCount[];
  capabilities: FacetCount[];
  languages: FacetCount[];
  status: FacetCount[];
  /** How the entries' descriptions arrived: `registered`, `crawled`, `imported`. */
  sources: FacetCount[];
  /** The formats the entries' descriptions were read in. */
  formats: FacetCount[];
  /** The kinds of the agents' bindings. */
  transports: FacetCount[];
  /** The kinds of authentication the agents declare (`none` for none). */
  auth: FacetCount[];
}

/**
 * The `limit` most frequent values of each facet, most frequent first (ties by value). With `among` (the ids a
 * search ranked for a text query, already within the caller's sight and the filters), only those agents are
 * counted.
 */
export async function agentFacets(
  db: Kysely<Database>,
  index: FacetIndex,
  caller: Caller,
  filters: AgentFilters,
  limit: number,
  among?: readonly string[],
): Promise<AgentFacets> {
  await index.current();
  let counted: Awaited<ReturnType<FacetIndex['count']>>;
  if (among !== undefined) {
    counted = await index.count({ ids: among, requirements: [] }, limit);
  } else {
    // Read after the index is brought up to date: an agent hidden since is left out all the same.
    const hidden = await hiddenAgentIds(db, caller);
    counted = await index.count(
      { ...(hidden === undefined ? {} : { hidden }), requirements: filterRequirements(filters) },
      limit,
    );
  }
  return { total: counted.total, ...counted.facets };
}
