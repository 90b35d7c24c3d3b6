/** What kind of thing `resolve` was given. */
import { type AgentUri, AgentUriError, hasAgentScheme, parseAgentUri } from '@agentry/core';
import { InvalidTargetError } from './errors.js';

export type Target =
  /** `agent+<protocol>://`: a binding straight from the URI. */
  | { kind: 'transport'; uri: AgentUri }
  /** `agent://`: resolved through the documented order. */
  | { kind: 'agent-uri'; uri: AgentUri }
  /** `https://example.com` (no path, query or fragment): the site's documents. */
  | { kind: 'origin'; origin: string }
  /** Any other http(s) URL: the URL of one document. */
  | { kind: 'document'; url: URL };

export function classifyTarget(target: string): Target {
  if (hasAgentScheme(target)) {
    let uri: AgentUri;
    try {
      uri = parseAgentUri(target);
    } catch (error) {
      if (!(error instanceof AgentUriError)) throw error;
      throw new InvalidTargetError(`${target} is not a valid agent URI: ${error.message}`, target, error);
    }
    return uri.protocol === undefined ? { kind: 'agent-uri', uri } : { kind: 'transport', uri };
  }
  if (URL.canParse(target)) {
    const url = new URL(target);
    if (url.protocol === 'https:' || url.protocol === 'http:') {
      const bare = (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '';
      return bare ? { kind: 'origin', origin: url.origin } : { kind: 'document', url };
    }
    throw new InvalidTargetError(
      `${target} uses the scheme "${url.protocol.slice(0, -1)}"; resolve takes agent:// URIs, agent+<transport>:// URIs, and http(s) URLs or origins.`,
      target,
    );
  }
  const hint = /^[A-Za-z0-9.-]+(:\d+)?$/.test(target)
    ? ` Did you mean agent://${target} or https://${target}?`
    : '';
  throw new InvalidTargetError(`"${target}" is neither an agent URI nor an http(s) URL.${hint}`, target);
}
