/**
 * Writes one canonical agent as an AWP agent.json. AWP names a surface by its domain and describes it by its
 * intent, so identity comes from `surface` where the agent has one, else from where its endpoints live. A file is
 * written as awp_version 0.1 unless the agent came from a 0.2 file that delegates actions to `protocols`.
 */
import { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject, jsonEqual, setOwn } from '../../json/values.js';
import type {
  Agent,
  AgentStatus,
  AuthContract,
  ErrorContract,
  JsonObject,
  JsonSchema,
  Provenance,
  SurfaceFlags,
} from '../../model/agent.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { domainBase } from './bindings.js';
import { writeActions } from './emit-actions.js';
import { EntityTable, readEntities } from './entities.js';
import { DOCUMENT_LAYOUT, placeUnknownFields, SYNTHETIC_DOCUMENT_LAYOUT } from './layout.js';
import {
  AUTH_TYPE_NAMES,
  BOOLEAN_CAPABILITIES,
  DATE_TIME_PATTERN,
  PROTOCOLS_VERSION,
  SPEC_VERSION,
} from './rules.js';
import { writeFields } from './schemas.js';
import { readAuth, readCapabilities, readErrors } from './surface.js';

type Lose = (field: string, message: string) => void;

const AUTH_CARRIED = ['schemes', 'requiredFor', 'optionalFor', 'tokenExpiry', 'refreshEndpoint'] as const;

export function emitAwp(agent: Agent, options: EmitOptions): EmitOne {
  const issues = new IssueCollector('AWP');
  const losses: Loss[] = [];
  const lose: Lose = (field, message) => {
    losses.push({ agent: agent.id, field, message });
  };
  const extension = agent.extensions?.['awp'];
  const protocols = isObject(extension?.['protocols']) ? extension['protocols'] : undefined;
  const domain = chooseDomain(agent, options.baseUrl);
  const intent = chooseIntent(agent);
  if (domain.trim() === '') {
    issues.error(
      '/domain',
      'awp.emit.domain-missing',
      'AWP needs a domain: give the agent an id or pass a base URL.',
    );
  }
  if (intent.trim() === '') {
    issues.error('/intent', 'awp.emit.intent-missing', 'AWP needs an intent: give the agent a description.');
  }

  const capabilities = writeCapabilities(agent.surface?.flags, lose);
  const auth = writeAuth(agent.auth, lose);
  const entities = writeEntities(agent.surface?.entities, lose);
  const { actions, dependencies } = writeActions({
    agent,
    base: domainBase(domain),
    protocols,
    entities: entities.table,
    baseUrl: options.baseUrl,
    issues,
    lose,
  });
  const errors = writeErrors(agent.surface?.errors, lose);
  const status = writeStatus(agent.status);

  const document: JsonObject = { awp_version: protocols ? PROTOCOLS_VERSION : SPEC_VERSION, domain, intent };
  if (capabilities !== undefined) document['capabilities'] = capabilities;
  if (auth !== undefined) document['auth'] = auth;
  if (entities.document !== undefined) document['entities'] = entities.document;
  document['actions'] = actions;
  if (errors !== undefined) document['errors'] = errors;
  if (dependencies !== undefined) document['dependencies'] = dependencies;
  if (agent.surface?.hints !== undefined) document['agent_hints'] = agent.surface.hints;
  if (status !== undefined) document['agent_status'] = status;
  const synthetic = writeOrigin(agent.provenance, document);
  if (extension !== undefined) placeExtensions(document, extension, synthetic, lose);

  if (agent.id !== domain) {
    lose('id', `AWP names a surface by its domain; the id is read back as "${domain}".`);
  }
  if (agent.name !== domain) {
    lose('name', `AWP has no name apart from the domain; the name is read back as "${domain}".`);
  }
  if (agent.description !== intent) {
    lose('description', 'AWP describes a surface by its intent; the description is read back as the intent.');
  }
  return { document, losses, issues: issues.issues };
}

/** The domain the file is for: the surface's own, else where the agent's endpoints or the base URL live. */
function chooseDomain(agent: Agent, baseUrl: string | undefined): string {
  if (agent.surface?.domain !== undefined) return agent.surface.domain;
  for (const binding of agent.bindings) {
    if (binding.kind === 'http' && URL.canParse(binding.url)) return new URL(binding.url).host;
  }
  if (baseUrl !== undefined && URL.canParse(baseUrl)) return new URL(baseUrl).host;
  return agent.id;
}

/** The intent is required and must not be empty: an agent described by nothing is described by its name. */
function chooseIntent(agent: Agent): string {
  if (agent.surface?.intent !== undefined) return agent.surface.intent;
  if (agent.description.trim() !== '') return agent.description;
  return agent.name.trim() !== '' ? agent.name : agent.id;
}

function writeCapabilities(flags: SurfaceFlags | undefined, lose: Lose): JsonObject | undefined {
  if (flags === undefined) return undefined;
  const capabilities: JsonObject = {};
  for (const [field, flag] of BOOLEAN_CAPABILITIES) {
    const value = flags[flag];
    if (value !== undefined) capabilities[field] = value;
  }
  if (flags.pagination !== undefined) capabilities['pagination'] = flags.pagination;
  const back = readCapabilities(
    new ObjectReader(capabilities, '/capabilities', scratch(), 'awp.capabilities'),
  );
  if (!jsonEqual(back, flags)) {
    const carried = new Set<string>([...BOOLEAN_CAPABILITIES.map(([, flag]) => flag), 'pagination']);
    const dropped = Object.keys(flags).filter((flag) => !carried.has(flag));
    lose(
      'surface.flags',
      `AWP capabilities are streaming, batch_actions, webhooks, pagination and idempotency; ${dropped.join(', ') || 'an empty set of flags'} cannot be written.`,
    );
  }
  return Object.keys(capabilities).length > 0 ? capabilities : undefined;
}

