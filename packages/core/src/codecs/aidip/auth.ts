/**
 * AIDIP `authentication` (§3.1) ↔ the canonical auth contract. AIDIP names one mechanism; the canonical contract
 * names schemes and the requirements that use them, so one scheme named after the AIDIP type is used both ways.
 *
 * An endpoint that takes more than one credential (a registry's gateway: the registry's token and the agent's own
 * key) lists them in `credentials` beside `type`, each `{for?, type, in, name, required?, instructions?}` with the
 * header (or query parameter, or cookie) it goes in. They are read as one scheme each, all but those marked
 * `required: false` required together, so a client sends each where it goes; the list itself is kept as it was written, so it is written back unchanged.
 */
import type { ObjectReader } from '../../json/reader.js';
import { isObject, setOwn } from '../../json/values.js';
import type {
  AuthContract,
  JsonObject,
  JsonValue,
  SecurityRequirement,
  SecurityScheme,
  SecuritySchemeType,
} from '../../model/agent.js';
import { AUTHENTICATION_FIELDS, SECTION } from './fields.js';

const SCHEME_TYPES: Readonly<Record<string, SecuritySchemeType>> = {
  api_key: 'apiKey',
  oauth2_bearer: 'oauth2',
  mtls: 'mtls',
  none: 'none',
};

/** The canonical type an AIDIP type names; never an `Object.prototype` member (`toString`, `__proto__`). */
function schemeTypeOf(type: string): SecuritySchemeType | undefined {
  return Object.hasOwn(SCHEME_TYPES, type) ? SCHEME_TYPES[type] : undefined;
}

export interface Authentication {
  auth?: AuthContract;
  /** Fields of the object the canonical contract has no place for, kept in `extensions.aidip.authentication`. */
  extras?: JsonObject;
}

export function readAuthentication(reader: ObjectReader): Authentication {
  const type = reader.string('type');
  const instructions = reader.string('instructions');
  const scopes = reader.stringArray('scopes');
  const auth: AuthContract = {};
  let extras = reader.rest(AUTHENTICATION_FIELDS);
  if (type !== undefined) {
    const schemeType = schemeTypeOf(type);
    if (schemeType === undefined) {
      reader.issues.warning(
        reader.at('type'),
        'aidip.authentication.type',
        `Authentication type "${type}" is not one of "api_key", "oauth2_bearer", "mtls" or "none"; clients may not know how to authenticate.`,
        SECTION.core,
      );
    }
    const scheme: SecurityScheme =
      schemeType === undefined ? { id: type, type: 'other', scheme: type } : { id: type, type: schemeType };
    auth.schemes = [scheme];
    if (schemeType !== 'none') auth.security = [{ [type]: scopes ?? [] }];
  }
  if ((type === undefined || schemeTypeOf(type) === 'none') && scopes !== undefined) {
    // Scopes with no mechanism to attach them to stay as they were written.
    extras = { ...extras, scopes };
  }
  const listed = credentialSchemes(extras?.['credentials']);
  if (listed !== undefined) {
    auth.schemes = listed.schemes;
    auth.security = [listed.requirement];
  }
  if (instructions !== undefined) auth.instructions = instructions;
  const out: Authentication = {};
  if (Object.keys(auth).length > 0) out.auth = auth;
  if (extras !== undefined) out.extras = extras;
  return out;
}

/**
 * The schemes an Agentry `credentials` list names, and the requirement of those required; undefined unless every
 * entry says where its credential goes (`in` header, query or cookie, and a `name`).
 */
function credentialSchemes(
  value: JsonValue | undefined,
): { schemes: SecurityScheme[]; requirement: SecurityRequirement } | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const schemes: SecurityScheme[] = [];
  const requirement: SecurityRequirement = {};
  for (const [index, entry] of value.entries()) {
    if (!isObject(entry)) return undefined;
    const { name, in: place, type, instructions } = entry;
    if (typeof name !== 'string' || name === '') return undefined;
    if (place !== 'header' && place !== 'query' && place !== 'cookie') return undefined;
    const wanted =
      typeof entry['for'] === 'string' && entry['for'] !== '' ? entry['for'] : `credential-${index}`;
    const id = Object.hasOwn(requirement, wanted) ? `${wanted}-${index}` : wanted;
    // A bearer token in Authorization is the caller's bearer; any other credential is sent as it is given.
    const bearer = place === 'header' && name.toLowerCase() === 'authorization' && type === 'oauth2_bearer';
    const scheme: SecurityScheme = bearer ? { id, type: 'bearer' } : { id, type: 'apiKey', in: place, name };
    if (typeof instructions === 'string') scheme.description = instructions;
    schemes.push(scheme);
    // A credential marked `required: false` is one the caller may send; it is offered, not required.
    if (entry['required'] !== false) setOwn(requirement, id, []);
  }
  return { schemes, requirement };
}

/** The AIDIP `authentication` object for a canonical contract (plus extras kept from an earlier parse). */
export function writeAuthentication(
  auth: AuthContract | undefined,
  extras: JsonValue | undefined,
): JsonObject | undefined {
  const out: JsonObject = {};
  const requirement = auth?.security?.[0];
  const schemeId = requirement === undefined ? auth?.schemes?.[0]?.id : Object.keys(requirement)[0];
  if (schemeId !== undefined) {
    const scheme = auth?.schemes?.find((candidate) => candidate.id === schemeId);
    const type = scheme === undefined ? (schemeTypeOf(schemeId) ? schemeId : undefined) : aidipType(scheme);
    if (type !== undefined) {
      out['type'] = type;
      const scopes = requirement?.[schemeId];
      if (scopes !== undefined && scopes.length > 0 && schemeTypeOf(type) !== 'none')
        out['scopes'] = [...scopes];
    }
  }
  if (auth?.instructions !== undefined) out['instructions'] = auth.instructions;
  if (isObject(extras)) {
    for (const [key, value] of Object.entries(extras)) {
      if (!Object.hasOwn(out, key) && key !== 'type' && key !== 'instructions') setOwn(out, key, value);
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function aidipType(scheme: SecurityScheme): string {
  switch (scheme.type) {
    case 'apiKey':
      return 'api_key';
    // AIDIP has one bearer-token mechanism: OAuth 2.0 bearer tokens (§5.1 `Authorization: Bearer <token>`).
    case 'oauth2':
    case 'openIdConnect':
    case 'bearer':
      return 'oauth2_bearer';
    case 'mtls':
      return 'mtls';
    case 'none':
      return 'none';
    case 'basic':
      return 'basic';
    default:
      return scheme.scheme ?? scheme.id;
  }
}
