/**
 * Express (5): a middleware serving the host. Requests the host has no route for fall through to the next
 * middleware, so a host can share an app. A body an earlier middleware already parsed (`express.json()`) is sent
 * on as JSON; otherwise the raw body is streamed to the host, which bounds it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Host } from '../host.js';
import { isUnrouted } from '../http/answer.js';
import { writeResponse } from './node.js';
import { callerSignal, toRequest } from './node-request.js';

/** The members of Express's request the middleware reads. */
export interface ExpressRequestLike extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
}

export type ExpressNext = (error?: unknown) => void;

export function expressHandler(
  host: Host,
): (request: ExpressRequestLike, response: ServerResponse, next: ExpressNext) => void {
  return (incoming, outgoing, next) => {
    void serve(host, incoming, outgoing).then(
      (handled) => {
        if (!handled) next();
      },
      (error: unknown) => next(error),
    );
  };
}

async function serve(host: Host, incoming: ExpressRequestLike, outgoing: ServerResponse): Promise<boolean> {
  const signal = callerSignal(outgoing);
  // Mounted under a path, Express strips it from `url`; the host routes by the full path.
  const target = incoming.originalUrl ?? incoming.url ?? '/';
  const parsedBody = incoming.readableEnded && incoming.body !== undefined ? incoming.body : undefined;
  let request = toRequest(incoming, host.baseUrl, signal, target);
  if (request === undefined) return false;
  if (parsedBody !== undefined && request.method !== 'GET' && request.method !== 'HEAD') {
    const headers = new Headers(request.headers);
    headers.delete('content-length');
    headers.set('content-type', 'application/json');
    request = new Request(request.url, {
      method: request.method,
      headers,
      body: JSON.stringify(parsedBody),
      signal,
    });
  }
  const address = incoming.socket.remoteAddress;
  const response = await host.fetch(request, address === undefined ? {} : { clientAddress: address });
  if (isUnrouted(response)) {
    await response.body?.cancel();
    return false;
  }
  await writeResponse(response, outgoing, { close: !incoming.complete && parsedBody === undefined });
  return true;
}
