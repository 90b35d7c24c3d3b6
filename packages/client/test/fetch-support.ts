/**
 * Real loopback servers for the fetcher tests: plain HTTP or HTTPS (a throwaway CA and a server certificate it signs,
 * made with `selfsigned`), each answering from a handler and recording every request and every TCP connection, and
 * a lookup function from a table, standing in for DNS so that test names resolve to chosen addresses.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generate } from 'selfsigned';
import type { LookupFunction } from '../src/fetch/types.js';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface LoopbackServer {
  readonly port: number;
  readonly host: string;
  /** `http://127.0.0.1:port` (or https, or `[::1]`). */
  readonly origin: string;
  readonly requests: SeenRequest[];
  /** TCP connections accepted, whether or not a request followed (a TLS handshake that fails still counts). */
  connections: number;
  close(): Promise<void>;
}

export interface TlsMaterial {
  /** The CA certificate (PEM) a client must trust. */
  readonly ca: string;
  readonly key: string;
  readonly cert: string;
}

/**
 * A CA and a server certificate it signs for `names` (DNS names) and `ips`; the CA is what a test passes as
 * `policy.ca`, so the chain is validated the way a real one is.
 */
export async function makeTlsMaterial(names: string[], ips: string[] = []): Promise<TlsMaterial> {
  const notAfterDate = new Date(Date.now() + 24 * 3600 * 1000);
  // Each CA gets its own name: OpenSSL picks an issuer by name, so two test CAs must not share one.
  const ca = await generate([{ name: 'commonName', value: `Agentry test CA ${randomUUID()}` }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: names[0] ?? ips[0] ?? 'test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { ca: ca.cert, key: server.private, cert: server.cert };
}

/** Starts a server on `host` (default 127.0.0.1), port `port` (default any free one). */
export async function startLoopback(
  handler: Handler,
  options: { tls?: TlsMaterial; host?: string; port?: number } = {},
): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    handler(request, response);
  };
  const server: Server =
    options.tls === undefined
      ? createHttpServer(listener)
      : createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener);
  const host = options.host ?? '127.0.0.1';
  const state = { connections: 0 };
  server.on('connection', (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that gives up mid-handshake shows up here; the test does not care.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls === undefined ? 'http' : 'https';
  const origin = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    port,
    host,
    origin,
    requests,
    get connections() {
      return state.connections;
    },
    set connections(value: number) {
      state.connections = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A lookup answering from a table; names not in it fail the way DNS does (ENOTFOUND). Counts its calls. */
export function tableLookup(table: Record<string, string[]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname.toLowerCase()];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return addresses.map((address) => ({
      address,
      family: address.includes(':') ? (6 as const) : (4 as const),
    }));
  };
  return Object.assign(lookup, { calls });
}

/** Answers with a body and headers. */
export function reply(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body = '',
): void {
  response.writeHead(status, headers);
  response.end(body);
}
