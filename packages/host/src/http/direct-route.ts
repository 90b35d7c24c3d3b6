/**
 * A host's router as adapters reach it without a web `Request`/`Response` round trip (Node's http server). It is
 * kept off the `Host` object so that the public interface stays web-standard; a `Host` not made by `createHost`
 * (or a copy with a `fetch` of its own) has no direct route, and is served through its `fetch`.
 */
import type { Host } from '../host.js';
import type { Answer } from './answer.js';
import type { CallerInfo, HostRequest } from './host-request.js';

export type DirectRoute = (request: HostRequest, caller: CallerInfo) => Promise<Answer>;

const routes = new WeakMap<Host, DirectRoute>();

export function setDirectRoute(host: Host, route: DirectRoute): void {
  routes.set(host, route);
}

export function directRouteOf(host: Host): DirectRoute | undefined {
  return routes.get(host);
}
