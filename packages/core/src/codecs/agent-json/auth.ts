/**
 * `authentication` of an agent:// descriptor. The draft names schemes by word (`"schemes": ["OAuth2"]`); where a
 * canonical scheme says more than its word (an API key's header, OAuth endpoints) or the agent has security
 * requirements, the full canonical objects ride along under our namespace (`agentry:schemes`, `agentry:security`),
 * so descriptors written by Agentry read back unchanged while other readers still see the words.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { copyJson, isObject, jsonEqual, setOwn } from '../../json/values.js';
import type {
  AuthContract,
  JsonObject,
  SecurityRequirement,
  SecurityScheme,
  SecuritySchemeType,
} from '../../model/agent.js';
import { slugify } from '../urls.js';

export const AGENTRY_SCHEMES = 'agentry:schemes';
export const AGENTRY_SECURITY = 'agentry:security';
const AUTHENTICATION_FIELDS: ReadonlySet<string> = new Set(['schemes', AGENTRY_SCHEMES, AGENTRY_SECURITY]);

/** Scheme words as publishers write them (lower-cased, separators dropped) → canonical type. */
const WORD_TYPES: Readonly<Record<string, SecuritySchemeType>> = {
  oauth2: 'oauth2',
  oauth: 'oauth2',
  bearer: 'bearer',
  jwt: 'bearer',
  apikey: 'apiKey',
  basic: 'basic',
  openidconnect: 'openIdConnect',
  oidc: 'openIdConnect',
  mtls: 'mtls',
  mutualtls: 'mtls',
  none: 'none',
};
/** The word written for each canonical type. */
const TYPE_WORDS: Readonly<Record<Exclude<SecuritySchemeType, 'other'>, string>> = {
  oauth2: 'OAuth2',
  bearer: 'Bearer',
  apiKey: 'ApiKey',
  basic: 'Basic',
  openIdConnect: 'OpenIdConnect',
  mtls: 'mTLS',
  none: 'None',
};
const SCHEME_TYPES: ReadonlySet<string> = new Set([...Object.keys(TYPE_WORDS), 'other']);

/** The canonical scheme a word names: `"ApiKey"` → `{id: "apikey", type: "apiKey"}`. */
export function schemeFromWord(word: string): SecurityScheme {
  const key = word.toLowerCase().replace(/[^a-z0-9]/g, '');
  const type = Object.hasOwn(WORD_TYPES, key) ? WORD_TYPES[key] : undefined;
  const id = slugify(word);
  if (type === undefined) return { id, type: 'other', scheme: word };
  if (key === 'jwt') return { id, type, bearerFormat: 'JWT' };
  return { id, type };
}

export function wordForScheme(scheme: SecurityScheme): string {
  if (scheme.type !== 'other' && Object.hasOwn(TYPE_WORDS, scheme.type)) return TYPE_WORDS[scheme.type];
  return scheme.scheme ?? scheme.id;
}

export function readAuthentication(
  descriptor: ObjectReader,
  issues: IssueCollector,
  extension: JsonObject,
): AuthContract | undefined {
  const authentication = descriptor.child('authentication');
  if (authentication === undefined) return undefined;
  const auth: AuthContract = {};
  const words = authentication.stringArray('schemes');
  if (words !== undefined) auth.schemes = words.map(schemeFromWord);
  const full = readAgentrySchemes(authentication, issues);
  if (full !== undefined) auth.schemes = full;
  const security = readAgentrySecurity(authentication, issues);
  if (security !== undefined) auth.security = security;
  const rest = authentication.rest(AUTHENTICATION_FIELDS);
  if (rest !== undefined) extension['authentication'] = rest;
  return Object.keys(auth).length > 0 ? auth : undefined;
}

function readAgentrySchemes(
  authentication: ObjectReader,
  issues: IssueCollector,
): SecurityScheme[] | undefined {
  const items = authentication.array(AGENTRY_SCHEMES);
  if (items === undefined) return undefined;
  const schemes: SecurityScheme[] = [];
  let valid = true;
  items.forEach((item, index) => {
    const pointer = `${authentication.at(AGENTRY_SCHEMES)}/${index}`;
    const scheme = ObjectReader.of(item, pointer, issues, 'agent-json', 'A security scheme', '§7');
    const id = scheme?.text('id', { required: true });
    const type = scheme?.string('type', { required: true });
    if (type !== undefined && !SCHEME_TYPES.has(type)) {
      issues.error(
        `${pointer}/type`,
        'agent-json.agentry-scheme.type',
        `Security scheme type "${type}" is not one of ${[...SCHEME_TYPES].join(', ')}.`,
        '§7',
      );
      valid = false;
    }
    if (scheme === undefined || id === undefined || type === undefined) valid = false;
    else schemes.push(copyJson(scheme.value) as unknown as SecurityScheme);
  });
  // A broken list is not trusted over the scheme words beside it.
  return valid ? schemes : undefined;
}

function readAgentrySecurity(
  authentication: ObjectReader,
  issues: IssueCollector,
): SecurityRequirement[] | undefined {
  const items = authentication.array(AGENTRY_SECURITY);
  if (items === undefined) return undefined;
  const requirements: SecurityRequirement[] = [];
  items.forEach((item, index) => {
    const requirement = ObjectReader.of(
      item,
      `${authentication.at(AGENTRY_SECURITY)}/${index}`,
      issues,
      'agent-json',
      'A security requirement',
      '§7',
    );
    if (requirement === undefined) return;
    const read: SecurityRequirement = {};
    for (const name of Object.keys(requirement.value))
      setOwn(read, name, requirement.stringArray(name) ?? []);
    requirements.push(read);
  });
  return requirements;
}

/** The `authentication` object, or undefined when the agent states no schemes or requirements. */
export function writeAuthentication(
  auth: AuthContract | undefined,
  extension: JsonObject,
): JsonObject | undefined {
  const extra = isObject(extension['authentication']) ? extension['authentication'] : undefined;
  if (auth?.schemes === undefined && auth?.security === undefined && extra === undefined) return undefined;
  const authentication: JsonObject = { ...(extra ?? {}) };
  if (auth?.schemes !== undefined) {
    const words = auth.schemes.map(wordForScheme);
    authentication['schemes'] = words;
    if (!jsonEqual(words.map(schemeFromWord), auth.schemes)) {
      authentication[AGENTRY_SCHEMES] = auth.schemes.map((scheme) => copyJson(scheme) ?? {});
    }
  }
  if (auth?.security !== undefined) {
    authentication[AGENTRY_SECURITY] = auth.security.map((requirement) => ({ ...requirement }));
  }
  return authentication;
}
