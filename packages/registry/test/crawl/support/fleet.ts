/**
 * A fleet of origins on one loopback server: virtual hosts told apart by the Host header, each answering from a
 * table of paths that tests can change between crawls. Names ending in `.test` resolve (through the fetcher's
 * injectable lookup) to 127.0.0.1, and the fetcher allows exactly that address and port, not loopback or private
 * addresses in general, so a redirect to 10.x or 169.254.x is refused as it would be in production.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureFetcher, type LookupFunction, type SecureFetcher } from '@agentry/client';

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** A handler that writes the answer itself (slow drips, huge bodies, conditional answers). */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** A reply, or a handler. */
export type Route = Reply | RouteHandler;

export interface Fleet {
  port: number;
  /** `http://<name>:<port>`. */
  origin(name: string): string;
  /** Sets (or, with undefined, removes) what `name` answers at `path`. */
  route(name: string, path: string, route: Route | undefined): void;
  /** Requests per host name: `METHOD path`. */
  requests(name: string): string[];
  /** Most requests a host ever had in flight at once. */
  maxInFlight(name: string): number;
  fetcher(options?: { timeoutMs?: number; maxResponseBytes?: number }): SecureFetcher;
  lookup: LookupFunction;
  close(): Promise<void>;
}

export async function startFleet(): Promise<Fleet> {
  const routes = new Map<string, Map<string, Route>>();
  const seen = new Map<string, string[]>();
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const name = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    seen.set(name, [...(seen.get(name) ?? []), `${request.method} ${path}`]);
    const now = (inFlight.get(name) ?? 0) + 1;
    inFlight.set(name, now);
    peak.set(name, Math.max(peak.get(name) ?? 0, now));
    response.on('close', () => inFlight.set(name, (inFlight.get(name) ?? 1) - 1));
    const route = routes.get(name)?.get(path);
    if (route === undefined) {
      response.writeHead(404, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify({ title: 'Not Found', status: 404 }));
      return;
    }
    if (typeof route === 'function') {
      route(request, response);
      return;
    }
    const body = route.text ?? (route.json === undefined ? '' : JSON.stringify(route.json));
    response.writeHead(route.status ?? 200, {
      'content-type': route.json === undefined ? 'text/plain' : 'application/json',
      ...route.headers,
    });
    response.end(body);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const lookup: LookupFunction = async (hostname) => {
    if (hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
    if (hostname.endsWith('.internal')) return [{ address: '10.0.0.7', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  const fetchers: SecureFetcher[] = [];
  return {
    port,
    origin: (name) => `http://${name}:${port}`,
    route(name, path, route) {
      const table = routes.get(name) ?? new Map<string, Route>();
      routes.set(name, table);
      if (route === undefined) table.delete(path);
      else table.set(path, route);
    },
    requests: (name) => seen.get(name) ?? [],
    maxInFlight: (name) => peak.get(name) ?? 0,
    fetcher(options = {}) {
      const fetcher = createSecureFetcher({
        allowHttp: true,
        allowAddresses: [`127.0.0.1:${port}`],
        lookup,
        cache: false,
        timeoutMs: options.timeoutMs ?? 2000,
        maxResponseBytes: options.maxResponseBytes ?? 1024 * 1024,
      });
      fetchers.push(fetcher);
      return fetcher;
    },
    lookup,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(fetchers.map((fetcher) => fetcher.close()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON reply with validators, answering 304 to a matching If-None-Match. */
export function cacheable(json: unknown, etag: string, maxAge = 300): RouteHandler {
  return (request, response) => {
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, { etag, 'cache-control': `max-age=${maxAge}` });
      response.end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      etag,
      'cache-control': `max-age=${maxAge}`,
    });
    response.end(JSON.stringify(json));
  };
}
