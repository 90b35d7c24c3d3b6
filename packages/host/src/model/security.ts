/**
 * The security a host's documents advertise, from its authenticator: the schemes it accepts, and which operations
 * need credentials (the authenticator's own rule, so documents and enforcement agree). Operations that need them
 * list the schemes as alternatives; the agent-level requirement is written only when every operation needs
 * credentials, since formats such as A2A and OpenAPI read an agent-level requirement as applying to all of them.
 */
import type { Agent, AuthContract, Operation, SecurityRequirement, SecurityScheme } from '@agentry/core';
import type { Authenticator } from '../policies/auth.js';

function alternatives(schemes: readonly SecurityScheme[]): SecurityRequirement[] {
  return schemes.map((scheme): SecurityRequirement => ({ [scheme.id]: [] }));
}

/** The agent's operations and auth contract as documents describe them. */
export function securedAgent(
  declared: Agent,
  authenticator: Authenticator | undefined,
): Pick<Agent, 'operations' | 'auth'> {
  const schemes = authenticator?.schemes() ?? [];
  if (authenticator === undefined || schemes.length === 0) {
    return declared.auth === undefined
      ? { operations: declared.operations }
      : { operations: declared.operations, auth: declared.auth };
  }
  const needing = new Set(
    declared.operations.filter((op) => authenticator.needsAuth(op, declared)).map((op) => op.name),
  );
  const operations = declared.operations.map(
    (op): Operation =>
      needing.has(op.name) && op.security === undefined ? { ...op, security: alternatives(schemes) } : op,
  );
  const declaredAuth = declared.auth;
  const known = new Set((declaredAuth?.schemes ?? []).map((scheme) => scheme.id));
  const auth: AuthContract = {
    ...declaredAuth,
    schemes: [...(declaredAuth?.schemes ?? []), ...schemes.filter((scheme) => !known.has(scheme.id))],
  };
  if (needing.size > 0) auth.requiredFor = [...new Set([...(declaredAuth?.requiredFor ?? []), ...needing])];
  const everyOne = operations.length > 0 && needing.size === operations.length;
  if (everyOne && declaredAuth?.security === undefined) auth.security = alternatives(schemes);
  return { operations, auth };
}
