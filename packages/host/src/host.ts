/**
 * `createHost`: serve agent definitions at a base URL as one web-standard handler, `fetch(Request) => Response`,
 * with every discovery document, every invocation route, deferred tasks and the MCP endpoint. Adapters put it on
 * Node's http server, Hono or Express (./adapters).
 */
import { createSecureFetcher } from '@agentry/client';
import type { AgentDefinition } from './define/types.js';
import { buildDocuments, type CardSigning, type DocumentTable } from './documents/build.js';
import { problems } from './errors.js';
import { toResponse } from './http/answer.js';
import { DEFAULT_BODY_LIMIT } from './http/body.js';
import type { CallerInfo } from './http/host-request.js';
import { fromWebRequest, type RequestAnswerer } from './http/host-request.js';
import { problemAnswer } from './http/problem-response.js';
import { consoleLogger, errorDetails, type HostLogger } from './logger.js';
import { hostedAgent } from './model/hosted-agent.js';
import { type AuthConfig, type Authenticator, createAuthenticator } from './policies/auth.js';
import { createIdempotencyStore, type IdempotencyStoreOptions } from './policies/idempotency.js';
import { createRateLimiter, parseRateLimit, type RateLimiterOptions } from './policies/rate-limit.js';
import { requestOriginPolicy } from './policies/request-origin.js';
import { createRouter } from './routes/router.js';
import { createRuntime, type Runtime } from './runtime/runtime.js';
import {
  type CallbackFetch,
  type CallbackOptions,
  SIGNATURE_HEADER,
  signCallback,
} from './runtime/tasks/callbacks.js';
import { createTaskStore, type TaskRecord, taskRepresentation } from './runtime/tasks/task-store.js';
import type { HostRuntime } from './runtime/types.js';
import { createCardSigner } from './signing/card-signature.js';
import type { SigningConfig } from './signing/keys.js';
import { type A2aHandler, createA2aHandler } from './transports/a2a/server.js';
import type { McpHandler } from './transports/mcp/server.js';

export interface HostOptions {
  agents: readonly AgentDefinition[];
  /** The public base URL documents link to (`https://agents.example.com`, or with a path prefix). */
  baseUrl: string;
  /** The agent single-agent formats (AWP, A2A, `/capabilities`) describe; default the first. */
  primary?: string;
  /** Credentials the host accepts; operations that need them say so (`authRequired`, `security`). */
  auth?: AuthConfig;
  /** Rate limits: operations' own `rateLimit`, and `default` for the others. */
  rateLimits?: Omit<RateLimiterOptions, 'now'>;
  /** Idempotency keys (AWP contracts, `Idempotency-Key`); `false` turns them off. */
  idempotency?: Omit<IdempotencyStoreOptions, 'now'> | false;
  tasks?: {
    /** How long a finished task stays readable (default 1 hour). */
    ttlMs?: number;
    maxTasks?: number;
    /** The `Retry-After` suggested to pollers (default 1 s). */
    retryAfterSeconds?: number;
    /** Signed callbacks when a task ends (callers ask with `X-Callback-URL`). */
    callbacks?: CallbackOptions;
  };
  /** Sign the A2A card and serve `/.well-known/jwks.json`. */
  signing?: SigningConfig;
  limits?: { /** Largest request body (default 1 MiB). */ bodyBytes?: number };
  /** `Cache-Control` of the documents (default `public, max-age=300`). */
  cacheControl?: string;
  /** `Last-Modified` of the documents (default: when the newest definition was made). */
  lastModified?: Date;
  /** Serve MCP at `/mcp` (default true). */
  mcp?: boolean;
  /** Serve A2A JSON-RPC (v1.0 and v0.3) at `/agents/{id}/a2a`, the URL the A2A card names (default true). */
  a2a?: boolean;
  /**
   * Advertise `wss` bindings at `/agents/{id}/ws` (serveNode then accepts WebSocket upgrades); default false.
   * `baseUrl`: where they are advertised (default: the host's base URL as ws/wss). `allowedOrigins`: web pages of
   * these origins (`https://app.example`, or `*` for any) may connect besides the host's own; handshakes from
   * programs (no `Origin`) always may. docs/host-security.md.
   */
  webSocket?: boolean | { baseUrl?: string; allowedOrigins?: readonly string[] };
  /**
   * Names the `Host` header may carry besides the base URL's host (and, for a loopback base URL, `localhost`,
   * `127.0.0.1` and `[::1]`): `agents.example.com` (any port), `agents.example.com:8443`, `*` for any. Other
   * names are refused with 403 on every route, which guards against DNS rebinding. docs/host-security.md.
   */
  allowedHosts?: readonly string[];
  /**
   * Origins whose web pages may call the host besides its own (`https://app.example`, `*` for any); pages of
   * other origins are refused with 403 everywhere but reads of the discovery documents. docs/host-security.md.
   */
  allowedOrigins?: readonly string[];
  /** Check outputs against their schemas (default true): a failing output is a 500, logged. */
  validateOutput?: boolean;
  logger?: HostLogger;
}

