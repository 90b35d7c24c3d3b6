/**
 * HTTP over a unix domain socket (agent:// `agent+unix://`, and the local socket directory), through undici with a
 * dispatcher connected to the socket path. Dispatchers are kept per socket so that polls and repeated calls reuse
 * the connection; undici does not hold the process open with idle sockets.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { HttpSend } from '../bindings/types.js';
import { type ErrorContext, transportErrorFrom } from '../error-mapping.js';

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
    const requestInit: Parameters<typeof undiciFetch>[1] = { method: init.method ?? 'GET', dispatcher };
    if (init.headers !== undefined) requestInit.headers = init.headers;
    if (init.body !== undefined) requestInit.body = init.body;
    if (active.length > 0) requestInit.signal = active.length === 1 ? active[0]! : AbortSignal.any(active);
    try {
      return (await undiciFetch(url, requestInit)) as unknown as Response;
    } catch (error) {
      throw transportErrorFrom(error, { ...ctx, endpoint: `unix:${socketPath}` }, init.signal);
    }
  };
}

/** Closes the kept connections (tests, and processes that want to exit promptly). */
export async function closeSocketConnections(): Promise<void> {
  const all = [...dispatchers.values()];
  dispatchers.clear();
  await Promise.all(all.map((dispatcher) => dispatcher.close()));
}
