/**
 * The registry's HTTP API as a Hono app: authentication, rate limits and metrics around every route, problem
 * details for every failure, 404 for unknown paths and 405 (with `Allow`) for a known path asked with the wrong
 * method.
 */
import { Hono } from 'hono';
import { authenticate } from '../access/callers.js';
import type { RateClass } from '../access/rate-limit.js';
import type { ApiEnv, RegistryServices } from './context.js';
import { unauthorized } from './guards.js';
import { notFound, problem } from './problems.js';
import { hasQueryParameter, originOf } from './request-url.js';
import { adminRoutes } from './routes/admin.js';
import { agentRoutes } from './routes/agents.js';
import { catalogRoutes } from './routes/catalog.js';
import { facetRoutes } from './routes/facets.js';
import { hostRoutes } from './routes/hosts.js';
import { invokeRoutes } from './routes/invoke.js';
import { listingRoutes } from './routes/listing.js';
import { resolveRoutes } from './routes/resolve.js';
import { systemRoutes } from './routes/system.js';
import { uiRoutes } from './routes/ui.js';

/** Every route: path pattern and methods (HEAD goes with GET). Used for 405 answers. */
const ROUTES: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^\/$/, ['GET']],
  [/^\/ui\/[^/]+$/, ['GET']],
  [/^\/app(\/.*)?$/, ['GET']],
  [/^\/facets$/, ['GET']],
  [/^\/agents$/, ['GET', 'POST']],
  [/^\/agents\/search$/, ['POST']],
  [/^\/agents\/[^/]+$/, ['GET', 'PUT', 'DELETE']],
  [/^\/agents\/[^/]+\/feedback$/, ['POST']],
  [/^\/agents\/[^/]+\/invoke$/, ['POST']],
  [/^\/agents\/[^/]+\/history$/, ['GET']],
  [/^\/resolve$/, ['POST']],
  [/^\/openapi\.json$/, ['GET']],
  [/^\/healthz$/, ['GET']],
  [/^\/metrics$/, ['GET']],
  [/^\/admin\/tokens$/, ['POST']],
  [/^\/admin\/tokens\/[^/]+$/, ['DELETE']],
  [/^\/admin\/audit$/, ['GET']],
  [/^\/hosts$/, ['GET', 'POST']],
  [/^\/hosts\/[^/]+$/, ['GET', 'DELETE']],
  [/^\/\.well-known\/ai-catalog\.json$/, ['GET']],
];

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
    if (auth.caller.kind !== 'admin') {
      const verdict = limiter.take(rateClassOf(c.req.method, c.req.path, c.req.raw.url), c.get('clientKey'));
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

  // The search route is registered before /agents/:id so that it is not read as an agent id.
  listingRoutes(app, services);
  facetRoutes(app, services);
  agentRoutes(app, services);
  invokeRoutes(app, services);
  resolveRoutes(app, services);
  adminRoutes(app, services);
  hostRoutes(app, services);
  catalogRoutes(app, services);
  systemRoutes(app, services);
  uiRoutes(app);

  app.notFound((c) => {
    const allowed = ROUTES.find(([pattern]) => pattern.test(c.req.path))?.[1];
    if (allowed !== undefined && !allowed.includes(c.req.method)) {
      const methods = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
      return problem({
        status: 405,
        code: 'MethodNotAllowed',
        title: 'Method not allowed',
        detail: `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(', ')}.`,
        headers: { allow: methods.join(', ') },
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
