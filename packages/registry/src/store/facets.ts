/**
 * Facet counts for the web app's filters (GET /facets): of the agents a caller may see that match the filters, how
 * many have each tag, capability, language and status, arrived each way (registered, crawled, imported), were
 * described in each format, can be called over each transport and take each kind of authentication. Each count is one GROUP BY over an indexed table, so nothing but the counts is read
 * into memory. With a text query, the counts are over the agents its ranking holds.
 *
 * Without filters, the agents a caller may not see are usually a few restricted ones: the counts are then taken
 * over every agent (index-only scans) and the hidden agents' counts subtracted, where counting "the agents I may
 * see" directly visits every agent (measured at 100,000 agents: 0.5-0.7 s per facet against 10-40 ms).
 */
import type { Expression, ExpressionBuilder, Kysely, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Database } from '../db/database.js';
import type { Caller } from '../records/types.js';
import { type AgentFilters, agentVisibility, filterConditions, hasFilters } from './filters.js';
import type { AgentValueTableName } from './schema.js';

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
  /** The kinds of the agents' bindings. */
  transports: FacetCount[];
  /** The kinds of authentication the agents declare (`none` for none). */
  auth: FacetCount[];
}

type AgentIds = SelectQueryBuilder<Database, 'agents', { id: string }>;

/** Hidden agents subtracted from counts over every agent; with more, the visible ones are counted directly. */
const FEW_HIDDEN = 1000;

/**
 * What to count: `within` the agents in scope (a subquery of ids), or every agent `except` a few hidden ones, or
 * every agent (neither).
 */
interface Scope {
  within?: AgentIds;
  except?: AgentIds;
  /**
   * The conditions `within` selects by, for counts over `agents` itself (status): applied to it directly, they
   * read the status index, where `id IN (within)` looked every agent up by id.
   */
  conditions?: Array<(eb: ExpressionBuilder<Database, 'agents'>) => Expression<SqlBool>>;
}

async function scopeOf(
  db: Kysely<Database>,
  caller: Caller,
  filters: AgentFilters,
  among: readonly string[] | undefined,
): Promise<Scope> {
  const visible = agentVisibility(caller);
  if (among !== undefined) {
    // The ids of a ranking: already within the caller's sight and the filters, and at most a few hundred.
    return {
      within: db
        .selectFrom('agents')
        .select('agents.id')
        .where('agents.id', 'in', [...among, '']),
    };
  }
  if (!hasFilters(filters)) {
    if (visible === undefined) return {};
    const hidden = db
      .selectFrom('agents')
      .select('agents.id')
      .where('agents.restricted', '=', 1)
      .where((eb) => eb.not(visible(eb)));
    const few = await hidden.limit(FEW_HIDDEN + 1).execute();
    if (few.length === 0) return {};
    if (few.length <= FEW_HIDDEN) return { except: hidden };
  }
  const conditions = [...(visible === undefined ? [] : [visible]), ...filterConditions(filters)];
  let within = db.selectFrom('agents').select('agents.id');
  for (const condition of conditions) within = within.where(condition);
  // A scope that holds all agents but a few (`status=active`, `transport=http` on most registries) is counted as
  // every agent less those few: counting within it looks each of its agents up (measured at 100,000 agents:
  // 9-15 s against 0.4 s).
  const [inScope, all] = await Promise.all([sizeOf(db, conditions), sizeOf(db, [])]);
  if (all - inScope <= FEW_HIDDEN) {
    const outside = await db
      .selectFrom('agents')
      .select('agents.id')
      .where((eb) => eb.not(eb.and(conditions.map((condition) => condition(eb)))))
      .execute();
    if (outside.length === 0) return {};
    return {
      except: db
        .selectFrom('agents')
        .select('agents.id')
        .where(
          'agents.id',
          'in',
          outside.map((row) => row.id),
        ),
    };
  }
  return { within, conditions };
}

