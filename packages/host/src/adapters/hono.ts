/**
 * Hono: a host is already a fetch handler, so mounting it is one line. `honoHandler(host)` fits
 * `app.all('*', …)` (or any path pattern); Hono's own types are not needed, so Hono stays optional. On Node
 * (`@hono/node-server`, whose `env` carries the connection), the caller's address is passed on, so anonymous
 * callers keep rate-limit buckets and idempotency keys of their own.
 */
import type { Host } from '../host.js';
import type { CallerInfo } from '../http/host-request.js';

/** What the handler reads of a Hono context. */
export interface HonoContextLike {
  req: { raw: Request };
  /** `@hono/node-server` puts the Node request here; other runtimes put their bindings. */
  env?: unknown;
}

export function honoHandler(host: Host): (context: HonoContextLike) => Promise<Response> {
  return (context) => host.fetch(context.req.raw, callerOf(context.env));
}

function callerOf(env: unknown): CallerInfo {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? { clientAddress: address } : {};
}
