/**
 * Syntax-based normalisation (RFC 3986 §6.2.2) of agent URIs, so that equivalent spellings compare equal:
 * lowercase scheme, protocol and host; uppercase percent-encoding hex; decode percent-encoded unreserved
 * characters; remove dot segments; drop an empty port. Two deliberate exceptions keep case where it carries
 * meaning: DID authorities (DID Core compares DIDs case-sensitively) and agent+unix socket paths (file names).
 */
import { normalizePercent } from './chars.js';
import { DID_DECODABLE } from './did.js';
import { formatAgentUri } from './format.js';
import { parseAgentUri } from './parse.js';
import type { AgentUri } from './types.js';
import { splitUnixPath } from './unix.js';

/** Normalises an agent URI (text, or parts from `parseAgentUri`). Throws `AgentUriError` when it is invalid. */
export function normalizeAgentUri(input: string | AgentUri): string {
  const text = typeof input === 'string' ? input : formatAgentUri(input);
  const uri = parseAgentUri(text);
  const { authority } = uri;
  let out = uri.protocol === undefined ? 'agent://' : `agent+${uri.protocol}://`;
  if (authority.userinfo !== undefined) out += `${normalizePercent(authority.userinfo)}@`;
  switch (authority.hostKind) {
    case 'ipv6':
      out += `[${authority.host}]`;
      break;
    case 'did':
      out += normalizePercent(authority.host, DID_DECODABLE);
      break;
    case 'name':
      // agent+local and agent+unix have neither userinfo nor port: the raw authority is the host as written.
      out +=
        uri.transport === 'unix'
          ? normalizePercent(authority.raw)
          : lowercaseOutsidePercent(normalizePercent(authority.raw));
      break;
    default:
      // DNS names and IPv4 addresses decode to unreserved characters only, so the parsed host is the normal form.
      out += authority.host;
  }
  if (authority.port !== undefined) out += `:${authority.port}`;
  out += normalizePath(uri);
  if (uri.queryString !== undefined) out += `?${normalizePercent(uri.queryString)}`;
  if (uri.fragment !== undefined) out += `#${normalizePercent(text.slice(text.indexOf('#') + 1))}`;
  return out;
}

/**
 * §6.2.2.2–3 on the path. An agent+unix socket named in the path is normalised apart from the request path after
 * it, so that `..` in the request cannot climb into the socket path, and a socket path is never reduced to nothing.
 */
function normalizePath(uri: AgentUri): string {
  const path = normalizePercent(uri.path);
  if (uri.unixSocket === undefined || uri.authority.host !== '') return removeDotSegments(path);
  const { socket, request } = splitUnixPath(uri.path);
  const socketPath = removeDotSegments(normalizePercent(socket));
  return (
    (socketPath === '' || socketPath === '/' ? normalizePercent(socket) : socketPath) +
    removeDotSegments(normalizePercent(request))
  );
}

/** RFC 3986 §5.2.4 remove_dot_segments. */
export function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next < 0 ? input : input.slice(0, next);
      output.push(segment);
      input = input.slice(segment.length);
    }
  }
  return output.join('');
}

/** Lowercases a string except the hex digits of its percent-encodings (which §6.2.2.1 wants uppercase). */
function lowercaseOutsidePercent(text: string): string {
  return text.replace(/%[0-9A-F]{2}|[^%]+/g, (piece) =>
    piece.startsWith('%') ? piece : piece.toLowerCase(),
  );
}
