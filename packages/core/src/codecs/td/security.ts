/**
 * TD security (`securityDefinitions` + `security`) ↔ the canonical auth contract.
 *
 * TD names schemes once and lists, wherever security applies, the names that must ALL be satisfied; alternatives
 * need a `combo` scheme with `oneOf`. The canonical model lists alternatives, each naming the schemes (and OAuth
 * scopes) that together satisfy it. TD 1.1 has no OpenID Connect or mutual-TLS scheme and requires other schemes to
 * be prefixed, so those travel as `agentry:` scheme classes.
 */
import { joinPointer } from '../../json/pointer.js';
import { isObject, setOwn } from '../../json/values.js';
import type {
  AuthContract,
  JsonObject,
  JsonValue,
  SecurityRequirement,
  SecurityScheme,
} from '../../model/agent.js';
import { resolveUrl } from '../urls.js';
import { type ReadContext, SECTION, without } from './read-context.js';
import { agentryTerm, SECURITY_CLASSES, SECURITY_TERMS } from './terms.js';

/** Scheme names TD 1.1 defines; any other scheme name must be a prefixed (context-extension) term. */
const TD_SCHEMES = new Set([
  'nosec',
  'auto',
  'combo',
  'basic',
  'digest',
  'apikey',
  'bearer',
  'psk',
  'oauth2',
]);
const API_KEY_LOCATIONS = new Set(['header', 'query', 'cookie']);

// ---------------------------------------------------------------------------------------------------------------
// Reading

/** Reads `securityDefinitions` and the Thing-level `security`. */
export function readSecurity(thing: JsonObject, ctx: ReadContext): AuthContract | undefined {
  const schemes: SecurityScheme[] = [];
  const definitions = thing['securityDefinitions'];
  if (isObject(definitions)) {
    for (const [name, value] of Object.entries(definitions)) {
      const scheme = readScheme(name, value, joinPointer('/securityDefinitions', name), ctx);
      // A malformed definition still defines its name (the schema reports the malformation).
      ctx.schemeTypes.set(name, scheme?.type ?? 'other');
      if (scheme !== undefined) schemes.push(scheme);
    }
    if (ctx.isDescription) checkComboReferences(definitions, ctx);
  } else if (definitions !== undefined && ctx.reportShape) {
    ctx.issues.error(
      '/securityDefinitions',
      'td.type',
      '"securityDefinitions" must be an object.',
      SECTION.thing,
    );
  }
  // Without definitions there is nothing to check names against; the schema reports the missing member.
  ctx.checkSecurityNames = ctx.isDescription && isObject(definitions);
  const names = readSecurityNames(thing['security'], '/security', ctx);
  const auth: AuthContract = {};
  if (schemes.length > 0) auth.schemes = schemes;
  if (names !== undefined) auth.security = [requirementOf(names, [], ctx)];
  return auth.schemes === undefined && auth.security === undefined ? undefined : auth;
}

/**
 * The scheme names of a `security` member (a string or an array of strings), each checked against the
 * definitions. Undefined when the member is absent or unreadable.
 */
export function readSecurityNames(
  value: JsonValue | undefined,
  pointer: string,
  ctx: ReadContext,
): string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (list === undefined || !list.every((name): name is string => typeof name === 'string')) {
    if (ctx.reportShape)
      ctx.issues.error(
        pointer,
        'td.type',
        '"security" must be a scheme name or an array of them.',
        SECTION.thing,
      );
    return undefined;
  }
  if (ctx.checkSecurityNames) {
    list.forEach((name, index) => {
      if (ctx.schemeTypes.has(name)) return;
      ctx.issues.error(
        typeof value === 'string' ? pointer : joinPointer(pointer, index),
        'td.security.undefined',
        `Security scheme "${name}" is not defined in "securityDefinitions"; define it there or remove the reference.`,
        SECTION.security,
      );
    });
  }
  return list;
}

/** One requirement naming `names`; `scopes` go to the OAuth 2.0 schemes among them. */
export function requirementOf(
  names: readonly string[],
  scopes: readonly string[],
  ctx: ReadContext,
): SecurityRequirement {
  const requirement: SecurityRequirement = {};
  for (const name of names)
    setOwn(requirement, name, ctx.schemeTypes.get(name) === 'oauth2' ? [...scopes] : []);
  return requirement;
}

