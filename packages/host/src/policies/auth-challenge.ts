/**
 * `WWW-Authenticate` challenges (RFC 9110 §11.6.1). Bearer follows RFC 6750 §3: `realm`, then `error`
 * (`invalid_request`, `invalid_token`, `insufficient_scope`) with `error_description`, and `scope` when scopes
 * are missing. API keys have no registered scheme; Agentry sends `ApiKey realm="…", header="X-API-Key"` so a
 * caller learns which header to fill.
 */

export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export interface BearerChallenge {
  realm: string;
  error?: BearerError;
  description?: string;
  scopes?: string[];
}

export function bearerChallenge(challenge: BearerChallenge): string {
  const params: [string, string][] = [['realm', challenge.realm]];
  if (challenge.error !== undefined) params.push(['error', challenge.error]);
  if (challenge.description !== undefined) params.push(['error_description', challenge.description]);
  if (challenge.scopes !== undefined && challenge.scopes.length > 0) {
    params.push(['scope', challenge.scopes.join(' ')]);
  }
  return `Bearer ${formatParams(params)}`;
}

export function apiKeyChallenge(realm: string, header: string): string {
  return `ApiKey ${formatParams([
    ['realm', realm],
    ['header', header],
  ])}`;
}

function formatParams(params: [string, string][]): string {
  return params.map(([name, value]) => `${name}=${quotedString(value)}`).join(', ');
}

/**
 * An RFC 9110 quoted-string. RFC 6750 limits `error_description` and `scope` to printable ASCII without `"` and
 * `\`, so anything else is replaced rather than escaped.
 */
function quotedString(value: string): string {
  return `"${value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')}"`;
}
