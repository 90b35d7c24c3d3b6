/**
 * Whether a Node request came over a unix socket. No web page reaches one, so neither a rebound name nor a
 * cross-site page can arrive through it: the Node adapter and the WebSocket endpoint skip the `Host` and `Origin`
 * checks for such requests (policies/request-origin.ts).
 */
import type { IncomingMessage } from 'node:http';

/** A connection to a server listening on a unix socket (whose address is its path); no web page reaches one. */
export function overUnixSocket(incoming: IncomingMessage): boolean {
  // Node sets `server` on the sockets a server accepts.
  const server = (incoming.socket as { server?: { address(): unknown } }).server;
  return typeof server?.address() === 'string';
}
