/**
 * `@agentry/host/hono`: a host as a Hono handler (`app.all('*', honoHandler(host))`), passing on the caller's address
 * where `@hono/node-server` gives it. An entry of its own so that an app that mounts a host in Hono names the one
 * thing it uses; it needs no Hono types, so Hono stays the app's dependency, not the host's.
 */
export { type HonoContextLike, honoHandler } from './adapters/hono.js';
