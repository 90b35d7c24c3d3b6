/**
 * Node's `http` server for a host. A host made by `createHost` is routed straight from the `IncomingMessage` through
 * `host.fetch.answer` (the body read into bytes, bounded; the caller's abort signal made only when asked for) and
 * its answers written without a web `Response`; a `Host` whose `fetch` has no `answer` gets web-standard `Request`s
 * through its `fetch`. Streamed answers are
 * written as they are produced, so SSE and NDJSON chunks leave as soon as a handler yields them. Listens on a TCP
 * port or a unix socket, over HTTP or (with `tls`) HTTPS, or serves an `http.Server`/`https.Server` the caller made
 * (to know the port before the host is made).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Host } from '../host.js';
import { type Answer, answerOf, fieldValue } from '../http/answer.js';
import type { CallerInfo, RequestAnswerer } from '../http/host-request.js';
import { overUnixSocket } from '../http/unix-socket.js';
import { requestOriginPolicy } from '../policies/request-origin.js';
import { attachWebSocket, type WebSocketEndpoint } from '../transports/ws/server.js';
import { callerSignal, nodeHostRequest, toRequest } from './node-request.js';

export interface ServeNodeOptions {
  /** TCP port (default 0: any free port). Ignored with `path` or a listening `server`. */
  port?: number;
  /** Default `127.0.0.1`. */
  hostname?: string;
  /** Listen on this unix socket instead of TCP (what `agent+unix://` and `agent+local://` clients call). */
  path?: string;
  /** Serve on this server (http or https) instead of a new one; it is listened on unless it already is. */
  server?: Server;
  /** Serve HTTPS with this certificate (chain) and private key, PEM (on a new server; ignored with `server`). */
  tls?: TlsFiles;
}

