/**
 * Reading a registration: the request body is an agent description in any format core reads (AIDIP metadata,
 * WoA, AWP, A2A card, agent:// descriptor, TD, MCP), detected by its keys, optionally with entitlements.
 *
 * Entitlements ride beside the document, in either of two shapes:
 * - a top-level `"access": {"groups": [...]}` member of the document itself (removed before the document is read);
 * - an envelope `{"document": {...}, "access": {...}, "format"?: "woa"}` (any other member makes it a document).
 *
 * A document describing several agents (a WoA document, an MCP server with several tools is still one agent)
 * registers one of them with `?agent=<its id>`, or all of them with `?all=true`; otherwise it is refused, naming
 * the agents, because silently registering several would surprise a publisher who meant one.
 */
import {
  type Agent,
  detectFormat,
  FORMAT_NAMES,
  type FormatName,
  type JsonObject,
  type JsonValue,
  readDocument,
  type ValidationIssue,
} from '@agentry/core';
import { REGISTRY_MEMBERS } from './views.js';

export interface RegistrationRequest {
  body: JsonValue;
  /** Read the document as this format instead of detecting it (`?format=`). */
  format?: FormatName;
  /** Register this agent of a multi-agent document (`?agent=`). */
  agent?: string;
  /** Register every agent of the document (`?all=true`). */
  all?: boolean;
  /** The absolute URL the document counts as read from (relative endpoints resolve against it). */
  sourceUrl?: string;
}

export interface Registration {
  format: FormatName;
  agents: Agent[];
  /** `null`: the request makes the agent public; absent: it says nothing (an update keeps the agent's groups). */
  access?: { groups: string[] } | null;
  /** Warnings the codec raised: the document was accepted with them. */
  warnings: ValidationIssue[];
}

export interface RegistrationRefusal {
  code: string;
  title: string;
  detail: string;
  issues: ValidationIssue[];
}

export type RegistrationResult =
  | { ok: true; value: Registration }
  | { ok: false; refusal: RegistrationRefusal };

/** Agents one request may register with `?all=true`. */
export const MAX_AGENTS_PER_REQUEST = 100;

const ENVELOPE_MEMBERS: ReadonlySet<string> = new Set(['document', 'access', 'format']);
const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;
const MAX_GROUPS = 32;

