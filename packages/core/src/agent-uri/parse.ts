/**
 * Parses `agent://` and `agent+<protocol>://` URIs (draft-narvaneni-agent-uri §4.2 over RFC 3986).
 *
 * The parser reads left to right and stops at the first problem, throwing an `AgentUriError` that names the part
 * (`scheme`, `protocol`, `authority`, `userinfo`, `host`, `port`, `path`, `query`, `fragment`) and the offset (a
 * JavaScript string index) of the first offending character. Beyond the ABNF it refuses what would make the URI
 * ambiguous to resolve: numeric hosts in non-dotted-decimal spellings, IPv6 zone identifiers, percent-encodings
 * that are not UTF-8, DIDs and ports where the transport has no network host.
 */
import { checkChars, FRAGMENT, PATH, percentDecode, QUERY, USERINFO } from './chars.js';
import { looksLikeDid, parseDid } from './did.js';
import { AgentUriError, describeChar } from './errors.js';
import { parseIpv6, parseName, parseNetworkHost } from './host.js';
import { decodeQuery } from './query.js';
import { AGENT_TRANSPORTS, type AgentAuthority, type AgentTransport, type AgentUri } from './types.js';
import { unixSocketAddress } from './unix.js';

export type AgentUriResult = { ok: true; uri: AgentUri } | { ok: false; error: AgentUriError };

/**
 * Parses an agent URI, or throws an `AgentUriError` saying which part is wrong and where.
 *
 * @example
 * ```ts
 * import { AgentUriError, parseAgentUri } from '@agentry/core';
 *
 * const uri = parseAgentUri('agent://planner.example.com/gen-iti?version=2');
 * console.log(uri.authority.host, uri.pathSegments, uri.query); // planner.example.com [ 'gen-iti' ] [ [ 'version', '2' ] ]
 * try {
 *   parseAgentUri('agent://planner.example.com:99999/');
 * } catch (error) {
 *   if (error instanceof AgentUriError) console.error(error.part, error.offset, error.message); // port, 28, ...
 * }
 * ```
 */
export function parseAgentUri(input: string): AgentUri {
  if (typeof input !== 'string') {
    throw new AgentUriError(
      `An agent URI must be a string, got ${typeof input}.`,
      'scheme',
      0,
      String(input),
    );
  }
  const { protocol, end: authorityStart } = parseScheme(input);
  const transport = toTransport(protocol);

  const authorityEnd = indexOfAny(input, '/?#', authorityStart);
  const pathEnd = indexOfAny(input, '?#', authorityEnd);
  const fragmentStart = input.indexOf('#', pathEnd);
  const queryEnd = fragmentStart < 0 ? input.length : fragmentStart;

  const authority = parseAuthority(
    input.slice(authorityStart, authorityEnd),
    authorityStart,
    input,
    transport,
  );

  const path = input.slice(authorityEnd, pathEnd);
  checkChars(path, authorityEnd, input, 'path', PATH);
  const uri: AgentUri = {
    supported: protocol === undefined || transport !== undefined,
    authority,
    path,
    pathSegments: decodeSegments(path, authorityEnd, input),
    query: [],
  };
  if (protocol !== undefined) uri.protocol = protocol;
  if (transport !== undefined) uri.transport = transport;

  if (input[pathEnd] === '?') {
    const queryString = input.slice(pathEnd + 1, queryEnd);
    checkChars(queryString, pathEnd + 1, input, 'query', QUERY);
    uri.queryString = queryString;
    uri.query = decodeQuery(queryString, pathEnd + 1, input);
  }
  if (fragmentStart >= 0) {
    const fragment = input.slice(fragmentStart + 1);
    checkChars(fragment, fragmentStart + 1, input, 'fragment', FRAGMENT);
    uri.fragment = percentDecode(fragment, fragmentStart + 1, input, 'fragment');
  }
  if (transport === 'unix') {
    // agent+unix:// has no userinfo or port, so the host is the whole authority.
    uri.unixSocket = unixSocketAddress(authority.host, authorityStart, path, authorityEnd, input);
  }
  return uri;
}

/** Parses without throwing: the URI, or the error `parseAgentUri` would have thrown. */
export function tryParseAgentUri(input: string): AgentUriResult {
  try {
    return { ok: true, uri: parseAgentUri(input) };
  } catch (error) {
    if (error instanceof AgentUriError) return { ok: false, error };
    throw error;
  }
}

/** True when `input` is a valid agent URI. */
export function isAgentUri(input: string): boolean {
  return tryParseAgentUri(input).ok;
}

