/**
 * The registry's HTTP API as a Hono app: authentication, rate limits and metrics around every route, problem
 * details for every failure, 404 for unknown paths and 405 (with `Allow`) for a known path asked with the wrong
 * method.
 */
import { Hono } from 'hono';
import { authenticate } from '../access/callers.js';
import type { RateClass } from '../access/rate-limit.js';
import type { ApiEnv, RegistryServices, RouteHandlers } from './context.js';
import { refusalFor, unauthorized } from './guards.js';
import { notFound, problem } from './problems.js';
import { hasQueryParameter, originOf } from './request-url.js';
import { type Method, type OperationId, ROUTES, type Route } from './route-table.js';
import { adminHandlers } from './routes/admin.js';
import { agentHandlers } from './routes/agents.js';
import { catalogHandlers } from './routes/catalog.js';
import { facetHandlers } from './routes/facets.js';
import { hostHandlers } from './routes/hosts.js';
import { importHandlers } from './routes/imports.js';
import { invokeHandlers } from './routes/invoke.js';
import { listingHandlers } from './routes/listing.js';
import { resolveHandlers } from './routes/resolve.js';
import { systemHandlers } from './routes/system.js';
import { uiHandlers } from './routes/ui.js';

export function createApi(services: RegistryServices): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const { metrics, logger, limiter, settings } = services;

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    // Unknown paths are one series, not one per path a scanner tries.
    const route = c.req.routePath === '*' || c.req.routePath === '/*' ? 'unmatched' : c.req.routePath;
    metrics.observeRequest(route, c.req.method, c.res.status, performance.now() - started);
  });

  app.use('*', async (c, next) => {
    const baseUrl = settings.publicUrl ?? originOf(c.req.url);
    c.set('baseUrl', baseUrl);
    const auth = await authenticate(c.req.header('authorization'), services.store.tokens);
    if (!auth.ok) return unauthorized(auth.detail);
    c.set('caller', auth.caller);
    c.set(
      'clientKey',
      auth.caller.tokenId ?? `ip:${clientAddress(c.req.raw, c.env?.remoteAddress, settings.trustProxy)}`,
    );
    if (auth.caller.kind !== 'admin' && !isProbe(c.req.method, c.req.path)) {
      const verdict = await limiter.take(
        rateClassOf(c.req.method, c.req.path, c.req.raw.url),
        c.get('clientKey'),
      );
      if (!verdict.allowed) {
        return problem({
          status: 429,
          code: 'RateLimited',
          title: 'Too many requests',
          detail: `Rate limit of ${verdict.rule.requests} requests per ${verdict.rule.windowSeconds} s reached; retry in ${verdict.retryAfterSeconds} s.`,
          headers: { 'retry-after': String(verdict.retryAfterSeconds) },
        });
      }
    }
    await next();
  });

  const handlers: RouteHandlers = {
    ...listingHandlers(services),
    ...facetHandlers(services),
    ...agentHandlers(services),
    ...invokeHandlers(services),
    ...resolveHandlers(services),
    ...adminHandlers(services),
    ...hostHandlers(services),
    ...importHandlers(services),
    ...catalogHandlers(services),
    ...systemHandlers(services),
    ...uiHandlers(),
  };
  for (const [operationId, route] of Object.entries(ROUTES) as Array<[OperationId, Route]>) {
    const handle = handlers[operationId];
    app.on(route.method, route.path, (c) => refusalFor(route.access, c.get('caller')) ?? handle(c));
  }

  app.notFound((c) => {
    const known = KNOWN_PATHS.find(({ pattern }) => pattern.test(c.req.path));
    if (known !== undefined && !known.methods.includes(c.req.method)) {
      return problem({
        status: 405,
        code: 'MethodNotAllowed',
        title: 'Method not allowed',
        detail: `${c.req.method} is not allowed on ${c.req.path}; use ${known.allow}.`,
        headers: { allow: known.allow },
      });
    }
    return notFound(`No such endpoint: ${c.req.method} ${c.req.path}.`);
  });

  app.onError((error, c) => {
    logger.error({ err: error, method: c.req.method, path: c.req.path }, 'request failed');
    return problem({
      status: 500,
      code: 'InternalError',
      title: 'Internal error',
      detail: 'The registry failed to handle the request; it has been logged.',
    });
  });
  return app;
}

/**
 * Each path of the route table with the methods its routes have and the `Allow` they make (HEAD goes with GET),
 * in the table's order: the first whose pattern matches a request no route answered names its methods. A request
 * whose method is not among them (a HEAD too, answered by GET, when GET found nothing) is answered 405.
 */
const KNOWN_PATHS: ReadonlyArray<{ pattern: RegExp; methods: readonly string[]; allow: string }> = (() => {
  const byPath = new Map<string, Set<Method>>();
  for (const route of Object.values(ROUTES)) {
    const methods = byPath.get(route.path) ?? new Set();
    byPath.set(route.path, methods.add(route.method));
  }
  const order: readonly Method[] = ['GET', 'POST', 'PUT', 'DELETE'];
  return [...byPath].map(([path, set]) => {
    const methods = order.filter((method) => set.has(method));
    const allow = (set.has('GET') ? [...methods, 'HEAD'] : methods).join(', ');
    return { pattern: pathPattern(path), methods, allow };
  });
})();

/** A Hono path as a regular expression over request paths: `:name` is one segment, a last `*` any rest. */
function pathPattern(path: string): RegExp {
  const rest = path.endsWith('/*');
  const segments = (rest ? path.slice(0, -2) : path)
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/') || '/'}${rest ? '(?:/.*)?' : ''}$`);
}

/**
 * The liveness and readiness probes are not rate limited: a load balancer polls them from one address (behind a
 * proxy, the address every client's traffic shares), and a probe refused 429 would restart a healthy process or
 * take a busy registry out of rotation. HEAD counts too: some balancers probe with it, and GET answers it.
 */
const PROBE_PATHS: ReadonlySet<string> = new Set([ROUTES.health.path, ROUTES.ready.path]);

function isProbe(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && PROBE_PATHS.has(path);
}

function rateClassOf(method: string, path: string, url: string): RateClass {
  if (method === 'POST' && path === '/agents/search') return 'search';
  if (method === 'POST' && path === '/resolve') return 'resolve';
  if (method === 'GET' && path === '/agents' && hasQueryParameter(url, 'q')) return 'search';
  return 'default';
}

function clientAddress(request: Request, remoteAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded !== undefined && forwarded !== '') return forwarded;
  }
  return remoteAddress ?? 'local';
}
