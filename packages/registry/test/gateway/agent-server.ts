/**
 * A real agent on loopback for the gateway tests: a node:http server speaking the WoA REST envelope (and plain
 * AIDIP JSON on other paths), recording every request, answering from a route table the test sets.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Agent } from '@agentry/core';
import { generate } from 'selfsigned';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type Answer = (request: ReceivedRequest, response: ServerResponse) => void;

export interface AgentServer {
  /** `http://127.0.0.1:<port>`, or `https://…` for a TLS server. */
  origin: string;
  /** For a TLS server: the test CA that signed its certificate (pass it as the fetcher's `ca`). */
  ca?: string;
  requests: ReceivedRequest[];
  /** Route by path; unknown paths answer 404. */
  routes: Map<string, Answer>;
  close(): Promise<void>;
}

/**
 * Starts the agent on 127.0.0.1. With `tls`, it speaks HTTPS with a certificate for 127.0.0.1 signed by a
 * throwaway CA: AIDIP endpoints must be https URLs, so a registered agent's endpoint has to be one.
 */
export async function startAgentServer(options: { tls?: boolean } = {}): Promise<AgentServer> {
  const requests: ReceivedRequest[] = [];
  const routes = new Map<string, Answer>();
  const listener = (incoming: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedRequest = {
        method: incoming.method ?? 'GET',
        path: new URL(incoming.url ?? '/', 'http://localhost').pathname,
        headers: incoming.headers,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(request);
      const answer = routes.get(request.path);
      if (answer === undefined)
        sendJson(response, 404, { error: { code: 'NotFound', message: 'No such path.' } });
      else answer(request, response);
    });
  };
  const material = options.tls === true ? await tlsMaterial() : undefined;
  const server = material === undefined ? createServer(listener) : createHttpsServer(material, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${material === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    ...(material === undefined ? {} : { ca: material.ca }),
    requests,
    routes,
    async close() {
      // Requests the tests leave hanging (timeouts) must not keep the server open.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A throwaway CA and a certificate it signs for 127.0.0.1 (other loopback HTTPS servers of the tests use it too). */
export async function tlsMaterial(): Promise<{ ca: string; key: string; cert: string }> {
  const notAfterDate = new Date(Date.now() + 24 * 3600 * 1000);
  const ca = await generate([{ name: 'commonName', value: `Registry test CA ${randomUUID()}` }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7 as const, ip: '127.0.0.1' }] },
    ],
  });
  return { ca: ca.cert, key: leaf.private, cert: leaf.cert };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** The WoA path the envelope is posted to for `agentId`. */
export const invokePath = (agentId: string): string => `/agents/${agentId}/invoke`;

/** A summarizer with a WoA REST binding at `origin`, built in code the way a registration normalises one. */
export function summarizerAgent(origin: string): Agent {
  return {
    id: 'summarizer',
    name: 'Summarizer',
    description: 'Summarizes text.',
    operations: [
      {
        name: 'summarize',
        input: {
          type: 'object',
          properties: { text: { type: 'string', minLength: 1 } },
          required: ['text'],
          additionalProperties: false,
        },
        output: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
      },
      { name: 'purge', description: 'Deletes every stored summary.', sensitivity: 'irreversible' },
    ],
    bindings: [{ kind: 'woa-rest', base: origin, invokePath: '/agents/{agent_id}/invoke' }],
  };
}
