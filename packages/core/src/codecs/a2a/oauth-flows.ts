/**
 * OAuth 2.0 flows of an A2A `oauth2` scheme. The canonical scheme holds one flow's endpoints and scopes; when a card
 * declares more than that (several flows, PKCE, a device flow), the whole `flows` object is kept verbatim so that
 * it is written back unchanged.
 */
import type { IssueCollector } from '../../issues.js';
import type { ObjectReader } from '../../json/reader.js';
import { jsonEqual, setOwn } from '../../json/values.js';
import type { JsonObject, SecurityScheme } from '../../model/agent.js';

export type OAuthFields = Pick<SecurityScheme, 'authorizationUrl' | 'tokenUrl' | 'refreshUrl' | 'scopes'>;

/** Flow names in the order the canonical scheme prefers them, with the fields each requires. */
const FLOW_REQUIRED: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['authorizationCode', ['authorizationUrl', 'tokenUrl', 'scopes']],
  ['clientCredentials', ['tokenUrl', 'scopes']],
  ['deviceCode', ['deviceAuthorizationUrl', 'tokenUrl', 'scopes']],
  ['implicit', ['authorizationUrl', 'scopes']],
  ['password', ['tokenUrl', 'scopes']],
];
const FLOW_NAMES: ReadonlySet<string> = new Set(FLOW_REQUIRED.map(([name]) => name));

export interface ReadFlows {
  fields: OAuthFields;
  /** The `flows` object as given, when the canonical fields cannot reproduce it. */
  verbatim?: JsonObject;
}

export function readFlows(flows: ObjectReader, issues: IssueCollector, section: string): ReadFlows {
  const fields: OAuthFields = {};
  let chosen = false;
  for (const [name, required] of FLOW_REQUIRED) {
    if (!flows.has(name)) continue;
    const flow = flows.child(name, { section });
    if (flow === undefined) continue;
    for (const field of required) {
      if (field !== 'scopes') flow.string(field, { required: true, section });
    }
    const scopes = flow.child('scopes', { required: required.includes('scopes'), section });
    const scopeMap: Record<string, string> = {};
    for (const scope of Object.keys(scopes?.value ?? {})) {
      const text = scopes!.string(scope, { section });
      if (text !== undefined) setOwn(scopeMap, scope, text);
    }
    if (chosen) continue;
    chosen = true;
    for (const key of ['authorizationUrl', 'tokenUrl', 'refreshUrl'] as const) {
      const value = flow.string(key);
      if (value !== undefined) fields[key] = value;
    }
    if (Object.keys(scopeMap).length > 0) fields.scopes = scopeMap;
  }
  for (const name of Object.keys(flows.value)) {
    if (!FLOW_NAMES.has(name)) {
      issues.warning(
        flows.at(name),
        'a2a.oauth-flow.unknown',
        `"${name}" is not an OAuth flow A2A defines; it is kept as given.`,
        section,
      );
    }
  }
  const read: ReadFlows = { fields };
  if (!jsonEqual(writeFlows(fields), flows.value)) read.verbatim = flows.value;
  return read;
}

/** The one flow the canonical fields describe (authorization code, client credentials or implicit), or none. */
export function writeFlows(fields: OAuthFields): JsonObject {
  const { authorizationUrl, tokenUrl, refreshUrl } = fields;
  const tail: JsonObject = {};
  if (refreshUrl !== undefined) tail['refreshUrl'] = refreshUrl;
  tail['scopes'] = { ...(fields.scopes ?? {}) };
  if (authorizationUrl !== undefined && tokenUrl !== undefined)
    return { authorizationCode: { authorizationUrl, tokenUrl, ...tail } };
  if (tokenUrl !== undefined) return { clientCredentials: { tokenUrl, ...tail } };
  if (authorizationUrl !== undefined) return { implicit: { authorizationUrl, ...tail } };
  return {};
}
