/**
 * `@agentry/host/node`: a host on Node's `http` (or `https`) server, or on a unix socket, with WebSocket upgrades
 * when the host advertises them. An entry of its own because it needs what the rest of the host does not: Node's
 * server, the `ws` package, sockets; a host mounted in Hono or Express, or run where `fetch` handlers are the
 * server, loads none of it.
 */
export {
  type NodeServer,
  nodeRequestListener,
  type ServeNodeOptions,
  serveNode,
  type TlsFiles,
} from './adapters/node.js';
