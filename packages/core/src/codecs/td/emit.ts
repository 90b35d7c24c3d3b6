/**
 * Writing a canonical agent as a WoT TD 1.1 AgentCard, following the ADR-0015 mapping table field by field:
 * `@type: [agentry:AgentCard, Thing]`, each operation an action whose input/output are inlined DataSchemas, forms
 * with absolute hrefs, explicit `safe`/`idempotent`/`synchronous`, `schema:softwareVersion`, `dct:description`,
 * `prov:wasRevisionOf`, and the governance fields under our `agentry:` prefix.
 */
import { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { isObject, setOwn } from '../../json/values.js';
import type { Agent, JsonObject, JsonValue, Operation } from '../../model/agent.js';
import { lostFields } from '../../model/diff.js';
import { TD_CONTEXT_1_0, TD_CONTEXT_1_1 } from '../../vocabulary.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { resolveUrl } from '../urls.js';
import { toDataSchema, withoutDialect } from './data-schema.js';
import { foreignExtensionLosses, writeActionForms } from './forms.js';
import { readThing, syntheticThingId } from './parse.js';
import { writeSecurity } from './security.js';
import { AGENT_CARD_CLASS, AGENT_ID_TERM, agentryTerm, EMITTED_PREFIXES, OPERATION_TERMS } from './terms.js';

export const SPEC_NAME = 'WoT TD 1.1';
const TITLE = 'WoT TD AgentCard';

/** Thing-level extension members written in their own place rather than copied. */
const PLACED_EXTENSIONS = new Set(['@context', '@type', 'version', 'links']);

export function writeThing(agent: Agent, options: EmitOptions): EmitOne {
  const issues = new IssueCollector(SPEC_NAME);
  const losses: Loss[] = [];
  const extension = agent.extensions?.['td'] ?? {};

  const document: JsonObject = {
    '@context': [TD_CONTEXT_1_0, TD_CONTEXT_1_1, { ...EMITTED_PREFIXES }, ...listOf(extension['@context'])],
    '@type': [agentryTerm(AGENT_CARD_CLASS), 'Thing', ...listOf(extension['@type'])],
    id: thingIdOf(agent),
    [agentryTerm(AGENT_ID_TERM)]: agent.id,
    title: agent.name,
  };
  if (agent.description !== '') document['description'] = agent.description;
  const version = writeVersion(agent.version, extension['version']);
  if (version !== undefined) document['version'] = version;
  for (const [key, value] of Object.entries(extension)) {
    if (!PLACED_EXTENSIONS.has(key) && !Object.hasOwn(document, key)) setOwn(document, key, value);
  }
  const links = writeLinks(agent, extension);
  if (links.length > 0) document['links'] = links;
  const { securityDefinitions, security } = writeSecurity(agent.auth);
  document['securityDefinitions'] = securityDefinitions;
  document['security'] = security;

  const actions: JsonObject = {};
  for (const op of agent.operations) {
    const pointer = joinPointer('/actions', op.name);
    if (Object.hasOwn(actions, op.name)) {
      issues.error(
        pointer,
        'td.emit.duplicate-operation',
        `Two operations are named "${op.name}"; TD action names are unique, so only the first was written. Rename one.`,
      );
      continue;
    }
    setOwn(actions, op.name, writeAction(agent, op, options, pointer, issues, losses));
  }
  document['actions'] = actions;

  losses.push(...foreignExtensionLosses(agent));
  losses.push(...unexpectedLosses(agent, document, options, losses));
  return { document, losses, issues: issues.issues };
}

function writeAction(
  agent: Agent,
  op: Operation,
  options: EmitOptions,
  pointer: string,
  issues: IssueCollector,
  losses: Loss[],
): JsonObject {
  const action: JsonObject = {};
  if (op.title !== undefined) action['title'] = op.title;
  if (op.description !== undefined) {
    action['description'] = op.description;
    action['dct:description'] = op.description;
  }
  if (op.version !== undefined) action['schema:softwareVersion'] = op.version;
  for (const key of ['input', 'output'] as const) {
    const schema = op[key];
    if (schema === undefined) continue;
    const written = toDataSchema(schema);
    action[key] = written.schema;
    if (written.dropped !== undefined) {
      losses.push({
        agent: agent.id,
        field: `operations[${op.name}].${key}`,
        message: `The ${key} schema of "${op.name}" was written as {} because TD data schemas cannot hold references and ${written.dropped}.`,
      });
    }
  }
  // TD defaults (safe: false, idempotent: false) written out; synchronous has no TD default, so we say it.
  action['safe'] = op.safe ?? false;
  action['idempotent'] = op.idempotent ?? false;
  action['synchronous'] = op.executionModel !== 'async';
  for (const term of OPERATION_TERMS) {
    const value = op[term.field];
    if (value !== undefined) action[agentryTerm(term.local)] = value as JsonValue;
  }
  if (op.revisionOf !== undefined) action['prov:wasRevisionOf'] = op.revisionOf;
  action['forms'] = writeActionForms({
    agentId: agent.id,
    op,
    bindings: agent.bindings,
    baseUrl: options.baseUrl,
    pointer,
    issues,
  });
  for (const [key, value] of Object.entries(op.extensions?.['td'] ?? {})) {
    if (key !== 'forms' && !Object.hasOwn(action, key)) setOwn(action, key, value);
  }
  return action;
}

/** The TD `id` (a URI): the agent's URL, else its id when that is a URI, else a URN minted from its id. */
function thingIdOf(agent: Agent): string {
  if (agent.url !== undefined && isUri(agent.url)) return agent.url;
  if (isUri(agent.id)) return agent.id;
  return syntheticThingId(agent.id);
}

const URI_SCHEME = /^[a-z][a-z0-9+.-]*:[^\s]*$/i;
function isUri(value: string): boolean {
  return URI_SCHEME.test(value) && URL.canParse(value);
}

function writeVersion(instance: string | undefined, stored: JsonValue | undefined): JsonValue | undefined {
  if (instance === undefined) return stored;
  return { ...(isObject(stored) ? stored : {}), instance };
}

/** Documentation and icon links first, then the other links the TD had. */
function writeLinks(agent: Agent, extension: JsonObject): JsonValue[] {
  const kept = listOf(extension['links']);
  const base = typeof extension['base'] === 'string' ? extension['base'] : undefined;
  const alreadyKept = (rel: string, url: string): boolean =>
    kept.some(
      (link) =>
        isObject(link) &&
        link['rel'] === rel &&
        typeof link['href'] === 'string' &&
        resolveUrl(link['href'], base) === url,
    );
  const links: JsonValue[] = [];
  if (agent.documentationUrl !== undefined && !alreadyKept('service-doc', agent.documentationUrl))
    links.push({ rel: 'service-doc', href: agent.documentationUrl });
  if (agent.iconUrl !== undefined && !alreadyKept('icon', agent.iconUrl))
    links.push({ rel: 'icon', href: agent.iconUrl });
  return [...links, ...kept];
}

function listOf(value: JsonValue | undefined): JsonValue[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * Values that change shape on the way into a TD — scope descriptions, alternative security requirements, bindings
 * serving several operations, schemas with references — are found by reading the document back: every such field
 * that does not survive is reported, so the loss report stays exact without predicting each case.
 */
function unexpectedLosses(
  agent: Agent,
  document: JsonObject,
  options: EmitOptions,
  known: readonly Loss[],
): Loss[] {
  // Read as served under the base URL, so that relative URLs the agent carried are seen to change on the way.
  const readOptions = options.baseUrl === undefined ? {} : { sourceUrl: options.baseUrl };
  const [back] = readThing(document, new IssueCollector(SPEC_NAME), readOptions, { validateSchema: false });
  const out: Loss[] = [];
  // A root `$schema` naming 2020-12 is left out of DataSchemas on purpose (see withoutDialect): not a loss.
  const compared: Agent = {
    ...agent,
    operations: agent.operations.map((op) => ({
      ...op,
      ...(op.input === undefined ? {} : { input: withoutDialect(op.input) }),
      ...(op.output === undefined ? {} : { output: withoutDialect(op.output) }),
    })),
  };
  for (const field of lostFields(compared, back)) {
    if (!SHAPE_SENSITIVE.test(field) || known.some((loss) => loss.field === field)) continue;
    out.push({ agent: agent.id, field, message: `${TITLE} cannot carry ${field} exactly as it is.` });
  }
  return out;
}

/** The carried fields whose values a TD may not hold exactly (see `unexpectedLosses`). */
const SHAPE_SENSITIVE =
  /^(id|url|documentationUrl|iconUrl|auth\.(schemes|security)|extensions\.td|bindings\.(http|other)|operations\[.*\]\.(input|output|extensions\.td))$/;