function readScheme(
  name: string,
  value: JsonValue,
  pointer: string,
  ctx: ReadContext,
): SecurityScheme | undefined {
  if (!isObject(value)) {
    if (ctx.reportShape)
      ctx.issues.error(pointer, 'td.type', 'A security scheme must be an object.', SECTION.security);
    return undefined;
  }
  // Members are taken out of `rest` as they are mapped; what remains goes to the scheme's extensions.
  const rest = new Members({ ...value });
  const schemeName = rest.takeString('scheme');
  const scheme: SecurityScheme = { id: name, type: 'other' };
  const description = rest.takeString('description');
  const known = schemeName === undefined ? undefined : ctx.terms.known(schemeName);
  // Our scheme classes are matched by IRI, so a document may bind our namespace to any prefix.
  switch (known?.kind === 'securityClass' ? `class:${known.type}` : schemeName) {
    case 'nosec':
      scheme.type = 'none';
      break;
    case 'apikey': {
      scheme.type = 'apiKey';
      const location = rest.get('in');
      if (typeof location === 'string' && API_KEY_LOCATIONS.has(location)) {
        scheme.in = location as 'header' | 'query' | 'cookie';
        rest.take('in');
      }
      const keyName = rest.takeString('name');
      if (keyName !== undefined) scheme.name = keyName;
      break;
    }
    case 'bearer': {
      scheme.type = 'bearer';
      const format = rest.takeString('format');
      if (format !== undefined) scheme.bearerFormat = format;
      break;
    }
    case 'basic':
      scheme.type = 'basic';
      break;
    case 'oauth2': {
      scheme.type = 'oauth2';
      const authorization = takeUrl(rest, 'authorization', ctx);
      const token = takeUrl(rest, 'token', ctx);
      const refresh = takeUrl(rest, 'refresh', ctx);
      if (authorization !== undefined) scheme.authorizationUrl = authorization;
      if (token !== undefined) scheme.tokenUrl = token;
      if (refresh !== undefined) scheme.refreshUrl = refresh;
      const scopes = scopeList(rest.get('scopes'));
      if (scopes !== undefined) {
        rest.take('scopes');
        // TD scopes are bare names; the canonical map's descriptions stay empty.
        scheme.scopes = Object.fromEntries(scopes.map((scope) => [scope, '']));
      }
      break;
    }
    case 'class:openIdConnect': {
      scheme.type = 'openIdConnect';
      const urlKey = rest.keys().find((key) => ctx.terms.known(key)?.kind === 'openIdConnectUrl');
      const url = urlKey === undefined ? undefined : takeUrl(rest, urlKey, ctx);
      if (url !== undefined) scheme.openIdConnectUrl = url;
      break;
    }
    case 'class:mtls':
      scheme.type = 'mtls';
      break;
    case 'class:other': {
      const nameKey = rest.keys().find((key) => ctx.terms.known(key)?.kind === 'schemeName');
      const original = nameKey === undefined ? undefined : rest.takeString(nameKey);
      if (original !== undefined) scheme.scheme = original;
      break;
    }
    default:
      // Other TD schemes (digest, psk, auto, combo) and context extensions keep their name; their members stay in
      // the extensions. A missing or non-string `scheme` stays there too (the schema reports it).
      if (schemeName !== undefined) scheme.scheme = schemeName;
  }
  if (description !== undefined) scheme.description = description;
  const remaining = rest.remaining();
  if (Object.keys(remaining).length > 0) scheme.extensions = { td: remaining };
  return scheme;
}

/**
 * A copy of a scheme's members, less those taken (mapped). Taking is recorded rather than done with `delete`, which
 * would turn the copy into a slow V8 dictionary; what remains is built once, at the end.
 */
class Members {
  private readonly taken: string[] = [];

  constructor(private readonly members: JsonObject) {}

  get(key: string): JsonValue | undefined {
    return this.taken.includes(key) ? undefined : this.members[key];
  }

  take(key: string): JsonValue | undefined {
    const found = this.get(key);
    this.taken.push(key);
    return found;
  }

  takeString(key: string): string | undefined {
    const found = this.get(key);
    if (typeof found !== 'string') return undefined;
    this.taken.push(key);
    return found;
  }

  /** The keys not taken, in order. */
  keys(): string[] {
    const keys = Object.keys(this.members);
    return this.taken.length === 0 ? keys : keys.filter((key) => !this.taken.includes(key));
  }

  /** The members not taken. */
  remaining(): JsonObject {
    return this.taken.length === 0 ? this.members : without(this.members, this.taken);
  }
}

/** A URI member, resolved against the TD's base. */
function takeUrl(rest: Members, key: string, ctx: ReadContext): string | undefined {
  const found = rest.takeString(key);
  return found === undefined ? undefined : resolveUrl(found, ctx.base);
}

function scopeList(value: JsonValue | undefined): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item): item is string => typeof item === 'string')) return value;
  return undefined;
}

