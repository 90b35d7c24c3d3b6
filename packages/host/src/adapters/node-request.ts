/**
 * Node requests as the host reads them. `nodeHostRequest` is the router's view of an `IncomingMessage` without the
 * web machinery: the body is read straight into bytes (bounded), and the abort signal is made only when something
 * asks for it. `toRequest` makes the web-standard `Request` (body streamed, not buffered), for routes and handlers
 * that need one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodyText, declaresMoreThan, decodedBody, tooLarge } from '../http/body.js';
import type { HostRequest } from '../http/host-request.js';
import { incomingHeaders } from './incoming-headers.js';

const EMPTY_BODY: Promise<BodyText> = Promise.resolve({ ok: true, text: '' });

/** The router's view of a Node request; undefined when its target is not a path. */
export function nodeHostRequest(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  origin: string,
): HostRequest | undefined {
  const target = incoming.url ?? '/';
  return target.startsWith('/') ? new NodeHostRequest(incoming, outgoing, origin, target) : undefined;
}

/** A class rather than a literal with accessors: one is made per request, and its members cost nothing until read. */
class NodeHostRequest implements HostRequest {
  readonly method: string;
  readonly pathname: string;
  readonly headers: Headers;
  readonly #incoming: IncomingMessage;
  readonly #outgoing: ServerResponse;
  readonly #origin: string;
  readonly #target: string;
  #url: URL | undefined;
  #caller: AbortController | undefined;
  #web: Request | undefined;

  constructor(incoming: IncomingMessage, outgoing: ServerResponse, origin: string, target: string) {
    this.#incoming = incoming;
    this.#outgoing = outgoing;
    this.#origin = origin;
    this.#target = target;
    this.method = incoming.method ?? 'GET';
    this.headers = incomingHeaders(incoming.rawHeaders);
    this.pathname = plainPath(target) ?? this.url.pathname;
  }

  /** What the caller sent as `Host`; the URL's origin is the base URL's, not this. */
  get authority(): string | null {
    return this.headers.get('host');
  }

  get url(): URL {
    // The origin comes from the configured base URL: the Host header is the caller's to choose.
    this.#url ??= new URL(this.#target, this.#origin);
    return this.#url;
  }

  /** Aborts when the caller closes the connection before the answer is written; its listener is added on demand. */
  get signal(): AbortSignal {
    if (this.#caller === undefined) {
      const caller = new AbortController();
      this.#caller = caller;
      const outgoing = this.#outgoing;
      const abortUnlessAnswered = (): void => {
        if (!outgoing.writableFinished) caller.abort(new Error('The caller closed the connection.'));
      };
      if (outgoing.closed) abortUnlessAnswered();
      else outgoing.once('close', abortUnlessAnswered);
    }
    return this.#caller.signal;
  }

  /** Made for this request alone, so the call may change them. */
  ownHeaders(): Headers {
    return this.headers;
  }

  text(limit: number): Promise<BodyText> {
    return hasBody(this.method) ? readNodeBody(this.#incoming, limit) : EMPTY_BODY;
  }

  web(): Request {
    this.#web ??= webRequest(this.#incoming, this.url, this.method, this.headers, this.signal);
    return this.#web;
  }
}

/**
 * A request target the URL parser would leave as it is (no query, no escapes, no `.` or `..` segments, nothing it
 * would percent-encode, not `//`-relative), so that most requests are routed without parsing a URL; undefined for
 * any other.
 */
export function plainPath(target: string): string | undefined {
  if (!/^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/.test(target)) return undefined;
  return /(^|\/)\.{1,2}(\/|$)/.test(target) ? undefined : target;
}

/** The signal that aborts when the caller closes the connection before the answer is written. */
export function callerSignal(outgoing: ServerResponse): AbortSignal {
  const caller = new AbortController();
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) caller.abort(new Error('The caller closed the connection.'));
  });
  return caller.signal;
}

/** The web-standard request for a Node request; undefined when its target is not a path. */
export function toRequest(
  incoming: IncomingMessage,
  baseUrl: string,
  signal?: AbortSignal,
  target: string = incoming.url ?? '/',
): Request | undefined {
  if (!target.startsWith('/')) return undefined;
  const url = new URL(target, new URL(baseUrl).origin);
  return webRequest(incoming, url, incoming.method ?? 'GET', headersOf(incoming), signal);
}

function webRequest(
  incoming: IncomingMessage,
  url: URL,
  method: string,
  headers: Headers,
  signal: AbortSignal | undefined,
): Request {
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (signal !== undefined) init.signal = signal;
  if (hasBody(method)) {
    init.body = bodyStream(incoming);
    init.duplex = 'half';
  }
  return new Request(url, init);
}

function hasBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // HTTP/2 pseudo-headers (`:path`) are not headers of the request.
    if (!raw[i]!.startsWith(':')) headers.append(raw[i]!, raw[i + 1]!);
  }
  return headers;
}

/**
 * The whole body, refused past `limit`: by its declared length before anything is read, else the moment the bytes
 * pass it. A refused body is left unread; the connection is then closed after the answer (see writeAnswer).
 */
export function readNodeBody(incoming: IncomingMessage, limit: number): Promise<BodyText> {
  if (declaresMoreThan(incoming.headers['content-length'], limit)) {
    return Promise.resolve({ ok: false, problem: tooLarge(limit) });
  }
  // Reading starts after routing: a caller may already have gone, and its 'close' would not come again.
  if (incoming.destroyed) return Promise.reject(callerLeftMidBody());
  return new Promise<BodyText>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > limit) {
        detach();
        incoming.pause();
        resolve({ ok: false, problem: tooLarge(limit) });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      detach();
      resolve(decodedBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    };
    const onError = (error: Error): void => {
      detach();
      reject(error);
    };
    // A caller that goes away mid-body: the reader must not wait for the rest.
    const onClose = (): void => {
      detach();
      reject(callerLeftMidBody());
    };
    const detach = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

function callerLeftMidBody(): Error {
  return new Error('The caller closed the connection before sending the whole body.');
}

/**
 * The request body as a web stream, read only as fast as it is consumed. Cancelling it (a body refused as too
 * large) stops reading; the connection is then closed after the answer (see writeAnswer).
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      });
      incoming.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      incoming.once('error', (error) => {
        if (settled) return;
        settled = true;
        controller.error(error);
      });
      // A caller that goes away mid-body: the reader must not wait for the rest.
      incoming.once('close', () => {
        if (settled) return;
        settled = true;
        controller.error(callerLeftMidBody());
      });
      incoming.pause();
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      settled = true;
      incoming.pause();
    },
  });
}
