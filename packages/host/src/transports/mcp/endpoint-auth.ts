/**
 * Whether an MCP endpoint as a whole needs credentials: every operation it serves demands them. Only then is a 401
 * from a call an HTTP 401 with `WWW-Authenticate` (how MCP clients learn to authorise, MCP §Authorization);
 * where some tools are open, a refused call is a tool error like any other, and the session goes on.
 */
import type { Agent, Operation, SecurityRequirement } from '@agentry/core';

export function everyOperationNeedsAuth(agents: readonly Agent[]): boolean {
  const operations = agents.flatMap((agent) => agent.operations.map((operation) => ({ agent, operation })));
  return operations.length > 0 && operations.every(({ agent, operation }) => needsAuth(agent, operation));
}

function needsAuth(agent: Agent, operation: Operation): boolean {
  if (operation.authRequired !== undefined) return operation.authRequired;
  if (agent.auth?.optionalFor?.includes(operation.name)) return false;
  if (agent.auth?.requiredFor?.includes(operation.name)) return true;
  const requirements = operation.security ?? agent.auth?.security;
  if (requirements === undefined || requirements.length === 0) return false;
  return requirements.every((requirement) => demandsCredentials(agent, requirement));
}

/** A requirement is met without credentials when it is empty (OpenAPI's "optional") or names only `none`. */
function demandsCredentials(agent: Agent, requirement: SecurityRequirement): boolean {
  const schemes = Object.keys(requirement);
  if (schemes.length === 0) return false;
  return schemes.some((id) => agent.auth?.schemes?.find((scheme) => scheme.id === id)?.type !== 'none');
}
