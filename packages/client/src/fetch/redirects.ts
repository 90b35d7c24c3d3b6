/**
 * What a redirect turns a request into (the rules `fetch` follows, WHATWG Fetch §4.4): 303 becomes GET (unless HEAD),
 * 301 and 302 turn POST into GET, 307 and 308 keep method and body; a request that becomes GET drops its body and the
 * fields describing it; credentials and cookies are not carried to another origin.
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
const CREDENTIAL_FIELDS = ['authorization', 'proxy-authorization', 'cookie'];

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** The request to send next, given the redirect status and its Location (resolved against the current URL). */
export function followRedirect(request: OutgoingRequest, status: number, location: string): OutgoingRequest {
  const url = parseUrl(location, request.url);
  // A Location without a fragment inherits the request's (RFC 9110 §10.2.2).
  if (url.hash === '' && request.url.hash !== '') url.hash = request.url.hash;
  const becomesGet =
    (status === 303 && request.method !== 'HEAD') ||
    ((status === 301 || status === 302) && request.method === 'POST');
  const headers: Record<string, string> = { ...request.headers };
  if (becomesGet) for (const name of BODY_FIELDS) delete headers[name];
  if (url.origin !== request.url.origin) for (const name of CREDENTIAL_FIELDS) delete headers[name];
  if (becomesGet || request.body === undefined)
    return { url, method: becomesGet ? 'GET' : request.method, headers };
  return { url, method: request.method, headers, body: request.body };
}

/** What identifies a step of a redirect chain for loop detection: method and URL without fragment. */
export function visitKey(request: OutgoingRequest): string {
  const { href } = request.url;
  const at = href.indexOf('#');
  return `${request.method} ${at === -1 ? href : href.slice(0, at)}`;
}