export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface NodeServer {
  /** `http(s)://host:port`, or `unix:<path>` for a socket. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Puts a host on Node's HTTP server (HTTPS with `tls`, or a unix socket with `path`); WebSocket upgrades too when
 * the host advertises them.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { createHost, defineAgent } from '@agentry/host';
 * import { serveNode } from '@agentry/host/node';
 *
 * const echo = defineAgent({
 *   id: 'echo',
 *   name: 'Echo',
 *   description: 'Answers with its input.',
 *   operations: { echo: { description: 'Echo the input.', handler: (input) => input } },
 * });
 * const host = createHost({ agents: [echo], baseUrl: 'https://agents.example.com:8443' });
 * const server = await serveNode(host, {
 *   port: 8443,
 *   hostname: '0.0.0.0',
 *   tls: { cert: readFileSync('cert.pem'), key: readFileSync('key.pem') },
 * });
 * console.log(`serving at ${server.url}`); // https://0.0.0.0:8443
 * process.once('SIGTERM', () => void server.close().then(() => host.close()));
 * ```
 */
export async function serveNode(host: Host, options: ServeNodeOptions = {}): Promise<NodeServer> {
  const server = options.server ?? newServer(options.tls);
  server.on('request', nodeRequestListener(host));
  const webSocket: WebSocketEndpoint | undefined = host.webSocket
    ? attachWebSocket(server, host.runtime, {
        requestOrigins: requestOriginPolicy({
          baseUrl: host.baseUrl,
          allowedHosts: host.allowed.hosts,
          allowedOrigins: [...host.allowed.origins, ...host.webSocketOrigins],
        }),
      })
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

/** A plain HTTP server, or an HTTPS one with `tls`; Node's https.Server serves requests as an http.Server does. */
function newServer(tls: TlsFiles | undefined): Server {
  return tls === undefined
    ? createServer()
    : (createHttpsServer({ cert: tls.cert, key: tls.key }) as unknown as Server);
}

/** A `request` listener serving `host`, for servers set up by other means. */
export function nodeRequestListener(
  host: Host,
): (request: IncomingMessage, response: ServerResponse) => void {
  const direct = host.fetch.answer;
  if (direct === undefined) {
    return (incoming, outgoing) => {
      void handleWithFetch(host, incoming, outgoing);
    };
  }
  const origin = new URL(host.baseUrl).origin;
  return (incoming, outgoing) => {
    void handleDirectly(direct, origin, incoming, outgoing);
  };
}

/** A host's own answerer (`host.fetch.answer`): routed without a web Request or Response. */
async function handleDirectly(
  route: RequestAnswerer,
  origin: string,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  try {
    const request = nodeHostRequest(incoming, outgoing, origin);
    if (request === undefined) {
      badTarget(outgoing);
      return;
    }
    const answer = await route(request, callerOf(incoming));
    await writeAnswer(answer, outgoing, { close: !incoming.complete });
  } catch {
    failed(outgoing);
  }
}

/** Any other `Host` (one wrapping another app, say): through its web-standard `fetch`. */
async function handleWithFetch(
  host: Host,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  try {
    const request = toRequest(incoming, host.baseUrl, callerSignal(outgoing));
    if (request === undefined) {
      badTarget(outgoing);
      return;
    }
    const response = await host.fetch(request, callerOf(incoming));
    await writeResponse(response, outgoing, { close: !incoming.complete });
  } catch {
    failed(outgoing);
  }
}

function callerOf(incoming: IncomingMessage): CallerInfo {
  const address = incoming.socket.remoteAddress;
  if (address !== undefined) return { clientAddress: address };
  return overUnixSocket(incoming) ? { unixSocket: true } : {};
}

function badTarget(outgoing: ServerResponse): void {
  outgoing.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request target');
}

function failed(outgoing: ServerResponse): void {
  if (!outgoing.headersSent) outgoing.writeHead(500).end();
  else outgoing.destroy();
}

/** Writes a web-standard response to a Node response (see writeAnswer). */
export function writeResponse(
  response: Response,
  outgoing: ServerResponse,
  options: { close?: boolean } = {},
): Promise<void> {
  return writeAnswer(answerOf(response), outgoing, options);
}

/**
 * Writes an answer to a Node response: a whole body in one write with its length, a stream as it is produced
 * (with back-pressure), so SSE and NDJSON events leave as soon as a handler yields them. `close` ends the
 * connection afterwards: a request body left unread (refused as too large) would otherwise be read as the next
 * request on a kept-alive connection.
 */
export async function writeAnswer(
  answer: Answer,
  outgoing: ServerResponse,
  options: { close?: boolean } = {},
): Promise<void> {
  let body = answer.body;
  if (body instanceof ReadableStream && !isEventStream(fieldValue(answer.headers, 'content-type'))) {
    // Documents and JSON answers made as streams (MCP's) are whole when the handler returns.
    body = new Uint8Array(await new Response(body).arrayBuffer());
  }
  const whole = body !== null && !(body instanceof ReadableStream);
  // Node takes the fields as one flat list: names and values in turn, a repeated name sent as it repeats.
  const fields: string[] = [];
  for (const [name, value] of answer.headers) {
    if ((whole && name === 'content-length') || (options.close === true && name === 'connection')) continue;
    fields.push(name, value);
  }
  if (options.close === true) fields.push('connection', 'close');
  if (body === null) {
    outgoing.writeHead(answer.status, fields);
    outgoing.end();
    return;
  }
  if (!(body instanceof ReadableStream)) {
    fields.push(
      'content-length',
      String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength),
    );
    outgoing.writeHead(answer.status, fields);
    outgoing.end(body);
    return;
  }
  outgoing.writeHead(answer.status, fields);
  // Streams start at once, so that the first event is not held back by Node's buffering.
  outgoing.flushHeaders();
  await writeStream(body, outgoing);
}

async function writeStream(body: ReadableStream<Uint8Array>, outgoing: ServerResponse): Promise<void> {
  const reader = (body as unknown as NodeReadableStream<Uint8Array>).getReader();
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
function isEventStream(contentType: string | undefined): boolean {
  return contentType !== undefined && /^(text\/event-stream|application\/(x-)?ndjson)\b/i.test(contentType);
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
