/**
 * Security schemes and requirements in both AgentCard shapes. v0.3 writes OpenAPI-style entries tagged by `type`;
 * v1.0 (proto JSON) wraps each entry in a one-of member such as `apiKeySecurityScheme`. Emitted entries carry both
 * side by side so that readers of either version find their fields.
 */
import { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject, jsonEqual, setOwn } from '../../json/values.js';
import type { JsonObject, JsonValue, SecurityRequirement, SecurityScheme } from '../../model/agent.js';
import { readFlows, writeFlows } from './oauth-flows.js';

/** The v0.3 `type` of a scheme, also the kind named by each v1.0 one-of member. */
type SchemeKind = 'apiKey' | 'http' | 'oauth2' | 'openIdConnect' | 'mutualTLS';

const MEMBER_KINDS: Readonly<Record<string, SchemeKind>> = {
  apiKeySecurityScheme: 'apiKey',
  httpAuthSecurityScheme: 'http',
  oauth2SecurityScheme: 'oauth2',
  openIdConnectSecurityScheme: 'openIdConnect',
  mtlsSecurityScheme: 'mutualTLS',
};
const MEMBER_KEYS = Object.keys(MEMBER_KINDS);
/** v1.0 sections of each one-of member (v0.3 describes them all in one section). */
const MEMBER_SECTIONS: Readonly<Record<string, string>> = {
  apiKeySecurityScheme: '§4.5.2',
  httpAuthSecurityScheme: '§4.5.3',
  oauth2SecurityScheme: '§4.5.4',
  openIdConnectSecurityScheme: '§4.5.5',
  mtlsSecurityScheme: '§4.5.6',
};
const KINDS: ReadonlySet<string> = new Set(Object.values(MEMBER_KINDS));

const ENTRY_FIELDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'in',
  'name',
  'scheme',
  'bearerFormat',
  'flows',
  'oauth2MetadataUrl',
  'openIdConnectUrl',
  ...MEMBER_KEYS,
]);
const MEMBER_FIELDS: Readonly<Record<SchemeKind, ReadonlySet<string>>> = {
  apiKey: new Set(['description', 'location', 'name']),
  http: new Set(['description', 'scheme', 'bearerFormat']),
  oauth2: new Set(['description', 'flows', 'oauth2MetadataUrl']),
  openIdConnect: new Set(['description', 'openIdConnectUrl']),
  mutualTLS: new Set(['description']),
};

const API_KEY_LOCATIONS: ReadonlySet<string> = new Set(['header', 'query', 'cookie']);

/** Reads one `securitySchemes` entry, in either shape (the v1.0 one-of member wins when both are present). */
export function readSecurityScheme(
  id: string,
  value: unknown,
  pointer: string,
  issues: IssueCollector,
  section: string,
): SecurityScheme | undefined {
  const entry = ObjectReader.of(value, pointer, issues, 'a2a', `Security scheme "${id}"`, section);
  if (entry === undefined) return undefined;
  const extension: JsonObject = entry.rest(ENTRY_FIELDS) ?? {};
  const members = MEMBER_KEYS.filter((key) => entry.has(key));
  if (members.length > 1) {
    issues.error(
      pointer,
      'a2a.security-scheme.one-of',
      `Security scheme "${id}" sets ${members.join(' and ')}; a SecurityScheme holds exactly one of them.`,
      section,
    );
  }
  let kind: SchemeKind;
  let fields: ObjectReader;
  let fieldSection = section;
  const memberKey = members[0];
  if (memberKey !== undefined) {
    fieldSection = MEMBER_SECTIONS[memberKey]!;
    const member = ObjectReader.of(
      entry.raw(memberKey),
      entry.at(memberKey),
      issues,
      'a2a',
      `"${memberKey}"`,
      fieldSection,
    );
    if (member === undefined) return undefined;
    kind = MEMBER_KINDS[memberKey]!;
    fields = member;
    const memberRest = member.rest(MEMBER_FIELDS[kind]);
    if (memberRest !== undefined) extension[memberKey] = memberRest;
  } else {
    const type = entry.string('type', { required: true });
    if (type === undefined) return undefined;
    if (!KINDS.has(type)) {
      issues.error(
        entry.at('type'),
        'a2a.security-scheme.type',
        `Security scheme "${id}" has type "${type}"; expected one of apiKey, http, oauth2, openIdConnect, mutualTLS.`,
        section,
      );
      return withExtension({ id, type: 'other', scheme: type }, extension);
    }
    kind = type as SchemeKind;
    fields = entry;
  }
  const required = { required: true as const, section: fieldSection };
  const description = fields.string('description');
  const scheme = readKind(kind, id, fields, memberKey !== undefined, extension, issues, required);
  if (description !== undefined) scheme.description = description;
  return withExtension(scheme, extension);
}