/** True when `text` starts like an agent URI (`agent:` or `agent+...:`), valid or not: worth parsing as one. */
export function hasAgentScheme(text: string): boolean {
  return /^agent(\+[^:/?#]*)?:/i.test(text);
}

const SCHEME_TOKEN = /^[A-Za-z][A-Za-z0-9+.-]*/;
const PROTOCOL_CHARS = /^[A-Za-z0-9-]*/;

function parseScheme(input: string): { protocol: string | undefined; end: number } {
  if (input.slice(0, 5).toLowerCase() !== 'agent' || !/^[+:]/.test(input[5] ?? ':')) {
    throw notAgentScheme(input);
  }
  let colon = 5;
  let protocol: string | undefined;
  if (input[5] === '+') {
    protocol = PROTOCOL_CHARS.exec(input.slice(6))![0].toLowerCase();
    colon = 6 + protocol.length;
    if (input[colon] !== ':' && colon < input.length) {
      throw new AgentUriError(
        `${describeChar(String.fromCodePoint(input.codePointAt(colon)!))} at offset ${colon} is not allowed in the +protocol, which is letters, digits and '-' (§4.2).`,
        'protocol',
        colon,
        input,
      );
    }
    if (protocol === '') {
      throw new AgentUriError(
        "The '+' at offset 5 must be followed by a transport protocol (letters, digits, '-'), e.g. agent+https://.",
        'protocol',
        6,
        input,
      );
    }
  }
  const scheme = input.slice(0, colon);
  if (input[colon] !== ':') {
    throw new AgentUriError(
      `Expected ':' after the scheme '${scheme}' at offset ${colon}, found the end of the text.`,
      'scheme',
      colon,
      input,
    );
  }
  if (input[colon + 1] === '+') {
    throw new AgentUriError(
      `'agent:+<protocol>' at offset ${colon} is the draft's §12.1 template spelled literally; write the protocol before the colon, e.g. agent+https://.`,
      'scheme',
      colon + 1,
      input,
    );
  }
  if (input.slice(colon + 1, colon + 3) !== '//') {
    throw new AgentUriError(
      `Agent URIs have an authority: expected '//' after '${scheme}:' at offset ${colon + 1} (agent://<authority>/<path>).`,
      'scheme',
      colon + 1,
      input,
    );
  }
  return { protocol, end: colon + 3 };
}

function notAgentScheme(input: string): AgentUriError {
  if (input === '') {
    return new AgentUriError(
      'An agent URI cannot be empty (offset 0); write agent://<authority>/<path>.',
      'scheme',
      0,
      input,
    );
  }
  const token = SCHEME_TOKEN.exec(input)?.[0];
  if (token === undefined) {
    return new AgentUriError(
      `${describeChar(String.fromCodePoint(input.codePointAt(0)!))} at offset 0 cannot start an agent URI; it starts with 'agent://' or 'agent+<protocol>://'.`,
      'scheme',
      0,
      input,
    );
  }
  if (token.toLowerCase() === 'agent') {
    return new AgentUriError(
      `Expected ':' or '+<protocol>:' after 'agent' at offset 5, found ${describeChar(String.fromCodePoint(input.codePointAt(5)!))}.`,
      'scheme',
      5,
      input,
    );
  }
  return new AgentUriError(
    `The scheme '${token}' at offset 0 is not an agent URI scheme; expected 'agent://' or 'agent+<protocol>://'.`,
    'scheme',
    0,
    input,
  );
}

function toTransport(protocol: string | undefined): AgentTransport | undefined {
  return AGENT_TRANSPORTS.find((transport) => transport === protocol);
}

/** Hosts of transports that do not reach a network host (§6.1): a local agent name, a socket path. */
function isNameTransport(transport: AgentTransport | undefined): transport is 'local' | 'unix' {
  return transport === 'local' || transport === 'unix';
}

function parseAuthority(
  raw: string,
  offset: number,
  input: string,
  transport: AgentTransport | undefined,
): AgentAuthority {
  const at = raw.lastIndexOf('@');
  const userinfo = at >= 0 ? raw.slice(0, at) : undefined;
  if (userinfo !== undefined) {
    checkChars(userinfo, offset, input, 'userinfo', USERINFO);
    if (isNameTransport(transport)) {
      throw new AgentUriError(
        `agent+${transport}:// URIs have no userinfo ('@' at offset ${offset + at}).`,
        'userinfo',
        offset,
        input,
      );
    }
  }
  const hostPort = raw.slice(at + 1);
  const hostOffset = offset + at + 1;
  const authority = (fields: Omit<AgentAuthority, 'raw' | 'userinfo'>): AgentAuthority => ({
    raw,
    ...(userinfo !== undefined ? { userinfo } : {}),
    ...fields,
  });

  if (hostPort === '' && transport !== 'unix') {
    const what =
      transport === 'local' ? 'an agent name (agent+local://<name>)' : 'a host name, an IP address or a DID';
    throw new AgentUriError(
      `The authority at offset ${hostOffset} is empty; it needs ${what}.`,
      'authority',
      hostOffset,
      input,
    );
  }
  if (looksLikeDid(hostPort)) {
    if (transport === 'https' || transport === 'wss' || isNameTransport(transport)) {
      throw new AgentUriError(
        `agent+${transport}:// needs ${transport === 'local' ? 'an agent name' : transport === 'unix' ? 'a socket path' : 'a network host'}, not a DID (offset ${hostOffset}); DID authorities resolve through agent://.`,
        'authority',
        hostOffset,
        input,
      );
    }
    return authority({ host: hostPort, hostKind: 'did', did: parseDid(hostPort, hostOffset, input) });
  }

  let hostText: string;
  let portText: string | undefined;
  let portOffset = 0;
  let fields: Omit<AgentAuthority, 'raw' | 'userinfo'>;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) {
      throw new AgentUriError(
        `The '[' at offset ${hostOffset} opens an IPv6 literal that is never closed with ']'.`,
        'host',
        hostOffset,
        input,
      );
    }
    if (isNameTransport(transport)) {
      throw new AgentUriError(
        `agent+${transport}:// needs ${transport === 'local' ? 'an agent name' : 'a socket path'}, not an IP address (offset ${hostOffset}).`,
        'host',
        hostOffset,
        input,
      );
    }
    fields = { host: parseIpv6(hostPort.slice(1, close), hostOffset + 1, input), hostKind: 'ipv6' };
    const rest = hostPort.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) {
      throw new AgentUriError(
        `${describeChar(rest[0]!)} at offset ${hostOffset + close + 1} follows the IPv6 literal; expected ':' and a port, or the end of the authority.`,
        'host',
        hostOffset + close + 1,
        input,
      );
    }
    if (rest !== '') {
      portText = rest.slice(1);
      portOffset = hostOffset + close + 2;
    }
  } else {
    const colon = hostPort.indexOf(':');
    hostText = colon < 0 ? hostPort : hostPort.slice(0, colon);
    if (colon >= 0) {
      portText = hostPort.slice(colon + 1);
      portOffset = hostOffset + colon + 1;
    }
    fields = readHost(hostText, hostOffset, input, transport);
  }
  if (portText !== undefined) {
    const port = parsePort(portText, portOffset, input, transport);
    if (port !== undefined) fields = { ...fields, port };
  }
  return authority(fields);
}