function writeAuth(auth: AuthContract | undefined, lose: Lose): JsonObject | undefined {
  if (auth === undefined) return undefined;
  const out: JsonObject = {};
  if (auth.requiredFor !== undefined) out['required_for'] = [...auth.requiredFor];
  if (auth.optionalFor !== undefined) out['optional_for'] = [...auth.optionalFor];
  const scheme = auth.schemes?.[0];
  if (scheme !== undefined) {
    // AWP names one type and nothing more; a type it has no word for is written as the scheme's own name.
    const type =
      AUTH_TYPE_NAMES.get(scheme.type) ??
      (scheme.type === 'other' ? (scheme.scheme ?? scheme.id) : scheme.type);
    if (type.trim() !== '') out['type'] = type;
  }
  if (auth.tokenExpiry !== undefined) out['token_expiry'] = auth.tokenExpiry;
  if (auth.refreshEndpoint !== undefined) out['refresh_endpoint'] = auth.refreshEndpoint;
  const back = readAuth(new ObjectReader(out, '/auth', scratch(), 'awp.auth'), new Set());
  for (const key of AUTH_CARRIED) {
    if (auth[key] === undefined || jsonEqual(auth[key], back?.[key])) continue;
    lose(
      `auth.${key}`,
      key === 'schemes'
        ? 'AWP names a single auth type (oauth2, api_key, bearer or none) and nothing else about it; the schemes were written as the nearest type.'
        : `AWP cannot write auth.${key} as it is.`,
    );
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function writeEntities(
  entities: Record<string, JsonSchema> | undefined,
  lose: Lose,
): { document?: JsonObject; table: EntityTable } {
  if (entities === undefined) return { table: new EntityTable() };
  const names = new Set(Object.keys(entities));
  const document: JsonObject = {};
  for (const name of names) setOwn(document, name, { fields: writeFields(entities[name], names) });
  const issues = scratch();
  const table = readEntities(new ObjectReader(document, '/entities', issues, 'awp.entity'), issues);
  const back = table.schemas();
  const changed = [...names].filter((name) => !jsonEqual(back[name], entities[name]));
  if (changed.length > 0) {
    lose(
      'surface.entities',
      `AWP entities are lists of typed fields; ${changed.map((name) => `"${name}"`).join(', ')} cannot be written exactly, so the nearest AWP types were written.`,
    );
  }
  return { document, table };
}

function writeErrors(errors: Record<string, ErrorContract> | undefined, lose: Lose): JsonObject | undefined {
  if (errors === undefined) return undefined;
  const out: JsonObject = {};
  for (const code of Object.keys(errors)) {
    const contract = errors[code]!;
    // A recovery is required and must be actionable; an entry without one would make the file invalid.
    if (contract.recovery.trim() === '') continue;
    setOwn(out, code, { ...contract.extra, recovery: contract.recovery });
  }
  const back = readErrors(new ObjectReader(out, '/errors', scratch(), 'awp.error'));
  if (!jsonEqual(back, errors)) {
    lose(
      'surface.errors',
      'AWP errors are a recovery instruction plus further fields; entries without a recovery (or whose extra fields name one) cannot be written as they are.',
    );
  }
  return out;
}

function writeStatus(status: AgentStatus | undefined): JsonObject | undefined {
  if (status === undefined) return undefined;
  const out: JsonObject = {};
  if (status.operational !== undefined) out['operational'] = status.operational;
  if (status.degradedOperations !== undefined) out['degraded_actions'] = [...status.degradedOperations];
  if (status.statusEndpoint !== undefined) out['status_endpoint'] = status.statusEndpoint;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A synthetic agent keeps its declaration (§14): synthetic files must say so. Returns true when written. */
function writeOrigin(provenance: Provenance | undefined, document: JsonObject): boolean {
  if (provenance?.origin !== 'synthetic') return false;
  document['source'] = 'synthetic';
  if (provenance.generatedBy !== undefined && provenance.generatedBy.trim() !== '') {
    document['generated_by'] = provenance.generatedBy;
  }
  const confidence = provenance.confidence;
  if (confidence !== undefined && confidence >= 0 && confidence <= 1) document['confidence'] = confidence;
  if (provenance.lastVerified !== undefined && DATE_TIME_PATTERN.test(provenance.lastVerified)) {
    document['last_verified'] = provenance.lastVerified;
  }
  return true;
}

function placeExtensions(document: JsonObject, extension: JsonObject, synthetic: boolean, lose: Lose): void {
  let fields = extension;
  const misplaced: string[] = [];
  if (!synthetic && extension['source'] === 'synthetic') {
    // Written back, it would turn a native file into a synthetic one.
    const { source: _dropped, ...rest } = extension;
    fields = rest;
    misplaced.push('source');
  }
  misplaced.push(
    ...placeUnknownFields(document, fields, synthetic ? SYNTHETIC_DOCUMENT_LAYOUT : DOCUMENT_LAYOUT),
  );
  if (misplaced.length > 0) {
    lose(
      'extensions.awp',
      `The fields ${misplaced.join(', ')} cannot be written back where an AWP reader keeps them as extensions.`,
    );
  }
}

/** A collector for reading back what was written; its issues are not the caller's concern. */
function scratch(): IssueCollector {
  return new IssueCollector('AWP');
}