async function sizeOf(
  db: Kysely<Database>,
  conditions: ReadonlyArray<(eb: ExpressionBuilder<Database, 'agents'>) => Expression<SqlBool>>,
): Promise<number> {
  let query = db.selectFrom('agents').select((eb) => eb.fn.countAll<number>().as('count'));
  for (const condition of conditions) query = query.where(condition);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.count);
}

type Counter = (ids: AgentIds | undefined) => Promise<FacetCount[]>;

/** Counts over the scope: directly, or over every agent less the hidden ones' counts. */
async function countIn(scope: Scope, counter: Counter): Promise<FacetCount[]> {
  if (scope.except === undefined) return counter(scope.within);
  const [all, hidden] = await Promise.all([counter(undefined), counter(scope.except)]);
  const less = new Map(hidden.map((item) => [item.value, item.count]));
  return all
    .map((item) => ({ value: item.value, count: item.count - (less.get(item.value) ?? 0) }))
    .filter((item) => item.count > 0);
}

function top(counts: FacetCount[], limit: number): FacetCount[] {
  return [...counts]
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, limit);
}

/**
 * The `limit` most frequent values of each facet, most frequent first (ties by value). With `among` (the ids a
 * search ranked for a text query), only those agents are counted.
 */
export async function agentFacets(
  db: Kysely<Database>,
  caller: Caller,
  filters: AgentFilters,
  limit: number,
  among?: readonly string[],
): Promise<AgentFacets> {
  const scope = await scopeOf(db, caller, filters, among);
  // Subtracting needs every value's count over all agents; counting directly, the database keeps the top ones.
  const keep = scope.except === undefined ? limit : undefined;
  const values =
    (table: AgentValueTableName): Counter =>
    async (ids) => {
      let query = db
        .selectFrom(table)
        .select((eb) => [`${table}.value as value`, eb.fn.countAll<number>().as('count')])
        .groupBy(`${table}.value`);
      if (ids !== undefined) query = query.where(`${table}.agent_id`, 'in', ids);
      let ordered = query.orderBy('count', 'desc').orderBy('value');
      if (keep !== undefined) ordered = ordered.limit(keep);
      return counts(await ordered.execute());
    };
  const sourceColumn =
    (column: 'arrival' | 'format'): Counter =>
    async (ids) => {
      let query = db
        .selectFrom('agent_sources')
        .select((eb) => [
          `agent_sources.${column} as value`,
          eb.fn.count<number>('agent_sources.agent_id').distinct().as('count'),
        ])
        .groupBy(`agent_sources.${column}`);
      if (ids !== undefined) query = query.where('agent_sources.agent_id', 'in', ids);
      return counts(await query.execute());
    };
  const status: Counter = async (ids) => {
    let query = db
      .selectFrom('agents')
      .select((eb) => ['agents.status as value', eb.fn.countAll<number>().as('count')])
      .groupBy('agents.status');
    if (ids !== undefined && ids === scope.within && scope.conditions !== undefined)
      for (const condition of scope.conditions) query = query.where(condition);
    else if (ids !== undefined) query = query.where('agents.id', 'in', ids);
    return counts(await query.execute());
  };
  const statuses = await countIn(scope, status);
  return {
    total: statuses.reduce((sum, item) => sum + item.count, 0),
    tags: top(await countIn(scope, values('agent_tags')), limit),
    capabilities: top(await countIn(scope, values('agent_capabilities')), limit),
    languages: top(await countIn(scope, values('agent_languages')), limit),
    status: top(statuses, limit),
    sources: top(await countIn(scope, sourceColumn('arrival')), limit),
    formats: top(await countIn(scope, sourceColumn('format')), limit),
    transports: top(await countIn(scope, values('agent_transports')), limit),
    auth: top(await countIn(scope, values('agent_auth_kinds')), limit),
  };
}

function counts(rows: ReadonlyArray<{ value: string; count: number | string | bigint }>): FacetCount[] {
  return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
}
