/**
 * Node's `http` server for a host: requests become web-standard `Request`s (bodies streamed, not buffered; the
 * signal aborts when the caller goes away), and `Response`s are written back as they are produced, so SSE and
 * NDJSON chunks leave as soon as a handler yields them. Listens on a TCP port or a unix socket, or serves an
 * `http.Server`/`https.Server` the caller made (for TLS, or to know the port before the host is made).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Host } from '../host.js';
import { attachWebSocket, type WebSocketEndpoint } from '../ws/server.js';

export interface ServeNodeOptions {
  /** TCP port (default 0: any free port). Ignored with `path` or a listening `server`. */
  port?: number;
  /** Default `127.0.0.1`. */
  hostname?: string;
  /** Listen on this unix socket instead of TCP (what `agent+unix://` and `agent+local://` clients call). */
  path?: string;
  /** Serve on this server (http or https) instead of a new one; it is listened on unless it already is. */
  server?: Server;
}

export interface NodeServer {
  /** `http(s)://host:port`, or `unix:<path>` for a socket. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

export async function serveNode(host: Host, options: ServeNodeOptions = {}): Promise<NodeServer> {
  const server = options.server ?? createServer();
  server.on('request', nodeRequestListener(host));
  const webSocket: WebSocketEndpoint | undefined = host.webSocket
    ? attachWebSocket(server, host.runtime)
    : undefined;
  if (!server.listening) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const done = (): void => {
        server.off('error', reject);
        resolve();
      };
      if (options.path !== undefined) server.listen(options.path, done);
      else server.listen(options.port ?? 0, options.hostname ?? '127.0.0.1', done);
    });
  }
  return {
    url: urlOf(server),
    server,
    async close() {
      webSocket?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets and open streams would hold close() forever.
        server.closeAllConnections();
      });
    },
  };
}

/** A `request` listener serving `host`, for servers set up by other means. */
export function nodeRequestListener(
  host: Host,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (incoming, outgoing) => {
    void handle(host, incoming, outgoing);
  };
}

async function handle(host: Host, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const caller = new AbortController();
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) caller.abort(new Error('The caller closed the connection.'));
  });
  try {
    const request = toRequest(incoming, host.baseUrl, caller.signal);
    if (request === undefined) {
      outgoing.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request target');
      return;
    }
    const address = incoming.socket.remoteAddress;
    const response = await host.fetch(request, address === undefined ? {} : { clientAddress: address });
    await writeResponse(response, outgoing, { close: !incoming.complete });
  } catch {
    if (!outgoing.headersSent) outgoing.writeHead(500).end();
    else outgoing.destroy();
  }
}

/** The web-standard request for a Node request; undefined when its target is not a path. */
export function toRequest(
  incoming: IncomingMessage,
  baseUrl: string,
  signal?: AbortSignal,
  target: string = incoming.url ?? '/',
): Request | undefined {
  if (!target.startsWith('/')) return undefined;
  // The origin comes from the configured base URL: the Host header is the caller's to choose.
  const url = new URL(target, new URL(baseUrl).origin);
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // HTTP/2 pseudo-headers (`:path`) are not headers of the request.
    if (!raw[i]!.startsWith(':')) headers.append(raw[i]!, raw[i + 1]!);
  }
  const method = incoming.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (signal !== undefined) init.signal = signal;
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = bodyStream(incoming);
    init.duplex = 'half';
  }
  return new Request(url, init);
}

/**
 * The request body as a web stream, read only as fast as it is consumed. Cancelling it (a body refused as too
 * large) stops reading; the connection is then closed after the answer (see writeResponse).
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
        controller.error(new Error('The caller closed the connection before sending the whole body.'));
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

/**
 * Writes a web-standard response to a Node response, streaming its body with back-pressure. `close` ends the
 * connection afterwards: a request body left unread (refused as too large) would otherwise be read as the next
 * request on a kept-alive connection.
 */
export async function writeResponse(
  response: Response,
  outgoing: ServerResponse,
  options: { close?: boolean } = {},
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (options.close === true) headers['connection'] = 'close';
  if (response.body === null) {
    outgoing.writeHead(response.status, headers);
    outgoing.end();
    return;
  }
  if (!isStream(response)) {
    // Documents and JSON answers are whole when the handler returns: one write, with their length.
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.byteLength);
    outgoing.writeHead(response.status, headers);
    outgoing.end(body);
    return;
  }
  outgoing.writeHead(response.status, headers);
  // Streams start at once, so that the first event is not held back by Node's buffering.
  outgoing.flushHeaders();
  const reader = (response.body as unknown as NodeReadableStream<Uint8Array>).getReader();
  const stop = (): void => {
    void reader.cancel().catch(() => {});
  };
  outgoing.on('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (outgoing.destroyed) return;
      if (!outgoing.write(value)) {
        await new Promise<void>((resolve) => {
          const resume = (): void => {
            outgoing.off('drain', resume);
            outgoing.off('close', resume);
            resolve();
          };
          outgoing.on('drain', resume);
          outgoing.on('close', resume);
        });
      }
    }
    outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    outgoing.off('close', stop);
  }
}

/** Answers whose body is produced over time (SSE, NDJSON), written as it comes rather than whole. */
function isStream(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return /^(text\/event-stream|application\/(x-)?ndjson)\b/i.test(type);
}

function urlOf(server: Server): string {
  const address = server.address();
  if (typeof address === 'string') return `unix:${address}`;
  const { address: ip, port, family } = address as AddressInfo;
  const scheme = 'cert' in server || isTls(server) ? 'https' : 'http';
  const hostPart = family === 'IPv6' || ip.includes(':') ? `[${ip}]` : ip;
  return `${scheme}://${hostPart}:${port}`;
}

function isTls(server: Server): boolean {
  // https.Server is a tls.Server: it has the TLS context methods an http.Server lacks.
  return typeof (server as { setSecureContext?: unknown }).setSecureContext === 'function';
}
