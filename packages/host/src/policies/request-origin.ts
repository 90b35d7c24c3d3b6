/**
 * Which names a host answers to and which web pages may call it: the guard against DNS rebinding and cross-site
 * pages. A page can make its visitor's browser send requests to any address the browser reaches, a host on their
 * machine or intranet included: by rebinding its own name to that address (the browser then sends the page's
 * name as `Host`, and `Origin` equal to it), or by cross-site requests no preflight guards (a form post, a
 * WebSocket handshake). So the host answers only requests whose `Host` it knows, and only pages (`Origin`) of its
 * own origin or of origins it was told to allow. MCP's Streamable HTTP transport requires the `Origin` check
 * (403 for an invalid one).
 *
 * - `Host` (checked on every request, documents included): the base URL's host name, the loopback names
 *   (`localhost`, `127.0.0.1`, `[::1]`) when the base URL is a loopback or unspecified address, and
 *   `allowedHosts` (`agents.example.com` at any port, `agents.example.com:8443` at that port only, `*` any).
 *   A request without `Host` (HTTP/1.0) has no name to rebind and passes.
 * - `Origin` (checked on everything but reads of the public discovery documents, which any page may read): the
 *   base URL's origin; the origin the request was addressed to, under the base URL's scheme (the host's own page,
 *   reached by another allowed name); and `allowedOrigins` (`https://app.example`, `*` any). Scheme, name and
 *   port must all match: `http://x` is not `https://x`. A request without `Origin` comes from a program, not a
 *   page, and is judged on its `Host` alone; `Origin: null` (sandboxed frames, files) is refused.
 */
import type { Problem } from '../errors.js';
import { policyProblem } from './problems.js';

export interface RequestOriginOptions {
  /** The host's public base URL. */
  baseUrl: string;
  /** Host names (with an optional port) the `Host` header may carry besides the defaults; `*` allows any. */
  allowedHosts?: readonly string[];
  /** Origins (`https://app.example`) whose pages may call the host besides its own; `*` allows any. */
  allowedOrigins?: readonly string[];
}

export interface RequestOriginPolicy {
  /** The host names allowed, defaults included, as `name` or `name:port` (or `*`). */
  readonly hosts: readonly string[];
  /** The origins allowed besides the one a request is addressed to, defaults included (or `*`). */
  readonly origins: readonly string[];
  /** The refusal for a request carrying this `Host` (null: none sent), or undefined when it may proceed. */
  hostRefusal(host: string | null): Problem | undefined;
  /**
   * The refusal for a request from a page of this `Origin` (null: not from a page) addressed to `host` (already
   * allowed by hostRefusal), or undefined when it may proceed.
   */
  originRefusal(origin: string | null, host: string | null): Problem | undefined;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;
const LOCAL_HOSTNAMES = new Set<string>([...LOOPBACK_NAMES, '0.0.0.0', '[::]']);
/** `name` or `name:port`, where name is a DNS name, an IPv4 address or a bracketed IPv6 address. */
const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)\.?(?::(\d{1,5}))?$/;
/** How many distinct allowed `Host` values are remembered so that repeats skip parsing. */
const REMEMBERED_HOSTS = 64;

/** An `allowedHosts` entry in the form the policy compares (`name` or `name:port`, lower case), else undefined. */
export function hostEntry(text: string): string | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '*') return '*';
  const parsed = parseHost(trimmed);
  if (parsed === undefined) return undefined;
  return parsed.port === undefined ? parsed.name : `${parsed.name}:${parsed.port}`;
}

/** An `allowedOrigins` entry as an origin (`https://app.example:8443`), else undefined. */
export function originEntry(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '*') return '*';
  const url = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  if (url.pathname !== '/') return undefined;
  return url.origin;
}

