/**
 * The canonical `Agent` a host publishes for a definition: the definition's fields, the security of the host's
 * auth configuration, and the bindings of this host at its base URL — the WoA `rest` transport, an HTTP endpoint
 * per operation, the MCP server, the A2A JSON-RPC endpoint and, when on, the WebSocket endpoint — before any the
 * definition lists itself. The A2A card is written from these bindings, so the card names the URL and protocol
 * versions the A2A route serves (`a2aPath`, src/a2a).
 */
import type { Agent, Binding } from '@agentry/core';
import type { AgentDefinition } from '../define/types.js';
import type { Authenticator } from '../policies/auth.js';
import { securedAgent } from './security.js';

/** The WoA `invoke_path` of Agentry hosts (the envelope route). */
export const INVOKE_PATH = '/agents/{agent_id}/invoke';

export interface BindingPlan {
  /** The host's base URL, without a trailing slash. */
  baseUrl: string;
  /** Serve MCP at `{baseUrl}/mcp`. */
  mcp: boolean;
  /** Serve A2A JSON-RPC at `{baseUrl}/agents/{id}/a2a`. */
  a2a: boolean;
  /** `ws:`/`wss:` base of the WebSocket endpoints, when WebSockets are on. */
  webSocketBaseUrl?: string;
  authenticator?: Authenticator;
}

export function operationPath(agentId: string, operation: string): string {
  return `/agents/${encodeURIComponent(agentId)}/operations/${encodeURIComponent(operation)}`;
}

export function webSocketPath(agentId: string): string {
  return `/agents/${encodeURIComponent(agentId)}/ws`;
}

/** The last path segment of an agent's A2A endpoint (the router matches it). */
export const A2A_SEGMENT = 'a2a';

export function a2aPath(agentId: string): string {
  return `/agents/${encodeURIComponent(agentId)}/${A2A_SEGMENT}`;
}

/**
 * The A2A protocol versions the endpoint serves, v1.0 first (the one A2A v1.0 clients prefer). Both are JSON-RPC
 * over one URL; the method names tell them apart (transports/a2a/methods.ts).
 */
export const A2A_SERVED_VERSIONS = ['1.0', '0.3'] as const;

export function hostedAgent(definition: AgentDefinition, plan: BindingPlan): Agent {
  const base = plan.baseUrl;
  const declared = structuredClone(definition.agent);
  const { operations, auth } = securedAgent(declared, plan.authenticator);
  const bindings: Binding[] = [{ kind: 'woa-rest', base, invokePath: INVOKE_PATH }];
  for (const op of operations) {
    bindings.push({
      kind: 'http',
      url: base + operationPath(definition.id, op.name),
      method: 'POST',
      contentType: 'application/json',
      operations: [op.name],
    });
  }
  if (plan.mcp) bindings.push({ kind: 'mcp', server: `${base}/mcp`, transport: 'streamable-http' });
  if (plan.a2a) {
    const url = base + a2aPath(definition.id);
    for (const protocolVersion of A2A_SERVED_VERSIONS) {
      bindings.push({ kind: 'a2a', url, protocolBinding: 'JSONRPC', protocolVersion });
    }
  }
  if (plan.webSocketBaseUrl !== undefined) {
    bindings.push({ kind: 'wss', url: plan.webSocketBaseUrl + webSocketPath(definition.id) });
  }
  bindings.push(...declared.bindings);
  const agent: Agent = { ...declared, operations, bindings };
  if (auth === undefined) delete agent.auth;
  else agent.auth = auth;
  // A card advertises streaming when some operation streams (A2A clients only ask for a stream then).
  if (plan.a2a && agent.surface?.flags?.streaming === undefined && operations.some((op) => op.streaming)) {
    agent.surface = { ...agent.surface, flags: { ...agent.surface?.flags, streaming: true } };
  }
  return agent;
}
