/**
 * Real loopback servers for the invocation tests: an HTTP server (TCP on 127.0.0.1, or a unix socket) that records
 * every request and answers from a route table, and loading agents the way a client meets them: by fetching a
 * document a server serves and reading it with core's readDocumentText.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Agent, type JsonValue, readDocumentText } from '@agentry/core';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { SecureFetcher } from '../src/fetch/types.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Route = (
  request: RecordedRequest,
  response: ServerResponse,
  incoming: IncomingMessage,
) => void | Promise<void>;

export interface TestServer {
  /** `http://127.0.0.1:<port>`, or `http://localhost` for socket servers. */
  origin: string;
  socketPath?: string;
  requests: RecordedRequest[];
  /** Routes by `METHOD /path` (query excluded); `*` matches any path not listed. */
  routes: Map<string, Route>;
  /** Requests to `METHOD /path`. */
  hits(method: string, path: string): RecordedRequest[];
  server: Server;
  close(): Promise<void>;
}

export function loopbackFetcher(): SecureFetcher {
  return createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true });
}

export async function startServer(
  routes: Record<string, Route> = {},
  options: { socketPath?: string } = {},
): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const table = new Map(Object.entries(routes));
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const route = table.get(`${request.method} ${request.path}`) ?? table.get('*');
      if (route === undefined) {
        sendJson(
          response,
          404,
          { title: 'Not Found', status: 404, detail: `No route ${request.method} ${request.path}` },
          {
            'content-type': 'application/problem+json',
          },
        );
        return;
      }
      Promise.resolve(route(request, response, incoming)).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { title: String(error) });
        else response.destroy();
      });
    });
  });
  if (options.socketPath !== undefined) {
    await new Promise<void>((resolve) => server.listen(options.socketPath, resolve));
  } else {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }
  const address = server.address();
  const origin =
    typeof address === 'object' && address !== null
      ? `http://127.0.0.1:${(address as AddressInfo).port}`
      : 'http://localhost';
  const out: TestServer = {
    origin,
    requests,
    routes: table,
    hits: (method, path) => requests.filter((request) => request.method === method && request.path === path),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  if (options.socketPath !== undefined) out.socketPath = options.socketPath;
  return out;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  value: JsonValue,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(text);
}

export function jsonOf(request: RecordedRequest): unknown {
  return JSON.parse(request.body);
}

/** Serves `document` at `path` (as JSON). */
export function documentRoute(document: JsonValue): Route {
  return (_request, response) => sendJson(response, 200, document);
}

/**
 * Fetches a document from a server and reads it with core, as a resolver would. Issues about plain HTTP are the
 * price of loopback testing and are let through; any other error fails the test.
 */
export async function loadAgents(url: string): Promise<Agent[]> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `GET ${url}`);
  const result = readDocumentText(await response.text(), { sourceUrl: url });
  const errors = result.issues.filter((issue) => issue.severity === 'error' && !/https/i.test(issue.message));
  assert.deepEqual(errors, [], `${url} reads without errors`);
  return result.agents;
}

export async function loadAgent(url: string, id?: string): Promise<Agent> {
  const agents = await loadAgents(url);
  const agent = id === undefined ? agents[0] : agents.find((candidate) => candidate.id === id);
  assert.ok(agent, `${url} describes agent ${id ?? '(first)'}`);
  return agent;
}

/** A fresh directory under the system temp dir, removed by the returned function. */
export function tempDirectory(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Catches what `promise` rejects with, failing if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}
