/**
 * The canonical `Agent` a host publishes for a definition: the definition's fields, the security of the host's
 * auth configuration, and the bindings of this host at its base URL — the WoA `rest` transport, an HTTP endpoint
 * per operation, the MCP server and, when on, the WebSocket endpoint — before any the definition lists itself.
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
  if (plan.webSocketBaseUrl !== undefined) {
    bindings.push({ kind: 'wss', url: plan.webSocketBaseUrl + webSocketPath(definition.id) });
  }
  bindings.push(...declared.bindings);
  const agent: Agent = { ...declared, operations, bindings };
  if (auth === undefined) delete agent.auth;
  else agent.auth = auth;
  return agent;
}