/** TD 1.1 §5.3.3.4: a combo scheme's `oneOf`/`allOf` name other schemes defined in the same TD. */
function checkComboReferences(definitions: JsonObject, ctx: ReadContext): void {
  for (const [name, value] of Object.entries(definitions)) {
    if (!isObject(value) || value['scheme'] !== 'combo') continue;
    for (const key of ['oneOf', 'allOf']) {
      const list = value[key];
      if (!Array.isArray(list)) continue;
      list.forEach((item, index) => {
        if (typeof item !== 'string' || ctx.schemeTypes.has(item)) return;
        ctx.issues.error(
          joinPointer('/securityDefinitions', name, key, index),
          'td.security.undefined',
          `Combo scheme "${name}" names "${item}", which is not defined in "securityDefinitions".`,
          SECTION.combo,
        );
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

export interface WrittenSecurity {
  securityDefinitions: JsonObject;
  security: string[];
}

/** `securityDefinitions` and `security` for an agent's auth contract; a `nosec` scheme when it needs none. */
export function writeSecurity(auth: AuthContract | undefined): WrittenSecurity {
  const definitions: JsonObject = {};
  for (const scheme of auth?.schemes ?? []) {
    if (!Object.hasOwn(definitions, scheme.id)) setOwn(definitions, scheme.id, writeScheme(scheme));
  }
  const ids = Object.keys(definitions);
  const requirements =
    auth?.security ??
    (ids.length === 0 ? [] : ids.length === 1 ? [{ [ids[0]!]: [] }] : ids.map((id) => ({ [id]: [] })));
  const alternatives = requirements.map((requirement) =>
    Object.keys(requirement).filter((name) => Object.hasOwn(definitions, name)),
  );
  const uniqueName = (wanted: string): string => {
    let candidate = wanted;
    for (let n = 2; Object.hasOwn(definitions, candidate); n++) candidate = `${wanted}_${n}`;
    return candidate;
  };
  const nosec = (): string => {
    const existing = Object.keys(definitions).find(
      (id) => isObject(definitions[id]) && (definitions[id] as JsonObject)['scheme'] === 'nosec',
    );
    if (existing !== undefined) return existing;
    const name = uniqueName('nosec_sc');
    setOwn(definitions, name, { scheme: 'nosec' });
    return name;
  };
  const allOf = (names: string[]): string => {
    if (names.length === 0) return nosec();
    if (names.length === 1) return names[0]!;
    const name = uniqueName('combo_sc');
    setOwn(definitions, name, { scheme: 'combo', allOf: names });
    return name;
  };
  if (alternatives.length === 0) return { securityDefinitions: definitions, security: [nosec()] };
  if (alternatives.length === 1) {
    const names = alternatives[0]!;
    return { securityDefinitions: definitions, security: names.length === 0 ? [nosec()] : names };
  }
  const choices = [...new Set(alternatives.map(allOf))];
  if (choices.length === 1) return { securityDefinitions: definitions, security: choices };
  const name = uniqueName('combo_sc');
  setOwn(definitions, name, { scheme: 'combo', oneOf: choices });
  return { securityDefinitions: definitions, security: [name] };
}

function writeScheme(scheme: SecurityScheme): JsonObject {
  const out: JsonObject = { ...(scheme.extensions?.['td'] ?? {}) };
  switch (scheme.type) {
    case 'none':
      out['scheme'] = 'nosec';
      break;
    case 'apiKey':
      out['scheme'] = 'apikey';
      if (scheme.in !== undefined) out['in'] = scheme.in;
      if (scheme.name !== undefined) out['name'] = scheme.name;
      break;
    case 'bearer':
      out['scheme'] = 'bearer';
      if (scheme.bearerFormat !== undefined) out['format'] = scheme.bearerFormat;
      break;
    case 'basic':
      out['scheme'] = 'basic';
      break;
    case 'oauth2':
      out['scheme'] = 'oauth2';
      if (scheme.authorizationUrl !== undefined) out['authorization'] = scheme.authorizationUrl;
      if (scheme.tokenUrl !== undefined) out['token'] = scheme.tokenUrl;
      if (scheme.refreshUrl !== undefined) out['refresh'] = scheme.refreshUrl;
      if (scheme.scopes !== undefined) out['scopes'] = Object.keys(scheme.scopes);
      break;
    case 'openIdConnect':
      out['scheme'] = agentryTerm(SECURITY_CLASSES.openIdConnect);
      if (scheme.openIdConnectUrl !== undefined)
        out[agentryTerm(SECURITY_TERMS.openIdConnectUrl)] = scheme.openIdConnectUrl;
      break;
    case 'mtls':
      out['scheme'] = agentryTerm(SECURITY_CLASSES.mtls);
      break;
    default:
      if (scheme.scheme !== undefined && (TD_SCHEMES.has(scheme.scheme) || scheme.scheme.includes(':'))) {
        out['scheme'] = scheme.scheme;
      } else {
        out['scheme'] = agentryTerm(SECURITY_CLASSES.other);
        if (scheme.scheme !== undefined) out[agentryTerm(SECURITY_TERMS.schemeName)] = scheme.scheme;
      }
  }
  if (scheme.description !== undefined) out['description'] = scheme.description;
  return out;
}

/** A form's `security` and `scopes` for a binding's requirements (TD forms hold one requirement). */
export function writeFormSecurity(requirements: readonly SecurityRequirement[] | undefined): JsonObject {
  const first = requirements?.[0];
  if (first === undefined) return {};
  const names = Object.keys(first);
  if (names.length === 0) return {};
  const scopes = [...new Set(names.flatMap((name) => first[name] ?? []))];
  const out: JsonObject = { security: names };
  if (scopes.length > 0) out['scopes'] = scopes;
  return out;
}