function readKind(
  kind: SchemeKind,
  id: string,
  fields: ObjectReader,
  isMember: boolean,
  extension: JsonObject,
  issues: IssueCollector,
  required: { required: true; section: string },
): SecurityScheme {
  switch (kind) {
    case 'apiKey': {
      const locationKey = isMember ? 'location' : 'in';
      const location = fields.string(locationKey, required);
      const name = fields.string('name', required);
      const scheme: SecurityScheme = { id, type: 'apiKey' };
      if (location !== undefined) {
        if (API_KEY_LOCATIONS.has(location)) scheme.in = location as 'header' | 'query' | 'cookie';
        else
          issues.error(
            fields.at(locationKey),
            'a2a.security-scheme.api-key-location',
            `API key location "${location}" is not one of header, query, cookie.`,
            required.section,
          );
      }
      if (name !== undefined) scheme.name = name;
      return scheme;
    }
    case 'http': {
      const httpScheme = fields.string('scheme', required);
      const bearerFormat = fields.string('bearerFormat');
      const lower = httpScheme?.toLowerCase();
      let scheme: SecurityScheme;
      if (lower === 'bearer') scheme = { id, type: 'bearer' };
      else if (lower === 'basic') scheme = { id, type: 'basic' };
      else {
        // An HTTP scheme the canonical model has no type for (Digest, ...): remembered as HTTP so it is written back.
        scheme = httpScheme === undefined ? { id, type: 'other' } : { id, type: 'other', scheme: httpScheme };
        extension['type'] = 'http';
      }
      if (bearerFormat !== undefined) scheme.bearerFormat = bearerFormat;
      return scheme;
    }
    case 'oauth2': {
      const scheme: SecurityScheme = { id, type: 'oauth2' };
      const flows = fields.child('flows', required);
      if (flows !== undefined) {
        const read = readFlows(flows, issues, required.section);
        Object.assign(scheme, read.fields);
        if (read.verbatim !== undefined) extension['flows'] = read.verbatim;
      }
      const metadataUrl = fields.string('oauth2MetadataUrl');
      if (metadataUrl !== undefined) extension['oauth2MetadataUrl'] = metadataUrl;
      return scheme;
    }
    case 'openIdConnect': {
      const scheme: SecurityScheme = { id, type: 'openIdConnect' };
      const url = fields.string('openIdConnectUrl', required);
      if (url !== undefined) scheme.openIdConnectUrl = url;
      return scheme;
    }
    case 'mutualTLS':
      return { id, type: 'mtls' };
  }
}

function withExtension(scheme: SecurityScheme, extension: JsonObject): SecurityScheme {
  if (Object.keys(extension).length > 0) scheme.extensions = { a2a: extension };
  return scheme;
}

/**
 * A `securitySchemes` entry readable by v0.3 and v1.0 clients, or undefined when A2A cannot express the scheme
 * (`none`, a non-HTTP `other`, an API key without its location).
 */
