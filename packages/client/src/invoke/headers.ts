/**
 * The metadata a call carries: credentials, `X-Session-ID` and `X-Task-ID` (agent:// §8.1.1), `X-Agent-Version`
 * (§7), `X-Delegation-Chain` (§8.3.2) and the idempotency key, as HTTP headers (and query parameters for API keys
 * that want them) and, for transports without headers, as envelope fields.
 */
import {
  AGENT_VERSION_HEADER,
  type Agent,
  type Binding,
  CONFIRMATION_HEADER,
  type Operation,
  SESSION_HEADER,
  type SecurityScheme,
  TASK_HEADER,
} from '@agentry/core';
import type { EnvelopeMeta } from './bindings/types.js';
import { appendDelegation, DELEGATION_HEADER } from './delegation.js';
import type { AuthOptions, InvokeOptions } from './types.js';

export {
  AGENT_VERSION_HEADER as VERSION_HEADER,
  CONFIRMATION_HEADER,
  SESSION_HEADER,
  TASK_HEADER,
} from '@agentry/core';

const DEFAULT_API_KEY_HEADER = 'X-API-Key';

export interface CallMetadata {
  headers: Record<string, string>;
  query: Record<string, string>;
  meta: EnvelopeMeta;
  /** The headers and query parameters that carry credentials: never sent on to another origin by a redirect. */
  credentials: CredentialNames;
}

export interface CredentialNames {
  headers: string[];
  query: string[];
}

export interface MetadataInput {
  agent: Agent;
  binding: Binding;
  spec: Operation | undefined;
  options: InvokeOptions;
  /** The version to ask for (the caller's, else resolution's). */
  version?: string;
  idempotency: { key?: string; headers: Record<string, string> };
  /** Who is called, for the delegation hop's `sub`. */
  subject: string;
}

/**
 * The call's metadata. Synchronous unless the call carries a delegation chain (signing a hop is asynchronous), so
 * the common call does not wait a turn for it.
 */
export function callMetadata(input: MetadataInput): CallMetadata | Promise<CallMetadata> {
  const { options } = input;
  if (options.delegation === undefined) return buildMetadata(input, undefined);
  return appendDelegation(options.delegation, input.subject).then((chain) => buildMetadata(input, chain));
}

function buildMetadata(input: MetadataInput, chain: string | undefined): CallMetadata {
  const { options } = input;
  const headers: Record<string, string> = {};
  const query: Record<string, string> = {};
  const meta: EnvelopeMeta = {};
  const credentials = credentialNames(input.agent);
  if (options.sessionId !== undefined) {
    headers[SESSION_HEADER] = options.sessionId;
    meta.sessionId = options.sessionId;
  }
  if (options.taskId !== undefined) {
    headers[TASK_HEADER] = options.taskId;
    meta.taskId = options.taskId;
  }
  if (input.version !== undefined) {
    headers[AGENT_VERSION_HEADER] = input.version;
    meta.version = input.version;
  }
  if (chain !== undefined) {
    headers[DELEGATION_HEADER] = chain;
    meta.delegationChain = chain;
  }
  if (options.confirm === true) {
    headers[CONFIRMATION_HEADER] = 'true';
    meta.confirm = true;
  }
  if (input.idempotency.key !== undefined) meta.idempotencyKey = input.idempotency.key;
  Object.assign(headers, input.idempotency.headers);
  if (options.auth !== undefined) applyAuth(options.auth, apiKeyScheme(input), headers, query, credentials);
  // The caller's own headers win over ours, whatever their case.
  if (options.headers === undefined) return { headers, query, meta, credentials };
  for (const [name, value] of Object.entries(options.headers)) {
    for (const existing of Object.keys(headers)) {
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    }
    headers[name] = value;
  }
  return { headers, query, meta, credentials };
}

/** Every header and query parameter the agent's API-key schemes name, whichever one this call uses. */
function credentialNames(agent: Agent): CredentialNames {
  const names: CredentialNames = { headers: [], query: [] };
  for (const scheme of agent.auth?.schemes ?? []) {
    if (scheme.type !== 'apiKey' || scheme.name === undefined) continue;
    if (scheme.in === 'query') names.query.push(scheme.name);
    else if (scheme.in !== 'cookie') names.headers.push(scheme.name);
  }
  return names;
}

function applyAuth(
  auth: AuthOptions,
  scheme: SecurityScheme | undefined,
  headers: Record<string, string>,
  query: Record<string, string>,
  credentials: CredentialNames,
): void {
  if (auth.bearer !== undefined) {
    headers['Authorization'] = `Bearer ${auth.bearer}`;
    credentials.headers.push('Authorization');
  }
  if (auth.apiKey === undefined) return;
  const name = scheme?.name ?? DEFAULT_API_KEY_HEADER;
  if (scheme?.in === 'query') {
    query[name] = auth.apiKey;
    credentials.query.push(name);
  } else if (scheme?.in === 'cookie') {
    headers['Cookie'] = `${name}=${encodeURIComponent(auth.apiKey)}`;
    credentials.headers.push('Cookie');
  } else {
    headers[name] = auth.apiKey;
    credentials.headers.push(name);
  }
}

/**
 * The API-key scheme that applies: one the operation's or binding's security requirements name, else the agent's
 * first API-key scheme.
 */
function apiKeyScheme(input: MetadataInput): SecurityScheme | undefined {
  const schemes = (input.agent.auth?.schemes ?? []).filter((scheme) => scheme.type === 'apiKey');
  if (schemes.length <= 1) return schemes[0];
  const named = [input.spec?.security, input.binding.security, input.agent.auth?.security]
    .flatMap((requirements) => requirements ?? [])
    .flatMap((requirement) => Object.keys(requirement));
  return schemes.find((scheme) => named.includes(scheme.id)) ?? schemes[0];
}
