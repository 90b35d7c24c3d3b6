/**
 * Which handler answers a request: the discovery documents (GET/HEAD), the invocation routes, the task routes and
 * the MCP endpoint, under the host's base path. Unknown paths get a 404 problem, known paths a 405 with `Allow`
 * for methods they do not answer.
 */

import type { DocumentTable } from '../documents/build.js';
import { serveDocument } from '../documents/static-document.js';
import { problem } from '../errors.js';
import {
  type CallerInfo,
  envelopeRoute,
  type InvocationSettings,
  methodNotAllowed,
  operationRoute,
} from './invoke-routes.js';
import { problemResponse } from './problem-response.js';
import { type TaskRouteSettings, taskRoute } from './task-routes.js';

export type WebHandler = (request: Request) => Promise<Response>;

export interface RouterSettings extends InvocationSettings, TaskRouteSettings {
  /** The base URL's path, `''` at the origin root. */
  basePath: string;
  documents: () => Promise<DocumentTable>;
  /** The MCP endpoint for all agents, or for one (`/agents/{id}/mcp`); undefined when MCP is off. */
  mcp?: (agentId: string | undefined) => WebHandler | undefined;
  webSocket: boolean;
}

export type Router = (request: Request, caller: CallerInfo) => Promise<Response>;

export function createRouter(settings: RouterSettings): Router {
  return async (request, caller) => {
    const url = new URL(request.url);
    const path = withinBase(url.pathname, settings.basePath);
    if (path === undefined) return notFound(url.pathname);

    const documents = await settings.documents();
    const document = documents.get(path);
    if (document !== undefined) {
      if (request.method === 'GET' || request.method === 'HEAD') return serveDocument(document, request);
      return methodNotAllowed('GET, HEAD');
    }

    const segments = decodeSegments(path);
    if (segments === undefined) return notFound(url.pathname);
    const [first, second, third, fourth] = segments;
    const count = segments.length;
    if (count === 1 && first === 'invoke') {
      return request.method === 'POST'
        ? envelopeRoute(request, undefined, settings, caller)
        : methodNotAllowed('POST');
    }
    if (count === 1 && first === 'mcp') {
      const handler = settings.mcp?.(undefined);
      if (handler !== undefined) return handler(request);
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
        if (handler !== undefined) return handler(request);
      }
      if (
        count === 3 &&
        third === 'ws' &&
        settings.webSocket &&
        settings.runtime.agent(agentId) !== undefined
      ) {
        return problemResponse(
          problem({
            status: 426,
            code: 'upgrade_required',
            title: 'Upgrade required',
            detail: 'This is a WebSocket endpoint: open it with a WebSocket handshake.',
          }),
          { upgrade: 'websocket', connection: 'Upgrade' },
        );
      }
    }
    return notFound(url.pathname);
  };
}

/** The path below the base path, or undefined when the request is outside it. */
function withinBase(pathname: string, basePath: string): string | undefined {
  if (basePath === '') return pathname;
  if (pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
}

function decodeSegments(path: string): string[] | undefined {
  try {
    return path
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/** The 404s that mean "no route here" (not "no such agent"): adapters that share an app pass these on. */
const unrouted = new WeakSet<Response>();

export function isUnrouted(response: Response): boolean {
  return unrouted.has(response);
}

function notFound(pathname: string): Response {
  const response = problemResponse(
    problem({
      status: 404,
      code: 'not_found',
      title: 'Not found',
      detail: `Nothing is served at ${pathname}. The host's documents are listed in /.well-known/woa.json and /openapi.json.`,
    }),
  );
  unrouted.add(response);
  return response;
}