export function requestOriginPolicy(options: RequestOriginOptions): RequestOriginPolicy {
  const base = new URL(options.baseUrl);
  const scheme = base.protocol;
  const defaultPort = scheme === 'https:' ? '443' : '80';
  const baseLocal = LOCAL_HOSTNAMES.has(base.hostname) || /^127\.\d+\.\d+\.\d+$/.test(base.hostname);
  const hosts = allowList(
    [hostEntry(base.hostname) ?? base.hostname, ...(baseLocal ? LOOPBACK_NAMES : [])],
    options.allowedHosts,
    { parse: hostEntry, option: 'allowedHosts', example: HOST_EXAMPLE },
  );
  const origins = allowList([base.origin], options.allowedOrigins, {
    parse: originEntry,
    option: 'allowedOrigins',
    example: ORIGIN_EXAMPLE,
  });
  // A `Host` is listed by its name (any port) or by `name:port`.
  const hostAllowed = remembering(
    matcher(hosts, (header) => {
      const parsed = parseHost(header.toLowerCase());
      return parsed === undefined ? [] : [parsed.name, `${parsed.name}:${parsed.port ?? defaultPort}`];
    }),
  );
  const originAllowed = matcher(origins, (origin) => {
    const page = pageOrigin(origin);
    return page === undefined ? [] : [page.origin];
  });

  return {
    hosts,
    origins,
    hostRefusal(host) {
      return host === null || hostAllowed(host) ? undefined : hostProblem(host);
    },
    originRefusal(origin, host) {
      if (origin === null || originAllowed(origin) || ownPage(origin, host, scheme, defaultPort))
        return undefined;
      return originProblem(origin);
    },
  };
}

/**
 * The check both headers get (a request without the header is not asked): `*` allows any value, else one of the
 * keys the value reads as must be listed.
 */
function matcher(
  entries: readonly string[],
  keysOf: (value: string) => readonly string[],
): (value: string) => boolean {
  const any = entries.includes('*');
  const listed = new Set(entries);
  return (value) => any || keysOf(value).some((key) => listed.has(key));
}

/** A matcher that remembers a few values it allowed, so that repeats (every request's `Host`) skip parsing. */
function remembering(allowed: (value: string) => boolean): (value: string) => boolean {
  const remembered = new Set<string>();
  return (value) => {
    if (remembered.has(value)) return true;
    const ok = allowed(value);
    if (ok && remembered.size < REMEMBERED_HOSTS) remembered.add(value);
    return ok;
  };
}

/** The defaults, then the configured entries read as the policy compares them; one that cannot be read stops the host. */
function allowList(
  defaults: readonly string[],
  configured: readonly string[] | undefined,
  reading: { parse: (text: string) => string | undefined; option: string; example: string },
): string[] {
  const entries = (configured ?? []).map((text) => {
    const entry = typeof text === 'string' ? reading.parse(text) : undefined;
    if (entry === undefined) {
      throw new TypeError(
        `${reading.option}: "${String(text)}" cannot be read; write it as ${reading.example}.`,
      );
    }
    return entry;
  });
  return [...new Set([...defaults, ...entries])];
}

/** The host's own page, reached by the (allowed) name this request is addressed to, under the base URL's scheme. */
function ownPage(origin: string, host: string | null, scheme: string, defaultPort: string): boolean {
  const page = pageOrigin(origin);
  return host !== null && page !== undefined && page.protocol === scheme && sameHost(page, host, defaultPort);
}

const HOST_EXAMPLE = 'agents.example.com or agents.example.com:8443, no scheme or path';
const ORIGIN_EXAMPLE = 'https://app.example.com, a scheme, a name and an optional port';

function parseHost(text: string): { name: string; port: string | undefined } | undefined {
  const match = HOST_PATTERN.exec(text);
  if (match === null) return undefined;
  const port = match[2];
  if (port !== undefined && Number(port) > 65535) return undefined;
  return { name: match[1]!, port: port === undefined ? undefined : String(Number(port)) };
}

function pageOrigin(text: string): URL | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/** Whether the page's name and port are the ones the request was addressed to. */
function sameHost(page: URL, host: string, defaultPort: string): boolean {
  const addressed = parseHost(host.toLowerCase());
  if (addressed === undefined) return false;
  const pagePort = page.port === '' ? (page.protocol === 'https:' ? '443' : '80') : page.port;
  return page.hostname === addressed.name && pagePort === (addressed.port ?? defaultPort);
}

function hostProblem(host: string): Problem {
  const shown = JSON.stringify(host.slice(0, 200));
  return policyProblem({
    status: 403,
    title: 'Forbidden',
    code: 'HostNotAllowed',
    detail:
      `This host does not answer to the name ${shown} (the request's Host), which guards it against DNS rebinding. ` +
      'If that is a name it is reached by, allow it: agentry host --allowed-host <name>, or allowedHosts in createHost.',
  });
}

function originProblem(origin: string): Problem {
  const shown = JSON.stringify(origin.slice(0, 200));
  return policyProblem({
    status: 403,
    title: 'Forbidden',
    code: 'OriginNotAllowed',
    detail:
      `Pages from ${shown} (the request's Origin) may not call this host. ` +
      'If they should, allow the origin: agentry host --allowed-origin <origin>, or allowedOrigins in createHost.',
  });
}
