/**
 * What the router reads of a request. `host.fetch` makes one from a web `Request`; the Node adapter makes one from
 * an `IncomingMessage` without building a `Request` (its body stream, its abort signal), which most routes never
 * need, and builds the `Request` only for a route that does (MCP).
 */
import type { Answer } from './answer.js';
import { type BodyText, readBodyText } from './body.js';

export interface HostRequest {
  readonly method: string;
  /** The URL's path, as `url.pathname` has it. */
  readonly pathname: string;
  /** The request URL, on the host's origin. */
  readonly url: URL;
  readonly headers: Headers;
  /** The name the caller addressed (`Host`, with its port), null when it sent none. */
  readonly authority: string | null;
  /**
   * The headers as a `Headers` the call may change (the envelope route adds what the envelope carries): the Node
   * adapter's own, else a copy of the web request's, whose headers are immutable.
   */
  ownHeaders(): Headers;
  /** Aborted when the caller goes away. */
  readonly signal: AbortSignal;
  /** The whole body as text, refused (413) past `limit` bytes; `''` for GET and HEAD. */
  text(limit: number): Promise<BodyText>;
  /** The same request as a web-standard `Request`, its body unread. */
  web(): Request;
}

/** What the server knows of the connection that the request does not carry. */
export interface CallerInfo {
  /** The caller's network address: anonymous callers are rate limited and keep idempotency keys by it. */
  clientAddress?: string;
  /** The request came over a unix socket, which no web page reaches: its `Host` and `Origin` are not checked. */
  unixSocket?: boolean;
}

/**
 * Answers the host's own view of a request, without a web `Request` or `Response`: the router, and the host's
 * handler the Node adapter calls directly (`host.fetch.answer`).
 */
export type RequestAnswerer = (request: HostRequest, caller: CallerInfo) => Promise<Answer>;

export function fromWebRequest(request: Request): HostRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    pathname: url.pathname,
    url,
    headers: request.headers,
    // A web request's URL is the one the caller addressed, unless the server put the Host it was sent beside it.
    authority: request.headers.get('host') ?? url.host,
    ownHeaders: () => new Headers(request.headers),
    signal: request.signal,
    text: (limit) => readBodyText(request, limit),
    web: () => request,
  };
}
