/**
 * The WHERE clauses every read shares: what a caller may see (entitlements) and the set-inclusion filters of
 * AIDIP §4.3.1. Visibility is applied in SQL, so a hidden agent never leaves the database for that caller.
 */
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../db/database.js';
import type { Caller, RecordStatus } from '../records/types.js';
import type { AgentValueTableName } from './schema.js';

/** Filters combine with AND; within `capabilities`, `tags` and `languages` every value must be present. */
export interface AgentFilters {
  capabilities?: readonly string[];
  tags?: readonly string[];
  /** BCP 47 tags; `en` also matches agents that list `en-GB`. */
  languages?: readonly string[];
  /** Any of these statuses. */
  status?: readonly RecordStatus[];
  /** Any of these ways a description arrived (`registered`, `crawled`, `imported`): an entry with such a source. */
  sources?: readonly string[];
  /** Any of these formats: an entry with a description read in one of them. */
  formats?: readonly string[];
  /** Any of these binding kinds (`a2a`, `mcp`, `http`, …): an agent that can be called so. */
  transports?: readonly string[];
  /** Any of these authentication kinds (`apiKey`, `bearer`, `oauth2`, `none`, …). */
  authKinds?: readonly string[];
}

/** The stored, comparable form of a filter value. */
export function normalizeFilterValue(value: string): string {
  return value.trim().toLowerCase();
}

/** The `agent_languages` values of one language tag: itself and its primary subtag. */
export function languageKeys(tag: string): string[] {
  const full = normalizeFilterValue(tag);
  const primary = full.split('-')[0] ?? full;
  return primary === full || primary === '' ? [full] : [full, primary];
}

export function hasFilters(filters: AgentFilters): boolean {
  return (
    (filters.capabilities?.length ?? 0) > 0 ||
    (filters.tags?.length ?? 0) > 0 ||
    (filters.languages?.length ?? 0) > 0 ||
    (filters.status?.length ?? 0) > 0 ||
    (filters.sources?.length ?? 0) > 0 ||
    (filters.formats?.length ?? 0) > 0 ||
    (filters.transports?.length ?? 0) > 0 ||
    (filters.authKinds?.length ?? 0) > 0
  );
}

type AgentsScope = ExpressionBuilder<Database, 'agents'>;
type TombstonesScope = ExpressionBuilder<Database, 'tombstones'>;

/** Agents `caller` may see; undefined when it sees every one (the admin). */
export function agentVisibility(caller: Caller): ((eb: AgentsScope) => Expression<SqlBool>) | undefined {
  if (caller.kind === 'admin') return undefined;
  return (eb) => {
    const alternatives: Expression<SqlBool>[] = [eb('agents.restricted', '=', 0)];
    if (caller.publisher !== undefined) alternatives.push(eb('agents.owner', '=', caller.publisher));
    if (caller.groups.length > 0) {
      alternatives.push(
        eb.exists(
          eb
            .selectFrom('agent_access')
            .select('agent_access.agent_id')
            .whereRef('agent_access.agent_id', '=', 'agents.id')
            .where('agent_access.group_name', 'in', [...caller.groups]),
        ),
      );
    }
    return eb.or(alternatives);
  };
}

/** Tombstones `caller` may see: those of agents it could see before they were deleted. */
export function tombstoneVisibility(
  caller: Caller,
): ((eb: TombstonesScope) => Expression<SqlBool>) | undefined {
  if (caller.kind === 'admin') return undefined;
  return (eb) => {
    const alternatives: Expression<SqlBool>[] = [eb('tombstones.restricted', '=', 0)];
    if (caller.publisher !== undefined) alternatives.push(eb('tombstones.owner', '=', caller.publisher));
    if (caller.groups.length > 0) {
      alternatives.push(
        eb.exists(
          eb
            .selectFrom('agent_access')
            .select('agent_access.agent_id')
            .whereRef('agent_access.agent_id', '=', 'tombstones.agent_id')
            .where('agent_access.group_name', 'in', [...caller.groups]),
        ),
      );
    }
    return eb.or(alternatives);
  };
}

/**
 * The filter conditions, one per required value; empty when nothing is filtered. Each is `id IN (agents with the
 * value)`, not a correlated EXISTS: the planner then reads the (value, agent_id) index once per value and visits
 * only matching agents, in id order, where EXISTS made it walk every agent in id order and probe each (measured
 * at 10,000 agents: 0.4 ms against 50 ms when the matches sort last).
 */
export function filterConditions(filters: AgentFilters): Array<(eb: AgentsScope) => Expression<SqlBool>> {
  const conditions: Array<(eb: AgentsScope) => Expression<SqlBool>> = [];
  const requireValue = (table: AgentValueTableName, value: string): void => {
    conditions.push((eb) =>
      eb(
        'agents.id',
        'in',
        eb.selectFrom(table).select(`${table}.agent_id`).where(`${table}.value`, '=', value),
      ),
    );
  };
  for (const value of unique(filters.capabilities)) requireValue('agent_capabilities', value);
  for (const value of unique(filters.tags)) requireValue('agent_tags', value);
  for (const value of unique(filters.languages)) requireValue('agent_languages', value);
  const statuses = [...new Set(filters.status ?? [])];
  if (statuses.length > 0) conditions.push((eb) => eb('agents.status', 'in', statuses));
  const anySource = (column: 'arrival' | 'format', values: string[]): void => {
    if (values.length === 0) return;
    conditions.push((eb) =>
      eb(
        'agents.id',
        'in',
        eb
          .selectFrom('agent_sources')
          .select('agent_sources.agent_id')
          .where(`agent_sources.${column}`, 'in', values),
      ),
    );
  };
  const anyValue = (table: AgentValueTableName, values: string[]): void => {
    if (values.length === 0) return;
    conditions.push((eb) =>
      eb(
        'agents.id',
        'in',
        eb.selectFrom(table).select(`${table}.agent_id`).where(`${table}.value`, 'in', values),
      ),
    );
  };
  anyValue('agent_transports', unique(filters.transports));
  anyValue('agent_auth_kinds', unique(filters.authKinds));
  anySource('arrival', unique(filters.sources));
  anySource('format', unique(filters.formats));
  return conditions;
}

function unique(values: readonly string[] | undefined): string[] {
  return [...new Set((values ?? []).map(normalizeFilterValue).filter((value) => value !== ''))];
}
