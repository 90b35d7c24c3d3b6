/**
 * What a redirect turns a request into (the rules `fetch` follows, WHATWG Fetch §4.4): 303 becomes GET (unless HEAD),
 * 301 and 302 turn POST into GET, 307 and 308 keep method and body; a request that becomes GET drops its body and the
 * fields describing it. Credentials are not carried to another origin: on every hop whose scheme, host or port differs
 * from the hop before or from the first request, `Authorization`, `Proxy-Authorization`, `Cookie`, `X-API-Key` and every
 * header and query parameter the request names as a credential are dropped, from the headers and from the Location's
 * query too (a server that echoes its query into the Location would otherwise hand the key on). Once dropped they
 * stay dropped for the rest of the chain.
 */
import { parseUrl } from './target.js';

export interface OutgoingRequest {
  readonly url: URL;
  readonly method: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const BODY_FIELDS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];
/** Fields that carry credentials whatever the request says: fetch's three, and the common API-key header. */
const CREDENTIAL_FIELDS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];

/** What a chain's credentials are and whom they belong to. */
export interface ChainCredentials {
  /** The first request's origin: the one the credentials were given for. */
  readonly origin: string;
  /** Lower-case header names, beside CREDENTIAL_FIELDS. */
  readonly headers: readonly string[];
  /** Lower-case query parameter names. */
  readonly query: readonly string[];
}

export function chainCredentials(
  url: URL,
  named: { headers?: readonly string[]; query?: readonly string[] } = {},
): ChainCredentials {
  return {
    origin: url.origin,
    headers: (named.headers ?? []).map((name) => name.toLowerCase()),
    query: (named.query ?? []).map((name) => name.toLowerCase()),
  };
}

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** The request to send next, given the redirect status and its Location (resolved against the current URL). */
export function followRedirect(
  request: OutgoingRequest,
  status: number,
  location: string,
  credentials: ChainCredentials = chainCredentials(request.url),
): OutgoingRequest {
  const url = parseUrl(location, request.url);
  // A Location without a fragment inherits the request's (RFC 9110 §10.2.2).
  if (url.hash === '' && request.url.hash !== '') url.hash = request.url.hash;
  const becomesGet =
    (status === 303 && request.method !== 'HEAD') ||
    ((status === 301 || status === 302) && request.method === 'POST');
  const headers: Record<string, string> = { ...request.headers };
  if (becomesGet) for (const name of BODY_FIELDS) delete headers[name];
  if (url.origin !== request.url.origin || url.origin !== credentials.origin) {
    for (const name of CREDENTIAL_FIELDS) delete headers[name];
    for (const name of credentials.headers) delete headers[name];
    dropQueryCredentials(url, credentials.query);
  }
  if (becomesGet || request.body === undefined)
    return { url, method: becomesGet ? 'GET' : request.method, headers };
  return { url, method: request.method, headers, body: request.body };
}

/**
 * The headers without any credential: the fields that always carry one and the `named` ones (compared without
 * case). For requests to another origin that are not redirects, such as a task's poll URL on another origin.
 */
export function withoutCredentials(
  headers: Readonly<Record<string, string>>,
  named: readonly string[],
): Record<string, string> {
  const drop = new Set([...CREDENTIAL_FIELDS, ...named.map((name) => name.toLowerCase())]);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!drop.has(name.toLowerCase())) out[name] = value;
  return out;
}

/** Removes the named parameters (compared without case) from the URL's query. */
export function dropQueryCredentials(url: URL, names: readonly string[]): void {
  if (names.length === 0 || url.search === '') return;
  const present = [...new Set(url.searchParams.keys())];
  for (const name of present) if (names.includes(name.toLowerCase())) url.searchParams.delete(name);
}

/** What identifies a step of a redirect chain for loop detection: method and URL without fragment. */
export function visitKey(request: OutgoingRequest): string {
  const { href } = request.url;
  const at = href.indexOf('#');
  return `${request.method} ${at === -1 ? href : href.slice(0, at)}`;
}