export function writeSecurityScheme(scheme: SecurityScheme): JsonObject | undefined {
  const extension = scheme.extensions?.['a2a'] ?? {};
  const { type: httpMarker, flows: verbatimFlows, oauth2MetadataUrl, ...rest } = extension;
  const description: JsonObject = scheme.description === undefined ? {} : { description: scheme.description };
  let kind: SchemeKind;
  let v03: JsonObject;
  let member: JsonObject;
  switch (scheme.type) {
    case 'apiKey':
      if (scheme.in === undefined || scheme.name === undefined) return undefined;
      kind = 'apiKey';
      v03 = { type: 'apiKey', in: scheme.in, name: scheme.name };
      member = { location: scheme.in, name: scheme.name };
      break;
    case 'bearer':
    case 'basic':
    case 'other': {
      const httpScheme =
        scheme.type === 'bearer' ? 'Bearer' : scheme.type === 'basic' ? 'Basic' : scheme.scheme;
      if (scheme.type === 'other' && (httpMarker !== 'http' || httpScheme === undefined)) return undefined;
      kind = 'http';
      const format: JsonObject =
        scheme.bearerFormat === undefined ? {} : { bearerFormat: scheme.bearerFormat };
      v03 = { type: 'http', scheme: httpScheme!, ...format };
      member = { scheme: httpScheme!, ...format };
      break;
    }
    case 'oauth2': {
      kind = 'oauth2';
      const flows = isObject(verbatimFlows) ? verbatimFlows : writeFlows(scheme);
      const metadata: JsonObject = typeof oauth2MetadataUrl === 'string' ? { oauth2MetadataUrl } : {};
      v03 = { type: 'oauth2', flows, ...metadata };
      member = { flows, ...metadata };
      break;
    }
    case 'openIdConnect':
      if (scheme.openIdConnectUrl === undefined) return undefined;
      kind = 'openIdConnect';
      v03 = { type: 'openIdConnect', openIdConnectUrl: scheme.openIdConnectUrl };
      member = { openIdConnectUrl: scheme.openIdConnectUrl };
      break;
    case 'mtls':
      kind = 'mutualTLS';
      v03 = { type: 'mutualTLS' };
      member = {};
      break;
    default:
      return undefined;
  }
  const memberKey = MEMBER_KEYS.find((key) => MEMBER_KINDS[key] === kind)!;
  const memberExtras = isObject(rest[memberKey]) ? rest[memberKey] : {};
  // Extras kept under another member's name would make the entry hold two one-of members.
  const entryExtras = Object.fromEntries(
    Object.entries(rest).filter(([key]) => !Object.hasOwn(MEMBER_KINDS, key)),
  );
  return {
    ...entryExtras,
    ...v03,
    ...description,
    [memberKey]: { ...memberExtras, ...description, ...member },
  };
}

/** True when writing `scheme` and reading it back gives the same canonical scheme. */
export function securitySchemeSurvives(scheme: SecurityScheme): boolean {
  const entry = writeSecurityScheme(scheme);
  if (entry === undefined) return false;
  const back = readSecurityScheme(scheme.id, entry, '', new IssueCollector('A2A'), '');
  return jsonEqual(back, scheme);
}

/**
 * Security requirements of a card or skill: v1.0 `securityRequirements` when present, else v0.3 `security`.
 * Undefined when neither is set.
 */
export function readSecurityRequirements(
  owner: ObjectReader,
  issues: IssueCollector,
  section: string,
): SecurityRequirement[] | undefined {
  if (owner.has('securityRequirements')) {
    const items = owner.array('securityRequirements', { section });
    if (items === undefined) return undefined;
    const out: SecurityRequirement[] = [];
    items.forEach((item, index) => {
      const requirement = ObjectReader.of(
        item,
        owner.at('securityRequirements') + `/${index}`,
        issues,
        'a2a',
        'A security requirement',
        section,
      );
      if (requirement === undefined) return;
      const schemes = requirement.child('schemes', { section });
      const read: SecurityRequirement = {};
      for (const [name, scopes] of Object.entries(schemes?.value ?? {})) {
        const list = ObjectReader.of(scopes, schemes!.at(name), issues, 'a2a', 'A scope list', section);
        setOwn(read, name, list?.stringArray('list', { section }) ?? []);
      }
      out.push(read);
    });
    return out;
  }
  if (!owner.has('security')) return undefined;
  const items = owner.array('security', { section });
  if (items === undefined) return undefined;
  const out: SecurityRequirement[] = [];
  items.forEach((item, index) => {
    const requirement = ObjectReader.of(
      item,
      owner.at('security') + `/${index}`,
      issues,
      'a2a',
      'A security requirement',
      section,
    );
    if (requirement === undefined) return;
    const read: SecurityRequirement = {};
    for (const name of Object.keys(requirement.value)) {
      setOwn(read, name, requirement.stringArray(name, { section }) ?? []);
    }
    out.push(read);
  });
  return out;
}

/** v0.3 `security`: `[{scheme: [scopes]}]`. */
export function writeV03Requirements(requirements: readonly SecurityRequirement[]): JsonValue[] {
  return requirements.map((requirement) => ({ ...requirement }));
}

/** v1.0 `securityRequirements`: `[{schemes: {scheme: {list: [scopes]}}}]`. */
export function writeV1Requirements(requirements: readonly SecurityRequirement[]): JsonValue[] {
  return requirements.map((requirement) => ({
    schemes: Object.fromEntries(
      Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }]),
    ),
  }));
}
