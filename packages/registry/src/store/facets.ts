/**
 * Facet counts for the web app's filters (GET /facets): of the agents a caller may see that match the filters, how
 * many have each tag, capability, language and status, arrived each way (registered, crawled, imported) and were
 * described in each format. Each count is one GROUP BY over an indexed value table; the agents in scope are a
 * subquery, so nothing is read into memory but the counts.
 */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Caller } from '../records/types.js';
import { type AgentFilters, agentVisibility, filterConditions, hasFilters } from './filters.js';
import type { AgentValueTableName, RegistryTables } from './schema.js';

export interface FacetCount {
  value: string;
  count: number;
}

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
}

type AgentIds = SelectQueryBuilder<RegistryTables, 'agents', { id: string }>;

/** The ids of the agents in scope, or undefined when every agent is (the admin, no filters). */
function scope(db: Kysely<RegistryTables>, caller: Caller, filters: AgentFilters): AgentIds | undefined {
  const visible = agentVisibility(caller);
  if (visible === undefined && !hasFilters(filters)) return undefined;
  let query = db.selectFrom('agents').select('agents.id');
  if (visible !== undefined) query = query.where(visible);
  for (const condition of filterConditions(filters)) query = query.where(condition);
  return query;
}

/** The `limit` most frequent values of each facet, most frequent first (ties by value). */
export async function agentFacets(
  db: Kysely<RegistryTables>,
  caller: Caller,
  filters: AgentFilters,
  limit: number,
): Promise<AgentFacets> {
  const ids = scope(db, caller, filters);
  const values = async (table: AgentValueTableName): Promise<FacetCount[]> => {
    let query = db
      .selectFrom(table)
      .select((eb) => [`${table}.value as value`, eb.fn.countAll<number>().as('count')])
      .groupBy(`${table}.value`);
    if (ids !== undefined) query = query.where(`${table}.agent_id`, 'in', ids);
    return counts(await query.orderBy('count', 'desc').orderBy('value').limit(limit).execute());
  };
  const sourceColumn = async (column: 'arrival' | 'format'): Promise<FacetCount[]> => {
    let query = db
      .selectFrom('agent_sources')
      .select((eb) => [
        `agent_sources.${column} as value`,
        eb.fn.count<number>('agent_sources.agent_id').distinct().as('count'),
      ])
      .groupBy(`agent_sources.${column}`);
    if (ids !== undefined) query = query.where('agent_sources.agent_id', 'in', ids);
    return counts(await query.orderBy('count', 'desc').orderBy('value').limit(limit).execute());
  };
  let statusQuery = db
    .selectFrom('agents')
    .select((eb) => ['agents.status as value', eb.fn.countAll<number>().as('count')])
    .groupBy('agents.status');
  if (ids !== undefined) statusQuery = statusQuery.where('agents.id', 'in', ids);
  const status = counts(await statusQuery.orderBy('count', 'desc').orderBy('value').execute());
  return {
    total: status.reduce((sum, item) => sum + item.count, 0),
    tags: await values('agent_tags'),
    capabilities: await values('agent_capabilities'),
    languages: await values('agent_languages'),
    status: status.slice(0, limit),
    sources: await sourceColumn('arrival'),
    formats: await sourceColumn('format'),
  };
}

function counts(rows: ReadonlyArray<{ value: string; count: number | string | bigint }>): FacetCount[] {
  return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
}
