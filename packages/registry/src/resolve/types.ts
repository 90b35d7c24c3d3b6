/**
 * Agent Semantic Resolution (AIDIP §6, §7): `POST /resolve` turns (intent, context, policy) into ranked candidate
 * agents with the invocation metadata a client needs to call them. Members on the wire are snake_case, as AIDIP's.
 */
import type { JsonSchema, JsonValue } from '@agentry/core';
import type { ProblemDetails } from '../gateway/problem.js';
import type { RegistryRecord } from '../records/types.js';
import type { SearchHit } from '../search/types.js';

/** What resolution needs from the registry. Both see only what the caller may see (entitlements applied). */
export interface ResolveDeps {
  /** The search ranking for the intent: best first, at most `top`. */
  search(query: string, top: number): Promise<SearchHit[]>;
  /** The records of these ids (any order; missing ids are skipped). */
  getRecords(ids: string[]): Promise<RegistryRecord[]>;
  /** Absolute URL of the registry, no trailing slash, for gateway URLs; absent: paths relative to the registry. */
  baseUrl?: string;
}

/** The credential kinds a caller can present (`policy.auth_types`); an agent needing none always qualifies. */
export const AUTH_TYPES = ['none', 'api_key', 'bearer', 'basic', 'oauth2', 'mtls', 'other'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** Transport names for `policy.transports`: the canonical binding kinds, and `rest` for either HTTP kind. */
export const TRANSPORTS = ['woa-rest', 'http', 'rest', 'mcp', 'a2a', 'wss', 'unix', 'local'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

export interface ResolvePolicy {
  /** Lifecycle statuses allowed (any AIDIP status word: `active`, `deprecated`, `maintenance` …); default: all but `retired`. */
  status?: string[];
  /** Natural languages, any of which the agent must support (agents that name none are language-agnostic). */
  languages?: string[];
  auth_types?: AuthType[];
  /** 0..1, see `trustScore`. */
  min_trust?: number;
  /** 0..1: the agent's quality score; agents without evidence yet do not qualify. */
  min_quality?: number;
  require_verified?: boolean;
  /** Default true: AIDIP §9, agents deemed unsafe SHOULD NOT be returned as candidates. */
  exclude_flagged?: boolean;
  transports?: TransportName[];
}

export interface ResolveContext {
  /** The language of the task (BCP 47): agents supporting it rank higher, agents naming others lower. */
  language?: string;
  region?: string;
  [member: string]: JsonValue | undefined;
}

export interface ResolveRequest {
  intent: string;
  context: ResolveContext;
  policy: ResolvePolicy;
  top: number;
}

export interface ResolveResponse {
  intent: string;
  candidates: ResolveCandidate[];
  /** Agents the search found that the policy removed, and why (reason → count). */
  filtered: { count: number; reasons: Record<string, number> };
  /** Agents the search returned before the policy. */
  considered: number;
  /**
   * Pointers (with `*` for every array index) of members holding the publishers' own text: untrusted input for a
   * language model (WoA §8.2), to be kept apart from instructions.
   */
  untrusted: string[];
}

export interface ResolveCandidate {
  id: string;
  name: string;
  description: string;
  /**
   * 0..1, higher is better: the search's relevance through a logistic (0.5 an average visible candidate), times
   * the demotions and the language factor of `why`, capped at 1.
   */
  score: number;
  why: string[];
  status: string;
  trust: number;
  quality_score?: number;
  languages?: string[];
  /** Present (true) only when the policy let flagged agents through. */
  flagged?: boolean;
  /** The operation to call for the intent; null when the agent describes none (call it without one). */
  operation: CandidateOperation | null;
  /** Every operation, best match first. */
  operations: Array<{ name: string; score: number }>;
  /** How to reach the agent directly; null when it has no binding Agentry can call. */
  binding: CandidateBinding | null;
  auth: CandidateAuth;
  invoke: CandidateInvocation;
}

export interface CandidateOperation {
  name: string;
  title?: string;
  description?: string;
  score: number;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema;
  /** The operation changes things that cannot be undone or asks for a person's confirmation first. */
  requires_confirmation?: boolean;
}

export interface CandidateBinding {
  /** The canonical binding kind: `woa-rest`, `http`, `mcp`, `a2a`, `wss`, `unix`, `local`. */
  kind: string;
  /** URL (or `unix:` path, `agent+local://` name) to send the call to. */
  endpoint: string;
  method?: string;
  /** The binding's own transport: MCP `streamable-http`/`sse`, A2A `JSONRPC`/`HTTP+JSON`. */
  transport?: string;
  /** WoA REST: the body is the envelope `{agent, operation, input}`, not the bare input. */
  envelope?: boolean;
  /** MCP: the tool to call. */
  tool?: string;
  content_type?: string;
}

export interface CandidateAuth {
  /** False when some way to call needs no credentials. */
  required: boolean;
  /** Every credential kind some way to call accepts. */
  types: AuthType[];
  /** OAuth scopes the ways to call ask for. */
  scopes: string[];
  /** Each way to call: the schemes that together satisfy it (empty: no credentials). */
  alternatives: Array<{
    schemes: Array<{ id: string; type: AuthType; in?: string; name?: string }>;
    scopes: string[];
  }>;
  instructions?: string;
}

export interface CandidateInvocation {
  /** The registry's gateway: POST `{operation, input}` here. */
  gateway: string;
  /** The agent's `agent://` URI, for clients that resolve and call it themselves. */
  uri?: string;
}

export type ResolveResult = { status: 200; body: ResolveResponse } | { status: 400; problem: ProblemDetails };
