/** Between `agents` rows and `RegistryRecord`s. */
import type { Agent } from '@agentry/core';
import type { QualitySignals, RecordStatus, RegistryRecord, SafetyFlag } from '../records/types.js';
import { parseColumn, parseNullableColumn } from './json.js';
import type { AgentsTable } from './schema.js';

export type AgentRow = AgentsTable;

export function recordFromRow(row: AgentRow): RegistryRecord {
  const record = {
    id: row.id,
    owner: row.owner,
    status: row.status as RecordStatus,
    flags: parseColumn<SafetyFlag[]>(row.flags, 'agents.flags'),
    quality: parseColumn<QualitySignals>(row.quality, 'agents.quality'),
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } as RegistryRecord;
  // Reads answered from the stored metadata (GET, listings) never need the canonical agent: it is parsed on
  // first use. The property behaves as a plain one otherwise (enumerable, assignable, copied by spreads).
  let agent: Agent | undefined;
  Object.defineProperty(record, 'agent', {
    enumerable: true,
    configurable: true,
    get: () => {
      agent ??= parseColumn<Agent>(row.canonical, 'agents.canonical');
      return agent;
    },
    set: (value: Agent) => {
      agent = value;
    },
  });
  const groups = parseNullableColumn<string[]>(row.access_groups, 'agents.access_groups');
  if (groups !== undefined) record.access = { groups };
  return record;
}

/** The row for a record; `metadata` is the AIDIP metadata emitted from `record.agent`. */
export function rowFromRecord(
  record: RegistryRecord,
  metadata: string,
  sourceFormat: string,
  latencySamples: readonly number[],
): AgentRow {
  return {
    id: record.id,
    owner: record.owner,
    name: record.agent.name,
    canonical: JSON.stringify(record.agent),
    metadata,
    source_format: sourceFormat,
    status: record.status,
    revision: record.revision,
    restricted: record.access === undefined ? 0 : 1,
    access_groups: record.access === undefined ? null : JSON.stringify(record.access.groups),
    flagged: record.flags.length > 0 ? 1 : 0,
    flags: JSON.stringify(record.flags),
    quality: JSON.stringify(record.quality),
    latency_samples: JSON.stringify(latencySamples),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
