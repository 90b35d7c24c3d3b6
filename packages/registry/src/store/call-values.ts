/**
 * How an agent is called, as the values its transport and auth facets count and filter by: the kinds of its
 * bindings (`a2a`, `mcp`, `http`, `woa-rest`, `wss`, …) and the kinds of authentication it declares (`apiKey`,
 * `bearer`, `oauth2`, …, or `none` when it declares none). Written beside its tags (agent_transports,
 * agent_auth_kinds) when it is stored.
 */
import type { Agent } from '@agentry/core';

export function transportValues(agent: Agent): string[] {
  return [...new Set(agent.bindings.map((binding) => binding.kind))];
}

export function authValues(agent: Agent): string[] {
  const auth = agent.auth;
  const kinds = new Set((auth?.schemes ?? []).map((scheme) => scheme.type));
  if (kinds.size > 0) return [...kinds];
  // Authentication said to be needed, in words or for some operations, with no scheme named.
  const required = (auth?.security?.length ?? 0) > 0 || (auth?.requiredFor?.length ?? 0) > 0;
  return [required ? 'other' : 'none'];
}