/** A host's web-standard handler; `caller.clientAddress` lets anonymous callers be rate limited by address. */
export interface HostFetch {
  (request: Request, caller?: CallerInfo): Promise<Response>;
  /**
   * The same handler on the host's own view of a request, answering without a web `Request` or `Response`: the
   * Node adapter calls it straight from an `IncomingMessage`. A `fetch` made elsewhere (a copy of a host whose
   * `fetch` wraps another app) has none, and is served through its call.
   */
  readonly answer?: RequestAnswerer;
}

export interface Host {
  fetch: HostFetch;
  readonly runtime: HostRuntime;
  readonly baseUrl: string;
  /** Whether WebSocket bindings are advertised (adapters accept upgrades then). */
  readonly webSocket: boolean;
  /** Origins, besides those of `allowed.origins`, whose pages may open WebSocket connections (`*`: any). */
  readonly webSocketOrigins: readonly string[];
  /** The `Host` names and page origins the host answers, defaults included (policies/request-origin.ts). */
  readonly allowed: { readonly hosts: readonly string[]; readonly origins: readonly string[] };
  /** Cancels running tasks and releases what the host holds. */
  close(): Promise<void>;
}

const DEFAULT_CACHE_CONTROL = 'public, max-age=300';

/**
 * Serves `agents` at `baseUrl`: every discovery document, every invocation route, tasks, MCP and A2A, as one
 * web-standard `fetch` handler for `serveNode`, Hono, Express or any server that speaks `Request` and `Response`.
 *
 * @example
 * ```ts
 * import { createHost, defineAgent } from '@agentry/host';
 *
 * const clock = defineAgent({
 *   id: 'clock',
 *   name: 'Clock',
 *   description: 'Tells the time.',
 *   operations: { now: { description: 'The time now, ISO 8601.', safe: true, handler: () => ({ now: new Date().toISOString() }) } },
 * });
 * const host = createHost({
 *   agents: [clock],
 *   baseUrl: 'https://agents.example.com',
 *   auth: { apiKeys: { [process.env.ACME_API_KEY ?? 'dev-key']: { clientId: 'acme' } } },
 *   rateLimits: { default: '60/minute' },
 * });
 * const response = await host.fetch(new Request('https://agents.example.com/.well-known/woa.json'));
 * console.log(response.status, await response.json());
 * ```
 */
