/**
 * Hono: a host is already a fetch handler, so mounting it is one line. `honoHandler(host)` fits
 * `app.all('*', …)` (or any path pattern); Hono's own types are not needed, so Hono stays optional.
 */
import type { Host } from '../host.js';

/** What the handler reads of a Hono context. */
export interface HonoContextLike {
  req: { raw: Request };
}

export function honoHandler(host: Host): (context: HonoContextLike) => Promise<Response> {
  return (context) => host.fetch(context.req.raw);
}