export function readRegistration(request: RegistrationRequest): RegistrationResult {
  const unwrapped = unwrap(request.body);
  const issues: ValidationIssue[] = [];
  const access = readAccess(unwrapped.access, unwrapped.accessPointer, issues);
  let format = request.format ?? unwrapped.format;
  if (unwrapped.formatIssue !== undefined) issues.push(unwrapped.formatIssue);
  if (issues.length > 0) return refuse('invalid-access', 'Invalid entitlements', issues);

  let document = unwrapped.document;
  const given = document;
  if (isObject(given) && REGISTRY_MEMBERS.some((member) => Object.hasOwn(given, member))) {
    // Metadata read back from GET /agents/{id} carries the registry's own members: they are not the publisher's.
    const stripped = withoutMembers(given, REGISTRY_MEMBERS);
    if ((format ?? detectFormat(stripped)) === 'aidip') document = stripped;
  }
  if (isObject(document) && request.sourceUrl !== undefined) {
    document = withoutGatewayEndpoint(document, request.sourceUrl);
  }
  const read = readDocument(document, readOptions(request, format));
  format = read.format;
  const located = read.issues.map((issue) => relocate(issue, unwrapped.documentPointer));
  const errors = located.filter((issue) => issue.severity === 'error');
  if (format === undefined || errors.length > 0) {
    const first = errors[0];
    // "errors" lists them, the first 100 of them when there are more (api/problems.ts counts the rest).
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error(s); see "errors")` : '';
    return refuse(
      'invalid-document',
      'Invalid agent description',
      located,
      `${first === undefined ? 'The document is not a valid agent description.' : `${first.pointer || '/'}: ${first.message}`}${more}`,
    );
  }
  if (format === 'agents-json') {
    return refuse(
      'unsupported-document',
      'Not an agent description',
      [],
      'An agents.json map only says where descriptors are; register each agent descriptor it lists instead.',
    );
  }
  const chosen = chooseAgents(read.agents, request);
  if (!chosen.ok) return chosen;
  const value: Registration = {
    format,
    agents: chosen.agents,
    warnings: located.filter((issue) => issue.severity === 'warning'),
  };
  if (access !== undefined) value.access = access;
  return { ok: true, value };
}

function readOptions(
  request: RegistrationRequest,
  format: FormatName | undefined,
): { format?: FormatName; sourceUrl?: string } {
  const options: { format?: FormatName; sourceUrl?: string } = {};
  if (format !== undefined) options.format = format;
  if (request.sourceUrl !== undefined) options.sourceUrl = request.sourceUrl;
  return options;
}

function chooseAgents(
  agents: Agent[],
  request: RegistrationRequest,
): { ok: true; agents: Agent[] } | { ok: false; refusal: RegistrationRefusal } {
  const ids = agents.map((agent) => `"${agent.id}"`).join(', ');
  if (request.agent !== undefined) {
    const wanted = agents.filter((agent) => agent.id === request.agent);
    if (wanted.length === 0) {
      return refuse(
        'unknown-agent',
        'No such agent in the document',
        [],
        `The document has no agent "${request.agent}" (it has ${ids || 'none'}).`,
      );
    }
    return { ok: true, agents: wanted.slice(0, 1) };
  }
  if (agents.length === 0) {
    return refuse('no-agent', 'No agent in the document', [], 'The document describes no agent to register.');
  }
  if (agents.length > 1 && request.all !== true) {
    return refuse(
      'several-agents',
      'The document describes several agents',
      [],
      `The document describes ${agents.length} agents (${ids}). Register one with ?agent=<id>, or all of them with ?all=true.`,
    );
  }
  if (agents.length > MAX_AGENTS_PER_REQUEST) {
    return refuse(
      'too-many-agents',
      'Too many agents in one request',
      [],
      `The document describes ${agents.length} agents; one request registers at most ${MAX_AGENTS_PER_REQUEST}.`,
    );
  }
  return { ok: true, agents };
}

interface Unwrapped {
  document: JsonValue;
  documentPointer: string;
  access?: JsonValue;
  accessPointer: string;
  format?: FormatName;
  formatIssue?: ValidationIssue;
}

function unwrap(body: JsonValue): Unwrapped {
  if (!isObject(body)) return { document: body, documentPointer: '', accessPointer: '/access' };
  const inner = body['document'];
  if (isObject(inner) && Object.keys(body).every((key) => ENVELOPE_MEMBERS.has(key))) {
    const out: Unwrapped = { document: inner, documentPointer: '/document', accessPointer: '/access' };
    if (body['access'] !== undefined) out.access = body['access'];
    const format = body['format'];
    if (format !== undefined) {
      if (typeof format === 'string' && (FORMAT_NAMES as readonly string[]).includes(format)) {
        out.format = format as FormatName;
      } else {
        out.formatIssue = {
          severity: 'error',
          pointer: '/format',
          code: 'registry.format.unknown',
          message: `"format" must be one of ${FORMAT_NAMES.join(', ')}.`,
        };
      }
    }
    return out;
  }
  if (!Object.hasOwn(body, 'access'))
    return { document: body, documentPointer: '', accessPointer: '/access' };
  return {
    document: withoutMembers(body, ['access']),
    documentPointer: '',
    access: body['access'] as JsonValue,
    accessPointer: '/access',
  };
}

function readAccess(
  value: JsonValue | undefined,
  pointer: string,
  issues: ValidationIssue[],
): { groups: string[] } | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const fail = (at: string, message: string): undefined => {
    issues.push({ severity: 'error', pointer: at, code: 'registry.access.invalid', message });
    return undefined;
  };
  if (!isObject(value)) {
    return fail(
      pointer,
      '"access" must be an object, {"groups": ["group-name", ...]}, or null for a public agent.',
    );
  }
  const extra = Object.keys(value).filter((key) => key !== 'groups');
  if (extra.length > 0)
    return fail(`${pointer}/${extra[0]}`, `"access" has only "groups"; "${extra[0]}" is not known.`);
  const groups = value['groups'];
  if (!Array.isArray(groups) || groups.length === 0) {
    return fail(
      `${pointer}/groups`,
      '"access.groups" must be a non-empty array of group names; leave "access" out for a public agent.',
    );
  }
  if (groups.length > MAX_GROUPS) return fail(`${pointer}/groups`, `At most ${MAX_GROUPS} groups.`);
  const names: string[] = [];
  groups.forEach((group, index) => {
    if (typeof group !== 'string' || !GROUP_NAME.test(group)) {
      fail(
        `${pointer}/groups/${index}`,
        'A group name is 1 to 64 letters, digits and . _ : @ -, starting with a letter or digit.',
      );
    } else names.push(group);
  });
  return names.length === groups.length ? { groups: [...new Set(names)] } : undefined;
}

function relocate(issue: ValidationIssue, prefix: string): ValidationIssue {
  return prefix === '' ? issue : { ...issue, pointer: `${prefix}${issue.pointer}` };
}

function refuse(
  code: string,
  title: string,
  issues: ValidationIssue[],
  detail?: string,
): { ok: false; refusal: RegistrationRefusal } {
  const summary = detail ?? issues.map((issue) => `${issue.pointer || '/'}: ${issue.message}`).join(' ');
  return { ok: false, refusal: { code, title, detail: summary, issues } };
}

/**
 * Metadata read back from GET /agents/{id} for an agent that names no endpoint of its own shows this registry's
 * gateway as its endpoint, with the gateway's authentication (the agent's own kept as `agent_authentication`).
 * Registered again as it is, the agent would name the gateway as its own endpoint and every call through the
 * gateway would call the gateway. So this registry's gateway endpoint is never the agent's: it is left out and
 * the agent's own authentication put back. `agentsUrl` is this registry's `/agents` URL.
 */
function withoutGatewayEndpoint(document: JsonObject, agentsUrl: string): JsonObject {
  const endpoint = document['endpoint'];
  if (
    typeof endpoint !== 'string' ||
    !endpoint.startsWith(`${agentsUrl}/`) ||
    !endpoint.endsWith('/invoke')
  ) {
    return document;
  }
  const out = withoutMembers(document, ['endpoint', 'authentication']);
  const authentication = document['authentication'];
  const own = isObject(authentication) ? authentication['agent_authentication'] : undefined;
  if (own !== undefined) out['authentication'] = own;
  return out;
}

function withoutMembers(document: JsonObject, members: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(document)) {
    if (!members.includes(key))
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
