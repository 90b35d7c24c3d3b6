/** What the routes share: the registry's parts, its settings, and the per-request caller. */
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { RateLimiter } from '../access/rate-limit.js';
import type { Crawler } from '../crawl/index.js';
import type { Metrics } from '../metrics/index.js';
import type { Caller, RegistryRecord } from '../records/types.js';
import type { SearchIndex } from '../search/types.js';
import type { RegistryStore } from '../store/store.js';
import type { OperationId, RoutePath } from './route-table.js';

/** How an invocation went: `failure` says whose a failure was (only the agent's count against it). */
export interface InvocationOutcome {
  ok: boolean;
  latencyMs: number;
  failure?: string;
}

/** The invocation gateway (src/gateway): calls an agent for a caller and says how it went. */
export interface InvocationGateway {
  invoke(
    record: RegistryRecord,
    body: unknown,
    headers: Headers,
    options?: { signal?: AbortSignal },
  ): Promise<
    InvocationOutcome & {
      response: Response;
      /** For a relayed stream: how it went once it has ended, settled before its body closes. */
      ended?: Promise<InvocationOutcome>;
    }
  >;
}

/** Intent resolution (src/resolve): POST /resolve, over what the caller may see. */
export type IntentResolver = (
  body: unknown,
  deps: {
    search(query: string, top: number): Promise<Array<{ id: string; score: number; why: string[] }>>;
    getRecords(ids: string[]): Promise<RegistryRecord[]>;
    baseUrl?: string;
  },
) => Promise<{ status: number; body?: unknown; problem?: unknown }>;

export interface ApiSettings {
  /** Largest request body, bytes. */
  maxBodyBytes: number;
  /** Agents a publisher may hold (the admin has no limit); undefined for no limit. */
  quotaPerPublisher?: number;
  /** The registry's public URL (no trailing slash); default: each request's own origin. */
  publicUrl?: string;
  /** Take the client address from `X-Forwarded-For` (only behind a proxy that sets it). */
  trustProxy: boolean;
  version: string;
  /** Keep answers to reads (listings, single agents) until the next write; default true. */
  answerCache?: boolean;
  /** Whether this registry crawls its queue in the background (`agentry serve --crawl`); default false. */
  crawling?: boolean;
}

/** Keeps the search index in step with the store; failures are logged, the store stays the copy of record. */
export interface SearchSync {
  upsert(records: readonly RegistryRecord[]): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
}

export interface RegistryServices {
  store: RegistryStore;
  search: SearchIndex;
  sync: SearchSync;
  limiter: RateLimiter;
  metrics: Metrics;
  gateway: InvocationGateway;
  /** The crawl queue (`/hosts`). */
  crawler: Crawler;
  resolveIntent: IntentResolver;
  openApi: (baseUrl: string) => unknown;
  settings: ApiSettings;
  logger: Logger;
}

/** Per-connection facts the HTTP server knows and a Request does not. */
export interface ConnectionInfo {
  remoteAddress?: string;
}

export interface ApiEnv {
  Bindings: ConnectionInfo;
  Variables: {
    caller: Caller;
    /** Who the rate limits count: the token id, else the client address. */
    clientKey: string;
    /** The registry's absolute base URL for this request. */
    baseUrl: string;
  };
}

/**
 * A route's handler: route-table.ts declares the route, app.ts runs its access check first. `P` is the route's
 * path, so that `c.req.param()` knows its parameters.
 */
export type RouteHandler<P extends string = string> = (c: Context<ApiEnv, P>) => Response | Promise<Response>;

/** Handlers by the operationId of their route. */
export type RouteHandlers<K extends OperationId = OperationId> = {
  readonly [I in K]: RouteHandler<RoutePath<I>>;
};
