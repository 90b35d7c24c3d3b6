/**
 * What the API shows of a record: the AIDIP metadata (§3) with what the registry adds, the summary objects of
 * listings and searches (§4.3.1), and the agent in any other format core writes.
 *
 * Added members: `flagged` and `safety_flags` when the untrusted-text scan found something, `quality_score` once
 * there is evidence (§9 names it), and `registry` (owner, revision, timestamps, quality signals; access groups for
 * the owner and the admin only). They are the registry's, not the publisher's: a registration that sends them
 * back is read without them (see `REGISTRY_MEMBERS`).
 */
import {
  type Agent,
  type FormatName,
  getCodec,
  isObject,
  type JsonObject,
  type JsonValue,
} from '@agentry/core';
import type { AgentSource } from './sources.js';
import type { Caller, RegistryRecord } from './types.js';

/** Top-level members the registry writes into metadata; dropped from AIDIP documents on registration. */
export const REGISTRY_MEMBERS: readonly string[] = ['flagged', 'safety_flags', 'quality_score', 'registry'];

/** The AIDIP metadata stored for an agent (its `id` is the registry's). */
export function storedMetadata(agent: Agent): string {
  const { document } = getCodec('aidip').emit([agent]);
  const metadata = Array.isArray(document) ? (document[0] ?? {}) : document;
  return JSON.stringify({ ...metadata, id: agent.id });
}

export interface ViewContext {
  caller: Caller;
  /** Absolute URL of the registry (no trailing slash): the gateway endpoint of agents that name none. */
  baseUrl: string;
}

/** GET /agents/{id}: the full metadata. */
export function metadataView(
  record: RegistryRecord,
  metadata: string,
  context: ViewContext,
  sources?: readonly AgentSource[],
): JsonObject {
  const out = parseMetadata(metadata);
  if (typeof out['endpoint'] !== 'string') {
    out['endpoint'] = gatewayEndpoint(record.id, context.baseUrl);
    out['authentication'] = gatewayAuthentication(out['authentication']);
  }
  // The stored word (the publisher's, lower-cased), as listings and filters show it.
  out['status'] = record.status;
  addRegistryMembers(out, record);
  const registry: JsonObject = {
    owner: record.owner,
    revision: record.revision,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    quality: qualityJson(record),
  };
  if (record.access !== undefined && mayManage(record, context.caller)) {
    registry['access'] = { groups: [...record.access.groups] };
  }
  if (sources !== undefined) registry['sources'] = sourcesJson(sources);
  out['registry'] = registry;
  return out;
}

/** A summary object (§4.3.1): what a client needs to choose, without the schemas. */
export function summaryView(record: RegistryRecord, metadata: string, context: ViewContext): JsonObject {
  const full = parseMetadata(metadata);
  const out: JsonObject = { id: record.id, name: full['name'] ?? '', description: full['description'] ?? '' };
  for (const key of ['version', 'publisher', 'capabilities', 'tags', 'supported_languages'] as const) {
    const value = full[key];
    if (value !== undefined) out[key] = value;
  }
  out['endpoint'] =
    typeof full['endpoint'] === 'string' ? full['endpoint'] : gatewayEndpoint(record.id, context.baseUrl);
  out['status'] = record.status;
  addRegistryMembers(out, record);
  out['updated_at'] = record.updatedAt;
  return out;
}

export interface FormatView {
  document: JsonValue;
  mediaType: string;
  /** Canonical fields the format could not carry, as `field: message`. */
  losses: string[];
}

/** The agent in another format, by core's codec for it. */
export function formatView(record: RegistryRecord, format: FormatName): FormatView {
  const codec = getCodec(format);
  const { document, losses } = codec.emit([record.agent]);
  const single = Array.isArray(document) && document.length === 1 ? document[0]! : document;
  return {
    document: single,
    mediaType: codec.mediaType,
    losses: losses.map((loss) => `${loss.field}: ${loss.message}`),
  };
}

/** The owner and the admin manage a record; the owner is matched by publisher name. */
export function mayManage(record: RegistryRecord, caller: Caller): boolean {
  return caller.kind === 'admin' || (caller.publisher !== undefined && caller.publisher === record.owner);
}

export function gatewayEndpoint(id: string, baseUrl: string): string {
  return `${baseUrl}/agents/${encodeURIComponent(id)}/invoke`;
}

/**
 * The `authentication` of the gateway endpoint: what a caller of it sends, not what the agent behind it wants.
 * The registry's token goes in `Authorization`; the agent's own credential in the header the gateway passes on,
 * `X-Agent-Api-Key` for an API key, `X-Agent-Authorization` (its whole `Authorization` value) for anything else.
 * When the agent's description says nothing of its auth, both are offered (`required: false`). `credentials` lists
 * them with their headers (core's AIDIP codec reads it) for clients that read it; `instructions` says the same for
 * people and clients that read only `type`; the agent's own authentication is kept as `agent_authentication`.
 */
