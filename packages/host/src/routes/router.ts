/**
 * Which handler answers a request: the discovery documents (GET/HEAD), the invocation routes, the task routes, the
 * MCP endpoint and each agent's A2A endpoint, under the host's base path. Unknown paths get a 404 problem, known paths a 405 with `Allow`
 * for methods they do not answer.
 *
 * Why not Hono's router, which the registry uses (#24.8, kept for now): this one is a dozen fixed shapes matched on
 * segments, and what it does around them is what a move would have to rebuild. (1) It runs on `HostRequest`, which
 * the Node adapter makes without a web `Request` (built only for MCP and A2A); `Hono#fetch` takes a `Request`, so
 * either every Node request builds one or only Hono's matcher is used (`RegExpRouter#match`), which adds a
 * dependency to `@agentry/host` (hono is a devDependency, for its adapter's tests) and saves no code. (2) The
 * discovery documents are an exact-path table built on the first request, consulted before the fixed routes and
 * before the page-origin check (they are public, served with CORS `*`), and the Host-name check runs before
 * anything; as Hono middleware and a catch-all that is the same code in a different place. (3) A known path with
 * another method gets a 405 with `Allow`, which Hono answers as a 404 unless each route registers its refusals.
 * (4) Segments are percent-decoded one by one, a malformed escape being a 404, not an error. A move would take: the
 * fixed routes as Hono routes under `basePath`, the checks and the document table as middleware, the 405s per
 * route, Hono's `notFound` returning the problem answer (with `unrouted`, which the adapters read), and the Node
 * adapter building a `Request` per call or the router calling `RegExpRouter` directly. Measured (2 shared cores,
 * noisy): matching the host's routes costs about 0.2-0.3 µs here and 0.2 µs with Hono's RegExpRouter (TrieRouter
 * 1.5 µs), beside 50 µs of server CPU per echo invocation in bench:host, whose host/bare ratio is 73 % (target
 * ≥ 60 %) with this router; the router's choice does not move that ratio, and building a `Request` per call would.
 */

import type { DocumentTable } from '../documents/build.js';
import { problem } from '../errors.js';
import { type Answer, answerOf } from '../http/answer.js';
import type { CallerInfo, RequestAnswerer } from '../http/host-request.js';
import { problemAnswer } from '../http/problem-response.js';
import { A2A_SEGMENT } from '../model/hosted-agent.js';
import type { RequestOriginPolicy } from '../policies/request-origin.js';
import { serveDocument } from './documents.js';
import { envelopeRoute, type InvocationSettings, methodNotAllowed, operationRoute } from './invoke.js';
import { type TaskRouteSettings, taskRoute } from './tasks.js';

/**
 * An endpoint that reads a web-standard `Request` itself (the MCP server, an agent's A2A endpoint): the router
 * hands it the request and what it knows of the caller, and answers its `Response`. The transports are made by
 * `createHost` and passed in, so routes know nothing of them.
 */
export type WebEndpoint = (request: Request, caller: CallerInfo) => Promise<Response>;

export interface RouterSettings extends InvocationSettings, TaskRouteSettings {
  /** The base URL's path, `''` at the origin root. */
  basePath: string;
  documents: () => Promise<DocumentTable>;
  /** The MCP endpoint for all agents, or for one (`/agents/{id}/mcp`); undefined when MCP is off. */
  mcp?: (agentId: string | undefined) => WebEndpoint | undefined;
  /** An agent's A2A JSON-RPC endpoint (`/agents/{id}/a2a`); undefined when A2A is off. */
  a2a?: (agentId: string) => WebEndpoint | undefined;
  webSocket: boolean;
  /** Which `Host` names and page origins are answered (policies/request-origin.ts). */
  requestOrigins: RequestOriginPolicy;
}