export function createHost(options: HostOptions): Host {
  const baseUrl = normalizedBase(options.baseUrl);
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const logger = options.logger ?? consoleLogger;
  const definitions = checkedDefinitions(options.agents);
  const authenticator: Authenticator | undefined =
    options.auth === undefined ? undefined : createAuthenticator(options.auth);
  const webSocketBaseUrl = webSocketBase(options.webSocket, baseUrl);
  const requestOrigins = requestOriginPolicy({
    baseUrl,
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  });
  const mcpOn = options.mcp ?? true;
  const a2aOn = options.a2a ?? true;
  const entries = definitions.map((definition) => ({
    definition,
    agent: hostedAgent(definition, {
      baseUrl,
      mcp: mcpOn,
      a2a: a2aOn,
      ...(webSocketBaseUrl === undefined ? {} : { webSocketBaseUrl }),
      ...(authenticator === undefined ? {} : { authenticator }),
    }),
  }));
  checkPolicies(
    entries.map((entry) => entry.agent),
    options,
  );
  const primary = entries.find((entry) => entry.definition.id === (options.primary ?? definitions[0]!.id));
  if (primary === undefined)
    throw new TypeError(`The primary agent "${options.primary}" is not among the agents.`);

  const closing = new AbortController();
  const tasks = createTaskStore({
    ...(options.tasks?.ttlMs === undefined ? {} : { ttlMs: options.tasks.ttlMs }),
    ...(options.tasks?.maxTasks === undefined ? {} : { maxTasks: options.tasks.maxTasks }),
  });
  const retryAfterSeconds = options.tasks?.retryAfterSeconds ?? 1;
  const callbacks = createCallbackSender(options.tasks?.callbacks, logger, closing.signal);
  const runtime: Runtime = createRuntime({
    baseUrl,
    basePath,
    agents: entries,
    ...(authenticator === undefined ? {} : { authenticator }),
    // Operations' own `rateLimit` applies whether or not a default is configured.
    rateLimiter: createRateLimiter(options.rateLimits ?? {}),
    ...(options.idempotency === false
      ? {}
      : { idempotency: createIdempotencyStore(options.idempotency ?? {}) }),
    tasks,
    taskRetryAfterSeconds: retryAfterSeconds,
    callbacksEnabled: callbacks !== undefined,
    ...(callbacks === undefined ? {} : { onTaskFinished: callbacks.send }),
    logger,
    validateOutput: options.validateOutput ?? true,
    closing: closing.signal,
  });

  const lastModified = options.lastModified ?? newest(definitions.map((definition) => definition.definedAt));
  const documents: Promise<DocumentTable> = (async () => {
    let signing: CardSigning | undefined;
    if (options.signing !== undefined) {
      const signer = await createCardSigner({ jku: `${baseUrl}/.well-known/jwks.json`, ...options.signing });
      signing = { sign: (card) => signer.sign(card) as Promise<typeof card>, jwks: () => signer.jwks() };
    }
    return buildDocuments({
      baseUrl,
      agents: entries.map((entry) => entry.agent),
      primary: primary.agent,
      lastModified,
      cacheControl: options.cacheControl ?? DEFAULT_CACHE_CONTROL,
      logger,
      tasks: entries.some((entry) => entry.agent.operations.some((op) => op.executionModel === 'async')),
      ...(signing === undefined ? {} : { signing }),
    });
  })();
  // Requests await the table; a failure to build it is reported once here and as a 500 to each request.
  documents.catch((error: unknown) => logger.error('The documents could not be built.', errorDetails(error)));

  const mcpHandlers = new Map<string, McpHandler>();
  let fetchHandler: HostFetch;
  const mcp = (agentId: string | undefined): McpHandler | undefined => {
    if (!mcpOn) return undefined;
    const key = agentId ?? '';
    let handler = mcpHandlers.get(key);
    if (handler === undefined) {
      // The MCP SDK (and zod) load with the first MCP request, not with every host: about a third of the host's
      // load time, paid by each CLI command and process that never serves MCP.
      const created = import('./transports/mcp/server.js').then(({ createMcpHandler }) =>
        createMcpHandler(runtime, {
          tasks: { fetch: (request) => fetchHandler(request) },
          ...(agentId === undefined ? {} : { agentId }),
        }),
      );
      handler = async (request, context) => (await created)(request, context);
      mcpHandlers.set(key, handler);
    }
    return handler;
  };

  const bodyLimit = options.limits?.bodyBytes ?? DEFAULT_BODY_LIMIT;
  const a2aHandlers = new Map<string, A2aHandler>();
  const a2a = (agentId: string): A2aHandler | undefined => {
    if (!a2aOn) return undefined;
    let handler = a2aHandlers.get(agentId);
    if (handler === undefined) {
      handler = createA2aHandler(runtime, {
        agentId,
        maxBodyBytes: bodyLimit,
        tasks: { fetch: (request) => fetchHandler(request) },
      });
      a2aHandlers.set(agentId, handler);
    }
    return handler;
  };

  const route = createRouter({
    runtime,
    baseUrl,
    basePath,
    bodyLimit,
    tasks,
    ...(authenticator === undefined ? {} : { authenticator }),
    retryAfterSeconds,
    documents: () => documents,
    mcp,
    a2a,
    webSocket: webSocketBaseUrl !== undefined,
    requestOrigins,
  });

  const answer: RequestAnswerer = async (request, caller) => {
    try {
      return await route(request, caller);
    } catch (error) {
      logger.error(`${request.method} ${request.pathname} failed.`, errorDetails(error));
      return problemAnswer(problems.internal());
    }
  };
  const fetch: HostFetch = Object.assign(
    async (request: Request, caller: CallerInfo = {}) =>
      toResponse(await answer(fromWebRequest(request), caller)),
    { answer },
  );
  fetchHandler = fetch;
  runtime.fetch = (request) => fetch(request);

  const host: Host = {
    fetch,
    runtime,
    baseUrl,
    webSocket: webSocketBaseUrl !== undefined,
    webSocketOrigins:
      typeof options.webSocket === 'object' ? [...(options.webSocket.allowedOrigins ?? [])] : [],
    allowed: { hosts: requestOrigins.hosts, origins: requestOrigins.origins },
    async close() {
      closing.abort(new Error('The host is closing.'));
      tasks.close();
      await callbacks?.close();
    },
  };
  return host;
}

