/**
 * The invocation metadata of a candidate: the binding to call its operation through (the client's own order of
 * preference), where and how to send the call, and the credentials each way to call needs.
 */
import { chooseBinding } from '@agentry/client';
import type { Agent, Binding, Operation, SecurityRequirement, SecuritySchemeType } from '@agentry/core';
import { encodeUriComponentSafe } from '@agentry/core';
import type { AuthType, CandidateAuth, CandidateBinding, TransportName } from './types.js';

/** The binding kinds each `policy.transports` name admits. */
const KINDS_OF_TRANSPORT: Record<TransportName, readonly Binding['kind'][]> = {
  'woa-rest': ['woa-rest'],
  http: ['http'],
  rest: ['woa-rest', 'http'],
  mcp: ['mcp'],
  a2a: ['a2a'],
  wss: ['wss'],
  unix: ['unix'],
  local: ['local'],
};

/**
 * The binding to call `operation` through, among those of the allowed transports (all when none are given):
 * undefined when there is none Agentry can call.
 */
export function bindingFor(
  agent: Agent,
  operation: string | undefined,
  transports: readonly TransportName[] | undefined,
): Binding | undefined {
  if (transports === undefined) return chooseBinding(agent, operation);
  const kinds = new Set(transports.flatMap((name) => KINDS_OF_TRANSPORT[name]));
  return chooseBinding({ ...agent, bindings: agent.bindings.filter((b) => kinds.has(b.kind)) }, operation);
}

/** Where and how to send a call through `binding`. */
export function describeBinding(
  agent: Agent,
  binding: Binding,
  operation: string | undefined,
): CandidateBinding {
  switch (binding.kind) {
    case 'woa-rest':
      return {
        kind: binding.kind,
        endpoint:
          binding.base.replace(/\/+$/, '') +
          binding.invokePath.replaceAll('{agent_id}', encodeUriComponentSafe(agent.id)),
        method: 'POST',
        envelope: true,
        content_type: 'application/json',
      };
    case 'http': {
      const out: CandidateBinding = { kind: binding.kind, endpoint: binding.url, method: binding.method };
      if (binding.method !== 'GET') out.content_type = binding.contentType ?? 'application/json';
      return out;
    }
    case 'mcp': {
      const out: CandidateBinding = {
        kind: binding.kind,
        endpoint: binding.server,
        transport: binding.transport ?? 'streamable-http',
      };
      if (operation !== undefined) out.tool = operation;
      return out;
    }
    case 'a2a':
      return {
        kind: binding.kind,
        endpoint: binding.url,
        method: 'POST',
        transport: binding.protocolBinding,
      };
    case 'wss':
      return { kind: binding.kind, endpoint: binding.url };
    case 'unix':
      return { kind: binding.kind, endpoint: `unix:${binding.socketPath}`, method: 'POST' };
    case 'local':
      return { kind: binding.kind, endpoint: `agent+local://${binding.name}` };
    case 'other':
      return { kind: binding.kind, endpoint: binding.protocol };
  }
}

const TYPE_OF_SCHEME: Record<SecuritySchemeType, AuthType> = {
  none: 'none',
  apiKey: 'api_key',
  bearer: 'bearer',
  basic: 'basic',
  oauth2: 'oauth2',
  // OpenID Connect is OAuth 2.0 underneath: a caller with OAuth tokens can use it.
  openIdConnect: 'oauth2',
  mtls: 'mtls',
  other: 'other',
};

/**
 * The credentials needed to call `operation` through `binding`: the operation's security requirements, else the
 * binding's, else the agent's; with none declared, each scheme the agent names is one way to call, and an agent
 * naming no scheme needs no credentials. An operation the publisher marks as not needing auth (or leaves out of
 * AWP's `required_for`) may also be called without.
 */
export function describeAuth(
  agent: Agent,
  operation: Operation | undefined,
  binding: Binding | undefined,
): CandidateAuth {
  const schemes = agent.auth?.schemes ?? [];
  const requirements: SecurityRequirement[] =
    operation?.security ??
    binding?.security ??
    agent.auth?.security ??
    schemes.map((scheme) => ({ [scheme.id]: [] as string[] }));
  const requiredFor = agent.auth?.requiredFor;
  const optional =
    operation !== undefined &&
    (operation.authRequired === false ||
      (agent.auth?.optionalFor ?? []).includes(operation.name) ||
      // AWP `required_for` lists the operations that need auth; the others do not.
      (requiredFor !== undefined &&
        operation.authRequired !== true &&
        !requiredFor.includes(operation.name)));

  const alternatives: CandidateAuth['alternatives'] = requirements.map((requirement) => {
    const parts = Object.entries(requirement).map(([id, scopes]) => {
      const scheme = schemes.find((s) => s.id === id);
      const part: { id: string; type: AuthType; in?: string; name?: string } = {
        id,
        // A requirement naming a scheme the agent does not define is still a credential of some kind.
        type: scheme === undefined ? 'other' : TYPE_OF_SCHEME[scheme.type],
      };
      if (scheme?.in !== undefined) part.in = scheme.in;
      if (scheme?.name !== undefined) part.name = scheme.name;
      return { part, scopes };
    });
    return {
      schemes: parts.map(({ part }) => part).filter((part) => part.type !== 'none'),
      scopes: [...new Set(parts.flatMap(({ scopes }) => scopes))],
    };
  });
  if (alternatives.length === 0 || optional) alternatives.unshift({ schemes: [], scopes: [] });

  const required = !alternatives.some((alternative) => alternative.schemes.length === 0);
  const types = new Set<AuthType>();
  for (const alternative of alternatives) {
    if (alternative.schemes.length === 0) types.add('none');
    for (const scheme of alternative.schemes) types.add(scheme.type);
  }
  const out: CandidateAuth = {
    required,
    types: [...types],
    scopes: [...new Set(alternatives.flatMap((alternative) => alternative.scopes))],
    alternatives,
  };
  if (agent.auth?.instructions !== undefined) out.instructions = agent.auth.instructions;
  return out;
}

/** Whether a caller holding credentials of `allowed` kinds can call: some way to call needs only those kinds. */
export function authAllows(auth: CandidateAuth, allowed: readonly AuthType[]): boolean {
  const held = new Set<AuthType>(allowed);
  return auth.alternatives.some((alternative) =>
    alternative.schemes.every((scheme) => held.has(scheme.type)),
  );
}
