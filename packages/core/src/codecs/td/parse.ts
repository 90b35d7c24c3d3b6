/**
 * Reading a WoT Thing Description (or Thing Model) as one canonical agent. Any Thing reads: its actions become
 * operations, its forms bindings, its security the auth contract; an AgentCard's `agentry:` terms fill the rest.
 * What has no canonical place (properties, events, other links, unknown terms) is kept in `extensions.td`.
 */
import type { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { isObject, setOwn } from '../../json/values.js';
import type { Agent, JsonObject, JsonValue } from '../../model/agent.js';
import { encodeUriComponentSafe } from '../../uri-component.js';
import { TD_CONTEXTS } from '../../vocabulary.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { resolveUrl, slugify } from '../urls.js';
import { readActions } from './actions.js';
import { validateThingDescription } from './official-schema.js';
import { type ReadContext, SECTION } from './read-context.js';
import { readSecurity } from './security.js';
import { EMITTED_PREFIXES, TermResolver } from './terms.js';

/** Thing-level members the reader maps; everything else goes to `extensions.td`. */
const MAPPED_THING_MEMBERS = new Set([
  '@context',
  '@type',
  'id',
  'title',
  'description',
  'version',
  'links',
  'securityDefinitions',
  'security',
  'actions',
]);
const SYNTHETIC_ID_PREFIX = 'urn:agentry:agent:';

/** The TD `id` we write for an agent whose own id is not a URI. */
export function syntheticThingId(agentId: string): string {
  return SYNTHETIC_ID_PREFIX + encodeUriComponentSafe(agentId);
}

/** True when `document`'s `@context` names a WoT TD context. */
export function hasTdContext(document: unknown): boolean {
  if (!isObject(document)) return false;
  const context = document['@context'];
  if (typeof context === 'string') return TD_CONTEXTS.includes(context);
  return (
    Array.isArray(context) &&
    context.some((entry) => typeof entry === 'string' && TD_CONTEXTS.includes(entry))
  );
}

export interface ReadSettings {
  /** Run the official JSON Schema (off only when the emitter re-reads its own output to check its loss report). */
  validateSchema: boolean;
}

export function readThing(
  document: unknown,
  issues: IssueCollector,
  options: ParseOptions,
  settings: ReadSettings = { validateSchema: true },
): Agent[] {
  if (!isObject(document)) {
    issues.error('', 'td.type', 'A Thing Description must be a JSON object.', SECTION.thing);
    return [];
  }
  const terms = TermResolver.forContext(document['@context']);
  const types = typeList(document['@type']);
  const isModel = types.some((type) => typeof type === 'string' && terms.known(type)?.kind === 'thingModel');
  if (isModel) {
    issues.warning(
      '/@type',
      'td.thing-model',
      'This is a WoT Thing Model: a template for Thing Descriptions, not a description of a running Thing. It is read as an agent, but its URIs may be placeholders and the TD rules (and the TD JSON Schema) are not applied.',
      SECTION.thingModel,
    );
  } else if (settings.validateSchema) {
    for (const issue of validateThingDescription(document)) issues.add(issue);
  }

  const ctx: ReadContext = {
    issues,
    terms,
    isDescription: !isModel,
    reportShape: isModel || !settings.validateSchema,
    checkSecurityNames: false,
    schemeTypes: new Map(),
  };
  const base = baseOf(document, options, ctx);
  if (base !== undefined) ctx.base = base;

  const auth = readSecurity(document, ctx);
  const { operations, bindings } = readActions(document['actions'], ctx);

  const agentIdKey = Object.keys(document).find((key) => terms.known(key)?.kind === 'agentId');
  const agentId = agentIdKey === undefined ? undefined : document[agentIdKey];
  const thingId = stringOr(document['id']);
  const title = stringOr(document['title']);
  const id = typeof agentId === 'string' && agentId !== '' ? agentId : (thingId ?? slugify(title ?? 'thing'));

  const agent: Agent = {
    id,
    name: title ?? id,
    description: stringOr(document['description']) ?? '',
    operations,
    bindings,
  };
  if (thingId !== undefined && thingId !== id && thingId !== syntheticThingId(id)) agent.url = thingId;
  const extension: JsonObject = {};
  readVersion(document['version'], agent, extension);
  readLinks(document['links'], agent, extension, ctx);
  if (auth !== undefined) agent.auth = auth;

  const contextExtras = contextExtrasOf(document['@context']);
  if (contextExtras.length > 0) extension['@context'] = contextExtras;
  const typeExtras = types.filter(
    (type) => !(type === 'Thing' || (typeof type === 'string' && terms.known(type)?.kind === 'agentCard')),
  );
  if (typeExtras.length > 0) extension['@type'] = typeExtras;
  for (const key of Object.keys(document)) {
    if (MAPPED_THING_MEMBERS.has(key) || key === agentIdKey) continue;
    setOwn(extension, key, document[key]);
  }
  if (agentIdKey !== undefined && typeof agentId !== 'string') {
    issues.error(
      joinPointer('', agentIdKey),
      'td.term.type',
      `"${agentIdKey}" must be a string (the agent's id).`,
    );
  }
  if (Object.keys(extension).length > 0) agent.extensions = { td: extension };
  agent.provenance = nativeProvenance('td', options);
  return [agent];
}

/** The base for relative URIs: `base` resolved against the source URL, else the source URL. */
function baseOf(document: JsonObject, options: ParseOptions, ctx: ReadContext): string | undefined {
  const base = document['base'];
  if (typeof base === 'string') {
    const resolved = resolveUrl(base, options.sourceUrl);
    if (URL.canParse(resolved)) return resolved;
    if (ctx.isDescription)
      ctx.issues.warning(
        '/base',
        'td.base.unresolved',
        `"base" ${JSON.stringify(base)} is not an absolute URI and no source URL was given to resolve it against; relative form targets cannot be resolved.`,
        SECTION.thing,
      );
  }
  return options.sourceUrl;
}

function readVersion(version: JsonValue | undefined, agent: Agent, extension: JsonObject): void {
  if (!isObject(version)) {
    if (version !== undefined) extension['version'] = version;
    return;
  }
  const { instance, ...rest } = version;
  if (typeof instance === 'string') agent.version = instance;
  else if (instance !== undefined) rest['instance'] = instance;
  if (Object.keys(rest).length > 0) extension['version'] = rest;
}

/**
 * `service-doc` and `icon` links give the documentation and icon URLs (the first of each). Links with more than a
 * `rel` and an `href` stay in the extensions as well, so their other members (type, sizes...) are not lost.
 */
function readLinks(
  links: JsonValue | undefined,
  agent: Agent,
  extension: JsonObject,
  ctx: ReadContext,
): void {
  if (!Array.isArray(links)) {
    if (links !== undefined) extension['links'] = links;
    return;
  }
  const rest: JsonValue[] = [];
  for (const link of links) {
    const rel = isObject(link) ? link['rel'] : undefined;
    const href = isObject(link) ? link['href'] : undefined;
    const field =
      rel === 'service-doc' && agent.documentationUrl === undefined
        ? 'documentationUrl'
        : rel === 'icon' && agent.iconUrl === undefined
          ? 'iconUrl'
          : undefined;
    if (field === undefined || typeof href !== 'string') {
      rest.push(link);
      continue;
    }
    agent[field] = resolveUrl(href, ctx.base);
    if (Object.keys(link as JsonObject).some((key) => key !== 'rel' && key !== 'href')) rest.push(link);
  }
  if (rest.length > 0) extension['links'] = rest;
}

/** `@context` entries beyond the TD contexts and the prefixes we always write. */
function contextExtrasOf(context: JsonValue | undefined): JsonValue[] {
  const entries = Array.isArray(context) ? context : context === undefined ? [] : [context];
  const extras: JsonValue[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string' && TD_CONTEXTS.includes(entry)) continue;
    if (isObject(entry)) {
      const rest: JsonObject = {};
      for (const key of Object.keys(entry))
        if (!Object.hasOwn(EMITTED_PREFIXES, key)) setOwn(rest, key, entry[key]);
      if (Object.keys(rest).length > 0) extras.push(rest);
      continue;
    }
    extras.push(entry);
  }
  return extras;
}

function typeList(value: JsonValue | undefined): JsonValue[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function stringOr(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
