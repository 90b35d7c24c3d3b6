/**
 * The parts of an `agent://` URI (draft-narvaneni-agent-uri §4.2, over RFC 3986).
 *
 * Decoded values (`pathSegments`, `query`, `fragment`, a `name` host) are what a program compares and shows; the
 * encoded text (`path`, `queryString`, `authority.raw`) is what goes on the wire unchanged.
 */

/** The transports the draft's §6.1 names for `agent+<transport>://`. */
export const AGENT_TRANSPORTS = ['https', 'wss', 'local', 'unix', 'matrix'] as const;
export type AgentTransport = (typeof AGENT_TRANSPORTS)[number];

/**
 * What the host of an authority is:
 * - `dns`: a DNS name (lowercased in `host`);
 * - `ipv4`: a dotted-decimal IPv4 address;
 * - `ipv6`: an IPv6 literal (`host` without the brackets, lowercased);
 * - `did`: a Decentralized Identifier (`agent://did:web:example.com:agent:researcher/...`), case kept;
 * - `name`: not a network host — the agent name of `agent+local://name` (lowercased), or the socket path of
 *   `agent+unix://` (decoded, case kept; empty when the socket path is in the URI's path).
 */
export type HostKind = 'dns' | 'ipv4' | 'ipv6' | 'did' | 'name';

export interface Did {
  /** The DID method, e.g. `web`. */
  method: string;
  /** The method-specific identifier, colons included, as written (percent-encoding kept), e.g. `example.com:agent:researcher`. */
  id: string;
}

export interface AgentAuthority {
  /** The authority exactly as written. */
  raw: string;
  /** The userinfo as written (percent-encoded), without the `@`. */
  userinfo?: string;
  /** The host (see `HostKind` for its form). For a DID authority, the whole DID. */
  host: string;
  hostKind: HostKind;
  /** Absent when the URI has no port or an empty one (`host:`). */
  port?: number;
  did?: Did;
}

/** Where an `agent+unix://` URI's socket is, and the HTTP request path to send over it. */
export interface UnixSocketAddress {
  /** Filesystem path of the socket, decoded. */
  socketPath: string;
  /** The request path (percent-encoded as written), `/` when the URI names none. */
  requestPath: string;
}

export interface AgentUri {
  /** The `+<protocol>` token, lowercased; absent for plain `agent://`. */
  protocol?: string;
  /** `protocol` when it is one of the §6.1 transports; absent for plain `agent://` and for other tokens. */
  transport?: AgentTransport;
  /**
   * False when the URI names a `+protocol` the draft does not define (`agent+foo://`): it parses, and invocation
   * reports it as unsupported. True for `agent://` and the §6.1 transports (Agentry itself has no Matrix client;
   * resolution says so for `agent+matrix://`).
   */
  supported: boolean;
  authority: AgentAuthority;
  /** The path as written (percent-encoded): empty or starting with `/`. */
  path: string;
  /** The path's segments, decoded: `/a/b%20c` → `['a', 'b c']`, `/` → `['']`, empty path → `[]`. */
  pathSegments: string[];
  /**
   * The query as key/value pairs, decoded the way HTTP servers decode forms (`+` is a space), in order, repeated
   * keys kept. A piece without `=` has the value `''`; empty pieces (`a=1&&b=2`) are skipped.
   */
  query: Array<[string, string]>;
  /** The query as written (percent-encoded), without the `?`; absent when the URI has no `?`. */
  queryString?: string;
  /** The fragment, decoded; absent when the URI has no `#`. */
  fragment?: string;
  /** For `agent+unix://`: the socket and the request path (see docs/resolution.md, "agent+unix URIs"). */
  unixSocket?: UnixSocketAddress;
}

/**
 * What `formatAgentUri` writes from. An `AgentUri` is one; so is a hand-made object with just the pieces wanted.
 * Decoded pieces (`pathSegments`, `query`, `fragment`) are percent-encoded as needed; encoded ones (`path`,
 * `queryString`, `userinfo`) are written as given and must already be valid.
 */
export interface AgentUriParts {
  protocol?: string;
  transport?: AgentTransport;
  /** The authority as text (`example.com:8443`, a DID), or its pieces. */
  authority: string | AgentAuthorityParts;
  /** Decoded segments; used when present, else `path`. */
  pathSegments?: readonly string[];
  /** Encoded path (empty or starting with `/`). */
  path?: string;
  /** Decoded pairs; used when non-empty, else `queryString`. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** Encoded query, without the `?`. */
  queryString?: string;
  /** Decoded fragment. */
  fragment?: string;
}

export interface AgentAuthorityParts {
  /** Encoded userinfo. */
  userinfo?: string;
  /** A DNS name, an IPv4 address, an IPv6 address (with or without brackets), a DID, a local agent name or a socket path. */
  host: string;
  /**
   * Inferred when absent: `name` for agent+local and agent+unix, else a DID by its `did:` prefix, IPv6 by a colon,
   * otherwise a DNS name or IPv4 address written as is.
   */
  hostKind?: HostKind;
  port?: number;
}