function readHost(
  text: string,
  offset: number,
  input: string,
  transport: AgentTransport | undefined,
): Omit<AgentAuthority, 'raw' | 'userinfo'> {
  if (transport === 'unix') return { host: parseName(text, offset, input), hostKind: 'name' };
  if (transport === 'local') {
    const host = parseName(text, offset, input).toLowerCase();
    if (host === '') {
      throw new AgentUriError(
        `agent+local:// needs an agent name at offset ${offset} (agent+local://<name>).`,
        'host',
        offset,
        input,
      );
    }
    return { host, hostKind: 'name' };
  }
  if (text === '') {
    throw new AgentUriError(`There is no host before the port at offset ${offset}.`, 'host', offset, input);
  }
  const { host, kind } = parseNetworkHost(text, offset, input);
  return { host, hostKind: kind };
}

function parsePort(
  text: string,
  offset: number,
  input: string,
  transport: AgentTransport | undefined,
): number | undefined {
  if (isNameTransport(transport)) {
    throw new AgentUriError(
      `agent+${transport}:// URIs have no port (':' at offset ${offset - 1}).`,
      'port',
      offset - 1,
      input,
    );
  }
  for (let i = 0; i < text.length; i++) {
    if (!/^[0-9]$/.test(text[i]!)) {
      throw new AgentUriError(
        `${describeChar(String.fromCodePoint(text.codePointAt(i)!))} at offset ${offset + i} is not allowed in the port, which is decimal digits.`,
        'port',
        offset + i,
        input,
      );
    }
  }
  if (text === '') return undefined;
  const port = Number(text);
  if (port > 65535) {
    throw new AgentUriError(
      `The port ${text} at offset ${offset} is out of range (0–65535).`,
      'port',
      offset,
      input,
    );
  }
  return port;
}

function decodeSegments(path: string, offset: number, input: string): string[] {
  if (path === '') return [];
  const segments: string[] = [];
  let at = offset + 1;
  for (const segment of path.slice(1).split('/')) {
    segments.push(percentDecode(segment, at, input, 'path'));
    at += segment.length + 1;
  }
  return segments;
}

function indexOfAny(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return text.length;
}