export function gatewayAuthentication(agentAuthentication: JsonValue | undefined): JsonObject {
  const agentType =
    isObject(agentAuthentication) && typeof agentAuthentication['type'] === 'string'
      ? agentAuthentication['type']
      : undefined;
  const credentials: JsonObject[] = [
    {
      for: 'registry',
      type: 'oauth2_bearer',
      in: 'header',
      name: 'Authorization',
      instructions:
        'Bearer <token>, a token this registry issued; the registry never passes it on to the agent.',
    },
  ];
  const apiKey: JsonObject = {
    for: 'agent',
    type: 'api_key',
    in: 'header',
    name: 'X-Agent-Api-Key',
    instructions: "The agent's own API key; the registry sends it where the agent wants it.",
  };
  const authorization: JsonObject = {
    for: 'agent-authorization',
    type: agentType ?? 'oauth2_bearer',
    in: 'header',
    name: 'X-Agent-Authorization',
    instructions:
      "The agent's own Authorization value (e.g. Bearer <token>), sent to it as its Authorization.",
  };
  let instructions =
    "This endpoint is the registry's gateway. Send Authorization: Bearer <a token of this registry>";
  if (agentType === 'api_key') {
    credentials.push(apiKey);
    instructions += " and the agent's own API key as X-Agent-Api-Key: <key>.";
  } else if (agentType === undefined) {
    credentials.push({ ...apiKey, required: false }, { ...authorization, required: false });
    instructions +=
      '. If the agent wants a credential of its own, send its API key as X-Agent-Api-Key: <key>, or its Authorization value as X-Agent-Authorization.';
  } else if (agentType !== 'none') {
    credentials.push(authorization);
    instructions += " and the agent's own credential as X-Agent-Authorization: <its Authorization value>.";
  } else {
    instructions += '; the agent itself takes no credential.';
  }
  const out: JsonObject = { type: 'oauth2_bearer', instructions, credentials };
  if (agentAuthentication !== undefined) out['agent_authentication'] = agentAuthentication;
  return out;
}
function addRegistryMembers(out: JsonObject, record: RegistryRecord): void {
  if (record.flags.length > 0) {
    out['flagged'] = true;
    out['safety_flags'] = record.flags.map((flag) => ({
      rule: flag.rule,
      pointer: flag.pointer,
      excerpt: flag.excerpt,
    }));
  }
  if (record.quality.score !== undefined) out['quality_score'] = record.quality.score;
}

/**
 * Where the entry's descriptions came from, primary first: one item per document, with how it arrived, who
 * brought it, when, whether the registry can vouch for it (docs/registry.md, "Identity"), and its signature's
 * status.
 */
function sourcesJson(sources: readonly AgentSource[]): JsonObject[] {
  return sources.flatMap((source) =>
    source.documents.map((document) => {
      const item: JsonObject = {
        format: document.format,
        arrived: source.arrival,
        by: source.by,
        at: document.at,
        verified: source.verified,
        signature: signatureStatus(source),
      };
      const detail = source.agent.provenance?.signature?.detail;
      if (detail !== undefined) item['signature_detail'] = detail;
      if (document.url !== undefined) item['url'] = document.url;
      return item;
    }),
  );
}

/**
 * Whether this source's description was signed, and if so whether the signature checked: `verified`, `failed`,
 * `unchecked` (signed, not verified), or `none` (no signature).
 */
function signatureStatus(source: AgentSource): 'verified' | 'failed' | 'unchecked' | 'none' {
  const signature = source.agent.provenance?.signature;
  if (signature === undefined) return 'none';
  if (signature.verified === true) return 'verified';
  if (signature.verified === false) return 'failed';
  return 'unchecked';
}

function qualityJson(record: RegistryRecord): JsonObject {
  const { quality } = record;
  const out: JsonObject = {
    ratings: quality.ratings,
    invocations: quality.invocations,
    failures: quality.failures,
    verified: quality.verified,
  };
  if (quality.score !== undefined) out['score'] = quality.score;
  if (quality.latencyP50Ms !== undefined) out['latency_p50_ms'] = quality.latencyP50Ms;
  if (quality.lastSeenAt !== undefined) out['last_seen_at'] = quality.lastSeenAt;
  return out;
}

function parseMetadata(metadata: string): JsonObject {
  return JSON.parse(metadata) as JsonObject;
}
