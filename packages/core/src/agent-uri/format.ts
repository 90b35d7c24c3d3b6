/** Writes agent URIs from their parts (the inverse of `parseAgentUri` on every decoded field). */

import { FRAGMENT, PCHAR, percentEncode, REG_NAME } from './chars.js';
import { AgentUriError } from './errors.js';
import { parseAgentUri } from './parse.js';
import { encodeQuery } from './query.js';
import type { AgentAuthorityParts, AgentUriParts, HostKind } from './types.js';

/**
 * Writes `parts` as an agent URI. Decoded pieces are percent-encoded where needed; the result is checked by
 * parsing it, so parts that cannot make a valid URI (a bad host, a port out of range) throw an `AgentUriError`
 * naming the part.
 */
export function formatAgentUri(parts: AgentUriParts): string {
  const protocol = parts.protocol ?? parts.transport;
  let text = protocol === undefined ? 'agent://' : `agent+${protocol}://`;
  text += typeof parts.authority === 'string' ? parts.authority : formatAuthority(parts.authority, protocol);
  if (parts.pathSegments !== undefined) {
    text += parts.pathSegments.map((segment) => `/${percentEncode(segment, PCHAR)}`).join('');
  } else if (parts.path !== undefined && parts.path !== '') {
    if (!parts.path.startsWith('/')) {
      throw new AgentUriError(
        `The path '${parts.path}' must be empty or start with '/' (offset ${text.length}).`,
        'path',
        text.length,
        text + parts.path,
      );
    }
    text += parts.path;
  }
  if (parts.query !== undefined && parts.query.length > 0) text += `?${encodeQuery(parts.query)}`;
  else if (parts.queryString !== undefined) text += `?${parts.queryString}`;
  if (parts.fragment !== undefined) text += `#${percentEncode(parts.fragment, FRAGMENT)}`;
  parseAgentUri(text);
  return text;
}

function formatAuthority(authority: AgentAuthorityParts, protocol: string | undefined): string {
  let text = authority.userinfo !== undefined ? `${authority.userinfo}@` : '';
  const kind = authority.hostKind ?? inferHostKind(authority.host, protocol);
  switch (kind) {
    case 'ipv6':
      text += authority.host.startsWith('[') ? authority.host : `[${authority.host}]`;
      break;
    case 'name':
      text += percentEncode(authority.host, REG_NAME);
      break;
    default:
      text += authority.host;
  }
  if (authority.port !== undefined) text += `:${authority.port}`;
  return text;
}

function inferHostKind(host: string, protocol: string | undefined): HostKind {
  if (protocol === 'local' || protocol === 'unix') return 'name';
  if (host.startsWith('did:')) return 'did';
  if (host.startsWith('[') || host.includes(':')) return 'ipv6';
  return 'dns';
}
