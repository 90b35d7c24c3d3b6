/**
 * did:web authorities (agent:// §4, §5.1 "DID resolution"; the did:web method specification): the DID document is
 * at `https://<domain>/.well-known/did.json`, or `https://<domain>/<path>/did.json` for a DID with path segments
 * (`did:web:example.com:agent:researcher` → `https://example.com/agent/researcher/did.json`; a port is written
 * `%3A`). Its services of the types below point to the agent:
 * - description services (`AgentDescription`, `AgentDescriptor`, `AgentCard`, `A2AAgentCard`, `AgentsJson`): the URL
 *   of a description in any format Agentry reads, detected by its keys;
 * - endpoint services (`AgentEndpoint`, `AgentService`): an https URL (HTTP, POST with a payload, GET without), a
 *   wss URL, or an `agent+<transport>://` URI;
 * - `MCPServer` (MCP over Streamable HTTP) and `A2AService` (A2A JSON-RPC).
 * Types may also be written as IRIs in Agentry's namespace (`https://w3id.org/agentry/ns#AgentEndpoint`). Other
 * services (LinkedDomains, DIDCommMessaging, ...) are left alone.
 */
import {
  AGENTRY_NS,
  type AgentUri,
  type Binding,
  type Did,
  hasAgentScheme,
  tryParseAgentUri,
} from '@agentry/core';
import { endpointBinding } from './bindings.js';
import type { ResolveContext } from './context.js';
import { type Found, findInDescription } from './describe.js';
import { transportBinding } from './explicit.js';
import { isRecord, stringsOf } from './json.js';

export const DID_DESCRIPTION_SERVICE_TYPES: readonly string[] = [
  'AgentDescription',
  'AgentDescriptor',
  'AgentCard',
  'A2AAgentCard',
  'AgentsJson',
];
export const DID_ENDPOINT_SERVICE_TYPES: readonly string[] = ['AgentEndpoint', 'AgentService'];
export const DID_MCP_SERVICE_TYPES: readonly string[] = ['MCPServer'];
export const DID_A2A_SERVICE_TYPES: readonly string[] = ['A2AService'];

export interface DidWebLocation {
  /** `https://host[:port]`. */
  origin: string;
  /** The DID's path segments, decoded. */
  path: string[];
  didDocumentUrl: string;
}

