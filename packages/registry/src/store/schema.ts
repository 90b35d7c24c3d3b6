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

/**
 * Where an agent's descriptions came from (docs/registry.md, "Identity"): one row per source of an entry, with
 * what that source said. The entry's canonical agent is merged from them (records/sources.ts).
 */
export interface AgentSourcesTable {
  agent_id: string;
  /** `registered <format>`, `crawled <host> <id>` or `imported <host> <id>` (records/sources.ts). */
  source_key: string;
  arrival: string;
  /** Who brought it: a publisher, or `crawler:<host>`. */
  brought_by: string;
  /** The agent's id as the source names it. */
  handle: string;
  format: string;
  /** JSON array of `SourceDocument`. */
  documents: string;
  /** The canonical agent as this source describes it, JSON. */
  agent: string;
  /** JSON array of `SafetyFlag` found in this source's description. */
  flags: string;
  verified: number;
  at: string;
}

/** The identity keys an entry holds (core's `identityKeys`); a strong key belongs to one entry at most. */
export interface AgentIdentitiesTable {
  key: string;
  agent_id: string;
  /** 1 for a strong key (declared agent:// URI, origin and id, package), 0 for a weak one (origin and name). */
  strong: number;
}

/**
 * Entries merged into another when the identity rule came in (store/identity-migration.ts): the old id, the entry
 * it is now part of, and whether the search index has heard of it.
 */
export interface AgentMergesTable {
  from_id: string;
  into_id: string;
  at: string;
  reindexed: Generated<number>;
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
  /** The kinds of the agent's bindings (store/call-values.ts). */
  agent_transports: AgentValueTable;
  /** The kinds of authentication the agent declares, or `none` (store/call-values.ts). */
  agent_auth_kinds: AgentValueTable;
  agent_access: AgentAccessTable;
  agent_history: AgentHistoryTable;
  agent_sources: AgentSourcesTable;
  agent_identities: AgentIdentitiesTable;
  agent_merges: AgentMergesTable;
  tombstones: TombstonesTable;
  tokens: TokensTable;
  audit_log: AuditLogTable;
  feedback: FeedbackTable;
}

/** The tables that hold one agent's filter values. */
export type AgentValueTableName =
  | 'agent_tags'
  | 'agent_capabilities'
  | 'agent_languages'
  | 'agent_transports'
  | 'agent_auth_kinds';
