/**
 * The shapes of an Agentry registry's HTTP API (AIDIP, draft-cui-ai-agent-discovery-invocation, plus Agentry's own
 * endpoints), as its OpenAPI document (`GET /openapi.json`) describes them. Members a registry may add are allowed
 * (`[member: string]: unknown`): the types name what callers read, not everything a registry may say.
 */
import type { JsonObject, JsonValue } from '@agentry/core';

/** Search relevance explained: one reason per factor (`lexical: …`, `semantic: …`). */
export type Reasons = string[];

/** A finding of the registry's safety scan: instructions aimed at a model in the agent's text. */
export interface SafetyFlag {
  rule: string;
  pointer: string;
  excerpt: string;
  [member: string]: unknown;
}

/** AIDIP §4.3.1 summary object, as `GET /agents` and `POST /agents/search` answer (search adds `score`, `why`). */
export interface AgentSummary {
  id: string;
  name: string;
  description: string;
  endpoint: string;
  status: string;
  version?: string;
  publisher?: string;
  capabilities?: string[];
  tags?: string[];
  supported_languages?: string[];
  flagged?: boolean;
  safety_flags?: SafetyFlag[];
  quality_score?: number;
  updated_at?: string;
  /** Search relevance, comparable within one answer only. */
  score?: number;
  why?: Reasons;
  [member: string]: unknown;
}

/** AIDIP §3 agent metadata, with what the registry adds (`flagged`, `safety_flags`, `quality_score`, `registry`). */
export interface AgentMetadata {
  id: string;
  name: string;
  description: string;
  version?: string;
  publisher?: string;
  capabilities?: string[];
  tags?: string[];
  endpoint?: string;
  supported_languages?: string[];
  status?: string;
  operations?: JsonObject[];
  inputs?: JsonValue;
  outputs?: JsonValue;
  flagged?: boolean;
  safety_flags?: SafetyFlag[];
  quality_score?: number;
  registry?: {
    owner?: string;
    revision?: number;
    created_at?: string;
    updated_at?: string;
    access?: { groups?: string[] };
    [member: string]: unknown;
  };
  [member: string]: unknown;
}

/** A deleted agent, in `updated_since` listings (for mirrors). */
export interface Tombstone {
  id: string;
  deleted: true;
  deleted_at: string;
  [member: string]: unknown;
}

/** An item of `GET /agents`: a summary, full metadata (with `updated_since`), or a tombstone. */
export type AgentListItem = AgentSummary | AgentMetadata | Tombstone;

/** `GET /agents` parameters. List filters: the agent must have all of the values. */
export interface ListAgentsQuery {
  capabilities?: readonly string[];
  tags?: readonly string[];
  language?: readonly string[];
  /** Lifecycle statuses to include (any of). */
  status?: readonly string[];
  /** A search query; the page is then ranked. */
  q?: string;
  mode?: SearchMode;
  limit?: number;
  /** The opaque cursor of a previous page (`AgentPage.cursor`). */
  cursor?: string;
  /** Changes since this time (ISO 8601), deletions as tombstones, oldest first: what a mirror asks for. */
  updatedSince?: string;
}

/** One page of a listing, with where the next one is. */
export interface AgentPage<Item = AgentListItem> {
  /** The URL this page was read from. */
  url: string;
  items: Item[];
  /** The next page's cursor, when the registry gave one. */
  cursor?: string;
  /** The next page's URL (`Link: <…>; rel="next"`, else this page's query with `cursor`); absent on the last. */
  next?: string;
  /** The answer as it was: its JSON body and headers. */
  body: unknown;
  headers: Headers;
}

export type SearchMode = 'hybrid' | 'lexical' | 'semantic';

/** `POST /agents/search` (AIDIP §4.3.1, §4.3.2): filters (AND, set inclusion) and an optional plain-language query. */
export interface SearchRequest {
  query?: string | null;
  filters?: {
    capabilities?: string[];
    tags?: string[];
    supported_languages?: string[];
    languages?: string[];
    language?: string;
    status?: string | string[];
  } | null;
  /** Results wanted, 1 to 100 (default 10). */
  top?: number;
  mode?: SearchMode;
}

/** The body of `POST /agents` and `PUT /agents/{id}`: a description in any format Agentry reads. */
export type AgentDocument = JsonValue | Record<string, unknown>;

export interface RegisterOptions {
  /** Of a document describing several agents: the one to register. */
  agent?: string;
  /** Of a document describing several agents: every one. */
  all?: boolean;
  /** Read the document as this format instead of detecting it. */
  format?: string;
  /** Restrict the agent to callers in these groups (sent as `{document, access: {groups}}`); default public. */
  groups?: readonly string[];
}

/** `POST /agents?all=true`: one entry per agent of the document. */
export interface RegistrationResults {
  results: Array<{
    id: string;
    result: 'created' | 'updated' | 'unchanged';
    location: string;
    metadata: AgentMetadata;
  }>;
  [member: string]: unknown;
}

/** What a registration got: `created` (201) or not (200, the owner's entry already), and the stored metadata. */
export interface Registration {
  status: number;
  created: boolean;
  body: AgentMetadata | RegistrationResults;
  /** The new entry's URL (`Location`), on 201. */
  location?: string;
}

export interface Feedback {
  rating: 1 | 2 | 3 | 4 | 5;
  outcome: 'success' | 'failure';
  comment?: string;
}

