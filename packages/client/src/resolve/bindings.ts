/**
 * Choosing the binding to call an agent through, and making bindings from endpoints named by URL.
 *
 * Preference (docs/resolution.md): an explicit `agent+<transport>://` URI's own binding always; otherwise, among the
 * bindings that serve the operation, WoA REST, then plain HTTP endpoints (AWP, AIDIP, TD forms, agent.json), then
 * MCP over Streamable HTTP, then A2A JSON-RPC, A2A HTTP+JSON, wss, unix, local, MCP over SSE and MCP stdio last
 * (it starts a process). A2A gRPC and `other` bindings (agent+matrix, private transports) are never chosen.
 */
import type { Agent, Binding } from '@agentry/core';

function rank(binding: Binding): number | undefined {
  switch (binding.kind) {
    case 'woa-rest':
      return 0;
    case 'http':
      return 1;
    case 'mcp':
      if (binding.transport === 'stdio' || (binding.transport === undefined && binding.package !== undefined))
        return 9;
      if (binding.transport === 'sse') return 8;
      return 2;
    case 'a2a':
      if (binding.protocolBinding.toUpperCase() === 'JSONRPC') return 3;
      if (binding.protocolBinding.toUpperCase() === 'HTTP+JSON') return 4;
      return undefined;
    case 'wss':
      return 5;
    case 'unix':
      return 6;
    case 'local':
      return 7;
    default:
      return undefined;
  }
}

/** True for bindings the preference order ranks (kinds Agentry can call or is meant to). */
export function isUsableBinding(binding: Binding): boolean {
  return rank(binding) !== undefined;
}

/** The preferred binding of `agent` that serves `operation` (any operation when absent), if one is usable. */
export function chooseBinding(agent: Agent, operation?: string): Binding | undefined {
  let best: Binding | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (const binding of agent.bindings) {
    if (
      operation !== undefined &&
      binding.operations !== undefined &&
      !binding.operations.includes(operation)
    ) {
      continue;
    }
    const r = rank(binding);
    if (r !== undefined && r < bestRank) {
      best = binding;
      bestRank = r;
    }
  }
  return best;
}

export interface EndpointBinding {
  binding: Binding;
  /** An HTTPS endpoint whose method follows the payload (agent:// §6.2). */
  methodByPayload: boolean;
}

/**
 * A binding for an endpoint given as a URL (a DID service endpoint, a WebFinger link, a versioned endpoint):
 * http(s) → an HTTP binding, POST with a payload and GET without; ws(s) → wss. Anything else is not an endpoint.
 */
export function endpointBinding(endpoint: string): EndpointBinding | undefined {
  if (!URL.canParse(endpoint)) return undefined;
  const url = new URL(endpoint);
  if (url.protocol === 'https:' || url.protocol === 'http:') {
    return { binding: { kind: 'http', url: url.href, method: 'POST' }, methodByPayload: true };
  }
  if (url.protocol === 'wss:' || url.protocol === 'ws:')
    return { binding: { kind: 'wss', url: url.href }, methodByPayload: false };
  return undefined;
}
