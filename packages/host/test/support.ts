/**
 * Real loopback servers for the host tests: plain HTTP, or HTTPS with a throwaway certificate (WoA requires https
 * base URLs), each made before the host so that the host's base URL is the address it really listens on.
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureFetcher, type SecureFetcher } from '@agentry/client';
import { generate } from 'selfsigned';
import { createHost, type Host, type HostLogger, type HostOptions } from '../src/index.js';
import { serveNode } from '../src/node.js';

export interface LoggedEntry {
  level: 'error' | 'warn';
  message: string;
  details?: Record<string, unknown>;
}

/** A logger that keeps what it is told, so tests can check what was logged (and nothing reaches the console). */
export function memoryLogger(): HostLogger & { entries: LoggedEntry[] } {
  const entries: LoggedEntry[] = [];
  const record = (level: LoggedEntry['level']) => (message: string, details?: Record<string, unknown>) => {
    entries.push({ level, message, ...(details === undefined ? {} : { details }) });
  };
  return { entries, error: record('error'), warn: record('warn') };
}

export interface RunningHost {
  host: Host;
  url: string;
  fetcher: SecureFetcher;
  logger: ReturnType<typeof memoryLogger>;
  close(): Promise<void>;
}

let tls: Promise<{ key: string; cert: string }> | undefined;

/** A throwaway self-signed certificate for 127.0.0.1 and its key (PEM), made once per test process. */
export function tlsMaterial(): Promise<{ key: string; cert: string }> {
  tls ??= generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  }).then((pems) => ({ key: pems.private, cert: pems.cert }));
  return tls;
}

/** A host listening on loopback (`https: true` for TLS), with a client fetcher allowed to reach it. */
export async function startHost(
  options: Omit<HostOptions, 'baseUrl' | 'logger'> & { https?: boolean; basePath?: string },
): Promise<RunningHost> {
  const { https = false, basePath = '', ...hostOptions } = options;
  let server: Server;
  let fetcher: SecureFetcher;
  if (https) {
    const { key, cert } = await tlsMaterial();
    server = createHttpsServer({ key, cert }) as unknown as Server;
    fetcher = createSecureFetcher({ ca: cert, allowPrivateNetwork: true, cache: false });
  } else {
    server = createHttpServer();
    fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `${https ? 'https' : 'http'}://127.0.0.1:${port}${basePath}`;
  const logger = memoryLogger();
  const host = createHost({ ...hostOptions, baseUrl: url, logger });
  const node = await serveNode(host, { server });
  return {
    host,
    url,
    fetcher,
    logger,
    async close() {
      await host.close();
      await fetcher.close();
      await node.close();
    },
  };
}

/**
 * A `fetch` over node:http for plain-HTTP hosts, for what fetch cannot do: send the `Host` it is given (as a browser on
 * a rebound name does), and bind the client's socket to `localAddress` (127.0.0.2 is another client than 127.0.0.1).
 * Bodies are strings; the answer is read whole.
 */
export function nodeFetch(
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): typeof fetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = { ...Object.fromEntries(new Headers(init.headers).entries()), ...options.headers };
    const outgoing = httpRequest(url, {
      method: init.method ?? 'GET',
      headers,
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    });
    outgoing.end(typeof init.body === 'string' ? init.body : undefined);
    const [incoming] = (await once(outgoing, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const answerHeaders = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      for (const item of Array.isArray(value) ? value : [value ?? '']) answerHeaders.append(name, item);
    }
    const status = incoming.statusCode ?? 500;
    const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
    return new Response(body, { status, headers: answerHeaders });
  };
}

/** `fetch` against a host over plain HTTP (no TLS), for raw protocol checks. */
export async function request(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, init);
}

export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}