/** Where a did:web DID's document is, or why the DID cannot be a did:web DID. */
export function didWebLocation(did: Did, scheme: 'https' | 'http'): DidWebLocation | string {
  let parts: string[];
  try {
    parts = did.id.split(':').map((part) => decodeURIComponent(part));
  } catch {
    return `did:web:${did.id} has percent-encoding that is not UTF-8.`;
  }
  const [host = '', ...path] = parts;
  if (!/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host) && !/^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
    return `did:web:${did.id} does not start with a domain name (and an optional %3A-encoded port).`;
  }
  if (path.some((segment) => segment === '' || /[/?#]/.test(segment))) {
    return `did:web:${did.id} has an empty path segment or one with '/', '?' or '#'.`;
  }
  if (!URL.canParse(`${scheme}://${host}/`)) return `did:web:${did.id} does not name a valid host.`;
  const origin = new URL(`${scheme}://${host}/`).origin;
  const didDocumentUrl =
    path.length === 0
      ? `${origin}/.well-known/did.json`
      : `${origin}/${path.map((segment) => encodeURIComponent(segment)).join('/')}/did.json`;
  return { origin, path, didDocumentUrl };
}

/**
 * Reads the DID document and follows its services: description services first (the first that names the agent
 * wins), then endpoint services, which make an agent of their own when no description did.
 */
export async function findThroughDidWeb(
  ctx: ResolveContext,
  uri: AgentUri,
  location: DidWebLocation,
  names: readonly string[],
): Promise<Found | undefined> {
  const did = uri.authority.host;
  const document = await ctx.readJson(location.didDocumentUrl, 'did-web');
  if (document === undefined) return undefined;
  if (!isRecord(document)) {
    ctx.issue(
      'error',
      'resolve.did-web.invalid',
      `${location.didDocumentUrl}: a DID document is a JSON object.`,
    );
    return undefined;
  }
  if (document['id'] !== did) {
    ctx.issue(
      'error',
      'resolve.did-web.id-mismatch',
      `${location.didDocumentUrl}: the DID document's id ${JSON.stringify(document['id'])} is not ${did}; its services are not used (did:web requires the id to match).`,
    );
    return undefined;
  }
  const services = Array.isArray(document['service']) ? document['service'].filter(isRecord) : [];
  for (const service of services) {
    if (!hasType(service, DID_DESCRIPTION_SERVICE_TYPES)) continue;
    for (const url of endpointsOf(service['serviceEndpoint'])) {
      const found = await findInDescription(ctx, url, 'descriptor', names, 'did-web');
      if (found !== undefined) return found;
    }
  }
  const bindings: Binding[] = [];
  for (const service of services) {
    for (const endpoint of endpointsOf(service['serviceEndpoint'])) {
      const binding = serviceBinding(ctx, service, endpoint);
      if (binding !== undefined) bindings.push(binding);
    }
  }
  if (bindings.length === 0) {
    ctx.issue(
      'warning',
      'resolve.did-web.no-agent-service',
      `${location.didDocumentUrl}: no service of a type Agentry recognises (${[...DID_DESCRIPTION_SERVICE_TYPES, ...DID_ENDPOINT_SERVICE_TYPES, ...DID_MCP_SERVICE_TYPES, ...DID_A2A_SERVICE_TYPES].join(', ')}) led to the agent.`,
    );
    return undefined;
  }
  const id = location.path[location.path.length - 1] ?? did;
  return {
    agent: { id, name: id, description: '', operations: [], bindings, url: `agent://${did}` },
    source: 'did-web',
    by: 'endpoint',
  };
}

function serviceBinding(
  ctx: ResolveContext,
  service: Record<string, unknown>,
  endpoint: string,
): Binding | undefined {
  if (hasType(service, DID_MCP_SERVICE_TYPES) && /^https?:/i.test(endpoint)) {
    return { kind: 'mcp', server: endpoint, transport: 'streamable-http' };
  }
  if (hasType(service, DID_A2A_SERVICE_TYPES) && /^https?:/i.test(endpoint)) {
    return { kind: 'a2a', url: endpoint, protocolBinding: 'JSONRPC' };
  }
  if (!hasType(service, DID_ENDPOINT_SERVICE_TYPES)) return undefined;
  return bindingForEndpoint(ctx, endpoint, `DID service ${JSON.stringify(service['id'] ?? '')}`);
}

/** A binding for an endpoint URL or an explicit agent+<transport> URI; unusable ones are reported. */
export function bindingForEndpoint(
  ctx: ResolveContext,
  endpoint: string,
  where: string,
): Binding | undefined {
  if (hasAgentScheme(endpoint)) {
    const parsed = tryParseAgentUri(endpoint);
    if (!parsed.ok || parsed.uri.protocol === undefined) {
      ctx.issue(
        'warning',
        'resolve.endpoint.invalid',
        `${where}: ${endpoint} is not an agent+<transport>:// URI${parsed.ok ? '' : ` (${parsed.error.message})`}.`,
      );
      return undefined;
    }
    const explicit = transportBinding(parsed.uri, endpoint);
    if (explicit.methodByPayload) ctx.methodByPayload.add(explicit.binding);
    return explicit.binding;
  }
  const made = endpointBinding(endpoint);
  if (made === undefined) {
    ctx.issue('warning', 'resolve.endpoint.invalid', `${where}: ${endpoint} is not an http(s) or ws(s) URL.`);
    return undefined;
  }
  if (made.methodByPayload) ctx.methodByPayload.add(made.binding);
  return made.binding;
}

function hasType(service: Record<string, unknown>, types: readonly string[]): boolean {
  return stringsOf(service['type']).some((type) =>
    types.includes(type.startsWith(AGENTRY_NS) ? type.slice(AGENTRY_NS.length) : type),
  );
}

/** DID Core §5.4: a URI string, a list of them, or a map (DIDComm's `{uri}`, or named URIs). */
function endpointsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((item) => endpointsOf(item));
  if (isRecord(value)) {
    if (typeof value['uri'] === 'string') return [value['uri']];
    return Object.values(value).filter((item): item is string => typeof item === 'string');
  }
  return [];
}
