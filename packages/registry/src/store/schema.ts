/**
 * The registry's tables as Kysely sees them. Column types are the portable subset: text, integers (booleans are
 * 0/1) and JSON kept as text, so the same queries run on SQLite and, later, PostgreSQL.
 */
import type { Generated } from 'kysely';

export interface AgentsTable {
  id: string;
  /** The publisher that registered the agent (a token's publisher, or `admin`). */
  owner: string;
  name: string;
  /** The canonical `Agent`, JSON, with `id` set to the registry's id. */
  canonical: string;
  /** The AIDIP metadata emitted from the canonical agent at write time, JSON. */
  metadata: string;
  source_format: string;
  status: string;
  revision: number;
  /** 1 when `access_groups` restricts who may see the agent. */
  restricted: number;
  /** JSON array of group names, or null for a public agent. */
  access_groups: string | null;
  flagged: number;
  /** JSON array of `SafetyFlag`. */
  flags: string;
  /** JSON `QualitySignals`. */
  quality: string;
  /** JSON array of the latest gateway latencies (ms), newest last: the median comes from these. */
  latency_samples: string;
  created_at: string;
  updated_at: string;
}

/** One row per (agent, value): set-inclusion filters are index lookups. Values are lower-cased. */
export interface AgentValueTable {
  agent_id: string;
  value: string;
}

/**
 * The groups that may see a restricted agent. Rows outlive the agent (no foreign key) so that its tombstone stays
 * hidden from the same callers; a new registration under the id replaces them.
 */
export interface AgentAccessTable {
  agent_id: string;
  group_name: string;
}

export type HistoryAction = 'create' | 'update' | 'delete';

export interface AgentHistoryTable {
  seq: Generated<number>;
  agent_id: string;
  revision: number;
  action: HistoryAction;
  /** Who made the change: a token id (`admin` for the admin token). */
  actor: string;
  at: string;
  /** The whole record after the change, JSON; null for a deletion (the previous row is the last state). */
  record: string | null;
}

export interface TombstonesTable {
  agent_id: string;
  owner: string;
  restricted: number;
  deleted_at: string;
}

export type TokenRole = 'admin' | 'publisher' | 'client';

export interface TokensTable {
  id: string;
  /** SHA-256 of the whole token, hex. The token itself is never stored. */
  token_hash: string;
  role: TokenRole;
  publisher: string | null;
  /** JSON array of group names. */
  groups: string;
  created_at: string;
  revoked_at: string | null;
}

export interface AuditLogTable {
  seq: Generated<number>;
  at: string;
  /** Token id, or `anonymous`. */
  actor: string;
  action: string;
  target: string;
  /** JSON object with what else a reader of the log needs (revision, owner, counts). */
  details: string;
}

export type FeedbackOutcome = 'success' | 'failure';

export interface FeedbackTable {
  seq: Generated<number>;
  agent_id: string;
  rating: number;
  outcome: FeedbackOutcome;
  comment: string | null;
  /** Token id, or `anonymous`. */
  actor: string;
  at: string;
}

export interface RegistryTables {
  agents: AgentsTable;
  agent_tags: AgentValueTable;
  agent_capabilities: AgentValueTable;
  agent_languages: AgentValueTable;
  agent_access: AgentAccessTable;
  agent_history: AgentHistoryTable;
  tombstones: TombstonesTable;
  tokens: TokensTable;
  audit_log: AuditLogTable;
  feedback: FeedbackTable;
}

/** The tables that hold one agent's filter values. */
export type AgentValueTableName = 'agent_tags' | 'agent_capabilities' | 'agent_languages';
