/**
 * Real loopback HTTP servers for the resolution tests: each serves a table of documents by path and records every
 * request, so tests can check both what was resolved and what was asked for, in which order.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { SecureFetcher } from '../src/fetch/types.js';

export interface Reply {
  status?: number;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (for invalid documents). */
  text?: string;
  headers?: Record<string, string>;
}

/** A reply, or a function of the request's URL making one. */
export type Route = Reply | ((url: URL) => Reply);

export interface Site {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** `127.0.0.1:<port>`. */
  host: string;
  port: number;
  /** Paths (with query) asked for, in order. */
  requests: string[];
  routes: Map<string, Route>;
  server: Server;
  close(): Promise<void>;
}

/** Starts a server answering each path of `routes`; any other path is a 404 problem+json. */
export async function startSite(routes: Record<string, Route> = {}): Promise<Site> {
  const table = new Map(Object.entries(routes));
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(url.pathname + url.search);
    const route = table.get(url.pathname);
    const reply: Reply =
      route === undefined
        ? { status: 404, json: { type: 'about:blank', title: 'Not Found', status: 404 } }
        : typeof route === 'function'
          ? route(url)
          : route;
    const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    response.writeHead(reply.status ?? 200, {
      'content-type': reply.json === undefined ? 'text/plain' : 'application/json',
      ...reply.headers,
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    port,
    requests,
    routes: table,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A fetcher allowed to reach the loopback test servers over plain HTTP. */
export function loopbackFetcher(): SecureFetcher {
  return createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
}

/** Resolve options for loopback servers: plain HTTP for agent:// authorities and did:web. */
export function loopbackOptions(fetcher: SecureFetcher = loopbackFetcher()) {
  return { fetcher, scheme: 'http' as const };
}

/** A document of the shared corpora, parsed. */
export function corpusJson(...parts: string[]): unknown {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../../../../shared/corpora', ...parts), 'utf8'));
}

/** An example document of this repository, parsed. */
export function exampleJson(name: string): unknown {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../../../examples/documents', name), 'utf8'));
}

/** A temporary directory, removed by the returned function. */
export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-resolve-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
