/**
 * GET /agents/{id} in one statement: the agent's row, if the caller may see it, with its sources (one row per source,
 * none when it has no source row). Two statements cost two round trips on PostgreSQL, where each waits on the server;
 * this read is the one a registry answers most often when its answer cache is off or has just been emptied.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { type AgentSource, contributors } from '../records/sources.js';
import type { Caller, RegistryRecord } from '../records/types.js';
import { agentVisibility } from './filters.js';
import { sourceFromRow } from './identity.js';
import { recordFromRow } from './rows.js';

export interface VisibleAgent {
  record: RegistryRecord;
  /** The stored AIDIP metadata, JSON. */
  metadata: string;
  /** The sources that shape the entry first, then the rest in key order (as `AgentStore.sources`). */
  sources: AgentSource[];
}

/** The agent `id` with its sources, or undefined when it does not exist or `caller` may not see it. */
export async function readVisibleAgent(
  db: Kysely<Database>,
  id: string,
  caller: Caller,
): Promise<VisibleAgent | undefined> {
  let query = db
    .selectFrom('agents')
    .leftJoin('agent_sources as s', 's.agent_id', 'agents.id')
    .selectAll('agents')
    .select([
      's.source_key',
      's.arrival as source_arrival',
      's.brought_by as source_brought_by',
      's.handle as source_handle',
      's.format as source_format_name',
      's.documents as source_documents',
      's.agent as source_agent',
      's.flags as source_flags',
      's.verified as source_verified',
      's.at as source_at',
    ])
    .where('agents.id', '=', id);
  const visible = agentVisibility(caller);
  if (visible !== undefined) query = query.where(visible);
  const rows = await query.orderBy('s.source_key').execute();
  const [first] = rows;
  if (first === undefined) return undefined;
  const sources = rows.flatMap((row) =>
    row.source_key === null
      ? []
      : [
          sourceFromRow({
            agent_id: row.id,
            source_key: row.source_key,
            arrival: row.source_arrival!,
            brought_by: row.source_brought_by!,
            handle: row.source_handle!,
            format: row.source_format_name!,
            documents: row.source_documents!,
            agent: row.source_agent!,
            flags: row.source_flags!,
            verified: row.source_verified!,
            at: row.source_at!,
          }),
        ],
  );
  const shaping = contributors(sources);
  return {
    record: recordFromRow(first),
    metadata: first.metadata,
    sources: [...shaping, ...sources.filter((source) => !shaping.includes(source))],
  };
}