export function createRouter(settings: RouterSettings): RequestAnswerer {
  // Kept once built, so that calls do not wait a turn for a promise long settled.
  let built: DocumentTable | undefined;
  return async (request, caller) => {
    // No web page reaches a unix socket: neither a rebound name nor a cross-site page can arrive through one.
    const checked = caller.unixSocket !== true;
    const authority = checked ? request.authority : null;
    const wrongHost = checked ? settings.requestOrigins.hostRefusal(authority) : undefined;
    if (wrongHost !== undefined) return problemAnswer(wrongHost);
    const pathname = request.pathname;
    const path = withinBase(pathname, settings.basePath);
    if (path === undefined) return notFound(pathname);

    built ??= await settings.documents();
    const documents = built;
    const document = documents.get(path);
    // The discovery documents are public: pages of any site may read them (they are served with CORS `*`).
    if (document !== undefined && (request.method === 'GET' || request.method === 'HEAD')) {
      return serveDocument(document, request);
    }
    const origin = checked ? request.headers.get('origin') : null;
    const wrongOrigin =
      origin === null ? undefined : settings.requestOrigins.originRefusal(origin, authority);
    if (wrongOrigin !== undefined) return problemAnswer(wrongOrigin);
    if (document !== undefined) return methodNotAllowed('GET, HEAD');

    const segments = decodeSegments(path);
    if (segments === undefined) return notFound(pathname);
    const [first, second, third, fourth] = segments;
    const count = segments.length;
    if (count === 1 && first === 'invoke') {
      return request.method === 'POST'
        ? envelopeRoute(request, undefined, settings, caller)
        : methodNotAllowed('POST');
    }
    if (count === 1 && first === 'mcp') {
      const handler = settings.mcp?.(undefined);
      if (handler !== undefined) return answerOf(await handler(request.web(), caller));
    }
    if (count === 2 && first === 'tasks') return taskRoute(request, second!, settings);
    if (first === 'agents' && count >= 3) {
      const agentId = second!;
      if (count === 3 && third === 'invoke') {
        return request.method === 'POST'
          ? envelopeRoute(request, agentId, settings, caller)
          : methodNotAllowed('POST');
      }
      if (count === 4 && third === 'operations')
        return operationRoute(request, agentId, fourth!, settings, caller);
      if (count === 3 && third === 'mcp' && settings.runtime.agent(agentId) !== undefined) {
        const handler = settings.mcp?.(agentId);
        if (handler !== undefined) return answerOf(await handler(request.web(), caller));
      }
      if (count === 3 && third === A2A_SEGMENT && settings.runtime.agent(agentId) !== undefined) {
        const handler = settings.a2a?.(agentId);
        if (handler !== undefined) return answerOf(await handler(request.web(), caller));
      }
      if (
        count === 3 &&
        third === 'ws' &&
        settings.webSocket &&
        settings.runtime.agent(agentId) !== undefined
      ) {
        return problemAnswer(
          problem({
            status: 426,
            code: 'UpgradeRequired',
            title: 'Upgrade required',
            detail: 'This is a WebSocket endpoint: open it with a WebSocket handshake.',
          }),
          { upgrade: 'websocket', connection: 'Upgrade' },
        );
      }
    }
    return notFound(pathname);
  };
}

/** The path below the base path, or undefined when the request is outside it. */
function withinBase(pathname: string, basePath: string): string | undefined {
  if (basePath === '') return pathname;
  if (pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
}

function decodeSegments(path: string): string[] | undefined {
  const segments = segmentsOf(path);
  if (!path.includes('%')) return segments;
  try {
    return segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/**
 * The segments after the leading `/` (what `path.split('/').slice(1)` gives). Written out because `split` of a
 * string made per request (not a literal, whose splits V8 caches) costs several times as much.
 */
function segmentsOf(path: string): string[] {
  const segments: string[] = [];
  let start = 1;
  for (;;) {
    const end = path.indexOf('/', start);
    if (end === -1) {
      segments.push(path.slice(start));
      return segments;
    }
    segments.push(path.slice(start, end));
    start = end + 1;
  }
}

/** The 404 that means "no route here" (not "no such agent"). */
function notFound(pathname: string): Answer {
  const answer = problemAnswer(
    problem({
      status: 404,
      code: 'NotFound',
      title: 'Not found',
      detail: `Nothing is served at ${pathname}. The host's documents are listed in /.well-known/woa.json and /openapi.json.`,
    }),
  );
  return { ...answer, unrouted: true };
}
