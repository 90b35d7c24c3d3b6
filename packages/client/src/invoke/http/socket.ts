/**
 * HTTP over a unix domain socket (agent:// `agent+unix://`, and the local socket directory), through undici with a
 * dispatcher connected to the socket path. Dispatchers are kept per socket so that polls and repeated calls reuse
 * the connection; undici does not hold the process open with idle sockets.
 *
 * Redirects are followed by hand and only within the socket's own origin (`http://localhost`): every request goes
 * to the socket whatever its URL says, so a Location naming another origin cannot be reached and is refused, and
 * the call's credentials never travel on to it.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { followRedirect, isRedirect, type OutgoingRequest } from '../../fetch/redirects.js';
import type { HttpSend } from '../bindings/types.js';
import { contextDetails, type ErrorContext, transportErrorFrom } from '../error-mapping.js';
import { TransportError } from '../errors.js';

const MAX_SOCKET_REDIRECTS = 5;

const dispatchers = new Map<string, Agent>();

function dispatcherFor(socketPath: string): Agent {
  let dispatcher = dispatchers.get(socketPath);
  if (dispatcher === undefined) {
    dispatcher = new Agent({ connect: { socketPath }, keepAliveTimeout: 2000 });
    dispatchers.set(socketPath, dispatcher);
  }
  return dispatcher;
}

/** The URL a request over a socket carries (the host is not used for routing, only as the `Host` header). */
export function socketUrl(path: string): string {
  return new URL(path.startsWith('/') ? path : `/${path}`, 'http://localhost').href;
}

/** A sender whose requests go to `socketPath`; URLs are `http://localhost/<path>`. */
export function socketSend(socketPath: string, ctx: ErrorContext): HttpSend {
  const dispatcher = dispatcherFor(socketPath);
  return async (url, init) => {
    const signals = [
      init.signal,
      init.timeoutMs === undefined ? undefined : AbortSignal.timeout(init.timeoutMs),
    ];
    const active = signals.filter((signal): signal is AbortSignal => signal !== undefined);
    const signal =
      active.length === 0 ? undefined : active.length === 1 ? active[0]! : AbortSignal.any(active);
    const endpoint = `unix:${socketPath}`;
    let request: OutgoingRequest = {
      url: new URL(url),
      method: (init.method ?? 'GET').toUpperCase(),
      headers: lowerCaseKeys(init.headers ?? {}),
      ...(init.body === undefined ? {} : { body: init.body }),
    };
    for (let redirects = 0; ; redirects++) {
      const requestInit: Parameters<typeof undiciFetch>[1] = {
        method: request.method,
        headers: request.headers,
        dispatcher,
        redirect: 'manual',
      };
      if (request.body !== undefined) requestInit.body = request.body;
      if (signal !== undefined) requestInit.signal = signal;
      let response: Response;
      try {
        response = (await undiciFetch(request.url, requestInit)) as unknown as Response;
      } catch (error) {
        throw transportErrorFrom(error, { ...ctx, endpoint }, init.signal);
      }
      const location = isRedirect(response.status) ? response.headers.get('location') : null;
      if (location === null) return response;
      await response.body?.cancel().catch(() => {});
      const next = followRedirect(request, response.status, location);
      if (next.url.origin !== request.url.origin || redirects >= MAX_SOCKET_REDIRECTS) {
        const why =
          next.url.origin !== request.url.origin
            ? `to ${next.url.origin}, another origin, which a call over a unix socket cannot reach`
            : `more than ${MAX_SOCKET_REDIRECTS} times`;
        throw new TransportError(
          `The agent at ${endpoint} redirected ${why}; its redirect was not followed.`,
          contextDetails({ ...ctx, endpoint }),
          'protocol',
        );
      }
      request = next;
    }
  };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return out;
}

/** Closes the kept connections (tests, and processes that want to exit promptly). */
export async function closeSocketConnections(): Promise<void> {
  const all = [...dispatchers.values()];
  dispatchers.clear();
  await Promise.all(all.map((dispatcher) => dispatcher.close()));
}