function normalizedBase(text: string): string {
  if (!URL.canParse(text)) throw new TypeError(`baseUrl "${text}" is not an absolute URL.`);
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl "${text}" must be an http(s) URL.`);
  }
  if (url.search !== '' || url.hash !== '')
    throw new TypeError(`baseUrl "${text}" must have no query or fragment.`);
  return url.href.replace(/\/+$/, '');
}

function webSocketBase(option: HostOptions['webSocket'], baseUrl: string): string | undefined {
  if (option === undefined || option === false) return undefined;
  if (typeof option === 'object' && option.baseUrl !== undefined) return option.baseUrl.replace(/\/+$/, '');
  return baseUrl.replace(/^http/, 'ws');
}

function checkedDefinitions(agents: readonly AgentDefinition[]): readonly AgentDefinition[] {
  if (agents.length === 0) throw new TypeError('A host needs at least one agent.');
  const seen = new Set<string>();
  for (const definition of agents) {
    if (typeof definition?.id !== 'string' || !(definition.operations instanceof Map)) {
      throw new TypeError('Every agent must be made with defineAgent().');
    }
    if (seen.has(definition.id)) throw new TypeError(`Two agents have the id "${definition.id}".`);
    seen.add(definition.id);
  }
  return agents;
}

/** Mistakes in policies stop the host at start, not at the first call that meets them. */
function checkPolicies(agents: readonly import('@agentry/core').Agent[], options: HostOptions): void {
  const limits = [
    options.rateLimits?.default,
    ...agents.flatMap((agent) => agent.operations.map((op) => op.rateLimit)),
  ];
  for (const limit of limits) {
    if (limit !== undefined && parseRateLimit(limit) === undefined) {
      throw new TypeError(
        `Rate limit "${limit}" cannot be read; write it as "30/minute", "5/second", "1000/day".`,
      );
    }
  }
  if (options.auth === undefined) {
    for (const agent of agents) {
      for (const op of agent.operations) {
        if (op.authRequired === true || (op.security !== undefined && op.security.length > 0)) {
          throw new TypeError(
            `Operation "${op.name}" of agent "${agent.id}" requires authentication, but the host has no auth configuration: pass auth (apiKeys or jwt) to createHost.`,
          );
        }
      }
    }
  }
}

function newest(dates: readonly Date[]): Date {
  return new Date(Math.max(...dates.map((date) => date.getTime())));
}

interface CallbackSender {
  send(task: TaskRecord): void;
  close(): Promise<void>;
}

function createCallbackSender(
  options: CallbackOptions | undefined,
  logger: HostLogger,
  closing: AbortSignal,
): CallbackSender | undefined {
  if (options === undefined) return undefined;
  const ownFetcher = options.fetch === undefined ? createSecureFetcher() : undefined;
  const send: CallbackFetch =
    options.fetch ??
    (async (url, init) => {
      const { response } = await ownFetcher!.fetch(url, { ...init, cacheMode: 'no-store' });
      return { status: response.status };
    });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pending = new Set<Promise<void>>();
  return {
    send(task) {
      if (task.callbackUrl === undefined) return;
      const url = task.callbackUrl;
      const body = JSON.stringify(taskRepresentation(task));
      const headers = {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signCallback(options.secret, body, Math.floor(Date.now() / 1000)),
        'x-task-id': task.id,
      };
      const signal = AbortSignal.any([closing, AbortSignal.timeout(timeoutMs)]);
      const delivery = send(url, { method: 'POST', headers, body, signal })
        .then((answer) => {
          if (answer.status >= 300)
            logger.warn(`The callback for task ${task.id} was answered ${answer.status}.`, { url });
        })
        .catch((error: unknown) => {
          logger.warn(`The callback for task ${task.id} failed.`, { url, ...errorDetails(error) });
        })
        .finally(() => pending.delete(delivery));
      pending.add(delivery);
    },
    async close() {
      await Promise.allSettled([...pending]);
      await ownFetcher?.close();
    },
  };
}