export interface FeedbackResult {
  id: string;
  quality_score: number | null;
  ratings: number;
  [member: string]: unknown;
}

export interface AgentHistory {
  id: string;
  entries: Array<{ revision: number; action: string; actor: string; at: string; agent?: JsonObject }>;
  [member: string]: unknown;
}

/** `POST /resolve` (AIDIP §6, §7): an intent, what is known of it, and the caller's policy. */
export interface ResolveRequest {
  intent: string;
  context?: { language?: string; region?: string; [member: string]: unknown };
  policy?: {
    status?: string[];
    languages?: string[];
    auth_types?: string[];
    min_trust?: number;
    min_quality?: number;
    require_verified?: boolean;
    exclude_flagged?: boolean;
    transports?: string[];
  };
  top?: number;
}

export interface ResolveCandidate {
  id: string;
  name: string;
  description: string;
  /** Relevance, 0..1. */
  score: number;
  why: Reasons;
  status: string;
  /** Provenance trust, 0..1. */
  trust: number;
  quality_score?: number;
  languages?: string[];
  flagged?: boolean;
  operation: {
    name: string;
    title?: string;
    description?: string;
    score: number;
    input_schema?: JsonValue;
    output_schema?: JsonValue;
    requires_confirmation?: boolean;
  } | null;
  operations: Array<{ name: string; score: number }>;
  binding: {
    kind: 'woa-rest' | 'http' | 'mcp' | 'a2a' | 'wss' | 'unix' | 'local' | 'other';
    endpoint: string;
    method?: string;
    transport?: string;
    envelope?: boolean;
    tool?: string;
    content_type?: string;
  } | null;
  auth: {
    required: boolean;
    types: string[];
    scopes: string[];
    alternatives: Array<{
      schemes: Array<{ id: string; type: string; in?: string; name?: string }>;
      scopes: string[];
    }>;
    instructions?: string;
  };
  invoke: { gateway: string; uri?: string };
  [member: string]: unknown;
}

export interface ResolveResponse {
  intent: string;
  candidates: ResolveCandidate[];
  filtered: { count: number; reasons: Record<string, number> };
  considered: number;
  /** Pointers of members holding publishers' text: untrusted input for a model. */
  untrusted: string[];
  [member: string]: unknown;
}

export interface InvokeThroughRegistry {
  /** The operation to run (sent as `?operation=`, so the body is the input as it is). */
  operation?: string;
  /** Confirms a destructive, irreversible or confirmation-requiring operation. */
  confirm?: boolean;
  /** Sent to the agent as its `Authorization` (`X-Agent-Authorization`). */
  agentAuthorization?: string;
  /** Sent where the agent's API-key scheme says (`X-Agent-Api-Key`). */
  agentApiKey?: string;
  /** Further call metadata: session, task, idempotency key, delegation chain… */
  headers?: Record<string, string>;
}

export interface InvokeAnswer {
  /** The agent's output. */
  output: JsonValue | undefined;
  /** The operation run (`X-Agent-Operation`). */
  operation?: string;
  headers: Headers;
}

export interface FacetsQuery {
  capabilities?: readonly string[];
  tags?: readonly string[];
  language?: readonly string[];
  status?: readonly string[];
  limit?: number;
}

export interface Facets {
  total: number;
  facets: Record<string, Array<{ value: string; count: number }>>;
  [member: string]: unknown;
}

export interface TokenRequest {
  role?: 'publisher' | 'client';
  publisher?: string;
  groups?: string[];
}

export interface Token {
  id: string;
  /** Shown once; the registry stores only its hash. */
  token: string;
  role: 'publisher' | 'client';
  publisher: string | null;
  groups: string[];
  created_at: string;
  [member: string]: unknown;
}

export interface AuditQuery {
  limit?: number;
  /** Entries older than this `seq`. */
  before?: number;
  target?: string;
  action?: string;
}

export interface AuditLog {
  entries: Array<{
    seq?: number;
    at?: string;
    actor?: string;
    action?: string;
    target?: string;
    details?: unknown;
  }>;
  next_before?: number;
  [member: string]: unknown;
}

/** An origin in the crawl queue and how its crawls went. */
export interface CrawlHost {
  origin: string;
  state: 'idle' | 'claimed';
  added_by?: string;
  added_at?: string;
  next_due_at: string;
  last_crawled_at?: string | null;
  last_outcome?: 'changed' | 'unchanged' | 'unreachable' | 'error' | null;
  failures: number;
  last_error?: string | null;
  crawls: number;
  agents: number;
  documents: number;
  [member: string]: unknown;
}

export interface HostAdded extends CrawlHost {
  /** Whether this registry crawls its queue in the background. */
  crawling: boolean;
  warning?: string;
}

export interface CrawlHostDetail extends CrawlHost {
  document_records?: JsonObject[];
  agent_states?: JsonObject[];
}

export interface HostsQuery {
  limit?: number;
  cursor?: string;
}

/** The registry's public agents as an AI Catalog (`/.well-known/ai-catalog.json`). */
export interface AiCatalog {
  specVersion: '1.0';
  host: { displayName?: string; identifier?: string };
  entries: Array<{
    identifier: string;
    displayName: string;
    type: string;
    url: string;
    updatedAt?: string;
    description?: string;
    version?: string;
    tags?: string[];
    capabilities?: string[];
  }>;
  [member: string]: unknown;
}

export interface Health {
  status: 'ok';
  version: string;
  [member: string]: unknown;
}
