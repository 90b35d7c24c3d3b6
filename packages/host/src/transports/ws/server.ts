/**
 * Agentry's WebSocket binding (`agent+wss://`, NDJSON messages: docs/invocation.md) on a Node HTTP server: the
 * `ws` package in `noServer` mode answers upgrades to `/ws` and `/agents/{id}/ws`. A path naming an agent that is
 * not hosted is refused with 404 problem details before the upgrade, as an HTTP caller would be; everything else
 * about a call (auth on the handshake's headers included) is decided by `runtime.call` per message
 * (connection.ts). docs/host-protocols.md describes the mapping.
 */
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Problem } from '../../errors.js';
import { problem, problems } from '../../errors.js';
import { overUnixSocket } from '../../http/unix-socket.js';
import { type RequestOriginPolicy, requestOriginPolicy } from '../../policies/request-origin.js';
import { pollingTaskWaiter, type TaskPollingOptions } from '../../runtime/tasks/polling.js';
import type { HostRuntime } from '../../runtime/types.js';
import { serveConnection } from './connection.js';
import { pathMatcher } from './paths.js';

export interface WebSocketOptions {
  /** The paths served: default `/ws` and `/agents/{id}/ws` (see paths.ts for a string or RegExp). */
  path?: RegExp | string;
  /** Largest message read, in bytes (default 1 MiB); a larger one closes the connection with 1009. */
  maxPayload?: number;
  /** A connection with no call running that stays silent this long is closed (default 60 s). */
  idleTimeoutMs?: number;
  /** How deferred operations are waited for: polling the host's own `GET /tasks/{id}` (runtime/tasks/polling.ts). */
  tasks?: TaskPollingOptions;
  /** Which `Host` names and pages may connect (policies/request-origin.ts); default: the base URL's. */
  requestOrigins?: RequestOriginPolicy;
}

export interface WebSocketEndpoint {
  /** Stops answering upgrades and closes every connection (1001 going away). */
  close(): void;
}

const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const CLOSE_GOING_AWAY = 1001;

export function attachWebSocket(
  server: Server,
  runtime: HostRuntime,
  options: WebSocketOptions = {},
): WebSocketEndpoint {
  const matches = pathMatcher(options.path, runtime.baseUrl);
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
  });
  const waitForTask = pollingTaskWaiter(runtime, options.tasks);
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const requestOrigins = options.requestOrigins ?? requestOriginPolicy({ baseUrl: runtime.baseUrl });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const match = matches(request.url ?? '/');
    if (match === undefined) {
      // Another upgrade listener may own this path; with none, the caller would wait forever.
      if (server.listenerCount('upgrade') === 1) {
        const detail = `Nothing at ${request.url ?? '/'} accepts WebSocket connections.`;
        refuseUpgrade(socket, problem({ status: 404, code: 'NotFound', title: 'Not found', detail }));
      }
      return;
    }
    // A page may open a WebSocket to any address without asking first: the handshake's Host and Origin decide.
    if (!overUnixSocket(request)) {
      const host = request.headers.host ?? null;
      const refusal =
        requestOrigins.hostRefusal(host) ??
        requestOrigins.originRefusal(request.headers.origin ?? null, host);
      if (refusal !== undefined) {
        refuseUpgrade(socket, refusal);
        return;
      }
    }
    const { agentId } = match;
    const ids = runtime.agents().map((hosted) => hosted.agent.id);
    if (agentId !== undefined && !ids.includes(agentId)) {
      refuseUpgrade(socket, problems.agentNotFound(agentId, ids));
      return;
    }
    const headers = headersOf(request);
    sockets.handleUpgrade(request, socket, head, (connection) => {
      serveConnection(connection, {
        runtime,
        headers,
        ...(agentId === undefined ? {} : { agentId }),
        ...(request.socket.remoteAddress === undefined
          ? {}
          : { clientAddress: request.socket.remoteAddress }),
        waitForTask,
        idleTimeoutMs,
      });
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    close() {
      server.off('upgrade', onUpgrade);
      for (const client of sockets.clients) client.close(CLOSE_GOING_AWAY, 'server closing');
      sockets.close();
    },
  };
}

/** Answers the upgrade request with an HTTP error and problem details, then ends the connection. */
function refuseUpgrade(socket: Duplex, refusal: Problem): void {
  const body = JSON.stringify(refusal);
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** The handshake's headers, as the runtime reads them; a header `Headers` rejects is left out. */
function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index]!, raw[index + 1]!);
    } catch {
      // Not a valid header for the runtime (a name or value `Headers` refuses): as if it were not sent.
    }
  }
  return headers;
}
