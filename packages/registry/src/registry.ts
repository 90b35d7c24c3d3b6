/**
 * The registry: one SQLite file holding the agents, tokens, history, audit log and search index, served as the
 * AIDIP HTTP API. `createRegistry` opens (and migrates) the store, makes sure there is an admin token, loads the
 * search index and returns a web-standard `fetch` handler; `serveRegistry` puts it on a port.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureFetcher, type SecureFetcher } from '@agentry/client';
import { getRequestListener, type Http2Bindings, type HttpBindings } from '@hono/node-server';
import pino, { type Logger } from 'pino';
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimits } from './access/rate-limit.js';
import { createRateLimitStore, type RateLimitStoreOptions } from './access/rate-limit-store.js';
import { createApi } from './api/app.js';
import type { ConnectionInfo, RegistryServices, SearchSync } from './api/context.js';
import { markShuttingDown } from './api/routes/system.js';
import { adminTokenFromEnv } from './config.js';
import { type Crawler, createCrawler } from './crawl/index.js';
import type { CrawlSink } from './crawl/types.js';
import type { DatabaseDialect } from './db/dialect.js';
import { type DatabaseLocation, databaseTarget } from './db/open.js';
import { sqliteFileHasTables } from './db/sqlite.js';
import { type BackgroundImportOptions, importInBackground } from './federation/background-import.js';
import { importRegistry, type RegistryImport, type RegistryImportResult } from './federation/sync.js';
import { createGateway } from './gateway/index.js';
import { createCrawlSink } from './ingest/crawl-sink.js';
import { createMetrics } from './metrics/index.js';
import { openApiDocument } from './openapi/index.js';
import { searchDocumentOf } from './records/search-document.js';
import type { RegistryRecord } from './records/types.js';
import { storedMetadata } from './records/views.js';
import { resolveIntent } from './resolve/index.js';
import {
  type BackgroundEmbedding,
  type BackgroundEmbeddingOptions,
  embedInBackground,
} from './search/background-embedding.js';
import {
  createEmbeddingProvider,
  createSearchIndex,
  type EmbeddingProvider,
  type EmbeddingProviderKind,
  type OpenAIEmbeddingOptions,
  type SearchIndex,
  type SearchIndexOptions,
  type UseLiteOptions,
} from './search/index.js';
import { RegistryStore } from './store/store.js';

export const REGISTRY_VERSION = '0.1.0';

export interface RegistryOptions {
  /** The SQLite file (created when missing). */
  databasePath: string;
  /** Embeddings for semantic search (default `use-lite`, the bundled model); `none` is lexical search only. */
  embeddings?: EmbeddingProviderKind;
  /** Options of the `use-lite` or `openai` provider. */
  embeddingOptions?: UseLiteOptions | OpenAIEmbeddingOptions;
  /** A provider instance; overrides `embeddings`. */
  embeddingProvider?: EmbeddingProvider;
  /**
   * The admin token. Default: `AGENTRY_ADMIN_TOKEN`; without either, the one stored stays, and on first start one
   * is generated and returned (once) as `adminToken` (a configured token is never returned).
   */
  adminToken?: string;
  /** The registry's public URL (`https://registry.example.com`), for links and gateway endpoints. */
  publicUrl?: string;
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Agents one publisher may hold (default 1,000; `null` for no limit). The admin is never limited. */
  quotaPerPublisher?: number | null;
  /** Per-client request budgets; unset classes keep the defaults (`DEFAULT_RATE_LIMITS`). */
  rateLimits?: Partial<RateLimits>;
  /**
   * Where the rate limits' buckets are kept: this process (default), or a Redis every replica shares, so a limit
   * holds across replicas (`{ kind: 'redis', url }`; docs/deploy.md, "Shared rate limits").
   */
  rateLimitStore?: RateLimitStoreOptions;
  /** Count clients by `X-Forwarded-For` (only behind a proxy that sets it). */
  trustProxy?: boolean;
  /** The fetcher the gateway calls agents with (default: HTTPS to public addresses only). */
  fetcher?: SecureFetcher;
  gatewayTimeoutMs?: number;
  /** Default: pino to stderr at `AGENTRY_LOG_LEVEL` (default `info`). */
  logger?: Logger;
  /**
   * Embeds, in the background, agents waiting for a vector (after an embedding failure, a change of model, or
   * `agentry crawl --embeddings none` into this file): at start, after failures, and every `intervalMs` (default
   * 60 s). `false` turns it off. See docs/search.md.
   */
  backgroundEmbedding?: BackgroundEmbeddingOptions | false;
  /**
   * Registries to mirror while this one runs (`agentry serve --import`): each imported at start and every
   * `intervalMs` (default 1 h), incrementally. `fetcher` defaults to the strict one (HTTPS, public addresses).
   */
  imports?: BackgroundImportOptions & { fetcher?: SecureFetcher };
  /** Rebuild the search index from the store before serving (after a crash between a write and its indexing). */
  reindexOnStart?: boolean;
  /**
   * The vectors in memory: from how many agents with a vector semantic candidates come from the approximate
   * nearest-neighbour index (`approximateFrom`, default 50,000; `Infinity` keeps the exact pass) and how many of its
   * lists a query probes (`probes`). See docs/search.md, "A vector index that scales".
   */
  vectorIndex?: SearchIndexOptions['vectors'];
  /**
   * From how many indexed agents on lexical searches rank in memory rather than in the database's own engine
   * (default 50,000; `Infinity`: never; 0: always). See docs/search.md, "The lexical index in memory".
   */
  lexicalInMemoryFrom?: number;
  /** Keep answers to reads (listings, single agents) until the next write (default true; false for measuring). */
  answerCache?: boolean;
  /** The clock for rate limits, ms (tests pin it). */
  clockMs?: () => number;
  /** The crawler over the same database (`registry.crawler`); its background loop runs only when `enabled`. */
  crawl?: RegistryCrawlOptions;
}

/** See docs/crawler.md. */
export interface RegistryCrawlOptions {
  /** Crawl due hosts in the background (`agentry serve --crawl`); otherwise only `registry.crawler.runOnce()` does. */
  enabled: boolean;
  /** Origins crawled at once (default 16). */
  concurrency?: number;
  /** Requests in flight per origin (default 2). */
  perOrigin?: number;
  /**
   * How long a host stays claimed by this replica's crawler without being renewed (default 5 min): replicas on one
   * PostgreSQL database take over the hosts of one that died once its leases have run out (docs/deploy.md).
   */
  leaseMs?: number;
  /** Bounds on a document's re-crawl interval (default 1 min and 1 day). */
  minIntervalMs?: number;
  maxIntervalMs?: number;
  /** Probe crawled agents' bindings after each crawl (default true). */
  liveness?: boolean;
  /**
   * Agents kept per crawled origin (default 1,000, as `quotaPerPublisher`; `null` for no limit): past it, the rest
   * of an origin's agents are dropped and reported in the crawl's outcome.
   */
  maxAgentsPerOrigin?: number | null;
  /** Linked documents followed per crawled origin (default 64; `null` for no limit); the rest are skipped. */
  maxDocumentsPerOrigin?: number | null;
  /** What the crawler fetches with (default: HTTPS to public addresses only). The caller closes one it passes. */
  fetcher?: SecureFetcher;
}

export interface Registry {
  /** The API as a web-standard handler; `connection` carries the client address for rate limits. */
  fetch(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /**
   * Says the registry is shutting down: `GET /readyz` answers 503 from now on, so a load balancer drains it, while
   * everything else serves on until `close()`. `close()` says it too.
   */
  shutDown(): void;
  /** Stops background work (embedding, imports, the crawler, its claims handed back), then the gateway's fetcher and the database. Idempotent. */
  close(): Promise<void>;
  /**
   * The admin token in plaintext when this start generated it (the first start without a configured one); else
   * undefined: a configured token is the operator's, and of a stored one only the hash is kept.
   */
  readonly adminToken: string | undefined;
  readonly store: RegistryStore;
  readonly search: SearchIndex;
  /** Re-indexes every stored agent; returns how many. */
  reindex(): Promise<number>;
  /** Where a crawler (`createCrawler({ sink })`) puts what it finds: the same store and search index. */
  readonly crawlSink: CrawlSink;
  /** The crawler over this registry's database and `crawlSink` (`GET /hosts` shows its queue). */
  readonly crawler: Crawler;
  /**
   * Imports another registry (the official MCP Registry API, or another Agentry registry) through `crawlSink`:
   * what changed since the last import of the same URL, or everything with `full` (docs/crawler.md).
   */
  importRegistry(options: RegistryImport): Promise<RegistryImportResult>;
}

/**
 * Opens (or creates and migrates) the registry's SQLite file, makes sure there is an admin token, loads the search
 * index and returns the AIDIP API as a web-standard handler, with the crawler over the same database.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@agentry/registry';
 *
 * const registry = await createRegistry({ databasePath: 'agentry.db', embeddings: 'none' }); // lexical search only
 * if (registry.adminToken !== undefined) console.log(`admin token, shown once: ${registry.adminToken}`);
 * const response = await registry.fetch(
 *   new Request('http://127.0.0.1/agents/search', {
 *     method: 'POST',
 *     headers: { 'content-type': 'application/json' },
 *     body: JSON.stringify({ query: 'translate text into Chinese', filters: { tags: ['translation'] } }),
 *   }),
 * );
 * console.log(await response.json()); // the best agents first, each with its score and why
 * await registry.close();
 * ```
 */
export async function createRegistry(options: RegistryOptions): Promise<Registry> {
  const logger = options.logger ?? defaultLogger();
  const store = await openRegistryStore(options.databasePath);
  let crawl: { crawler: Crawler; close(): Promise<void> } | undefined;
  let limiter: RateLimiter | undefined;
  let searchIndex: SearchIndex | undefined;
  /** What runs in the background until the registry closes (background embedding, mirrored registries). */
  const backgroundWork: Array<{ close(): Promise<void> }> = [];
  const stopBackgroundWork = async (): Promise<void> => {
    // Last started, first stopped: a mirror's writes may still ask the embedder to retry.
    for (const work of backgroundWork.splice(0).reverse()) await work.close();
  };
  try {
    const adminToken = await store.tokens.ensureAdmin(options.adminToken ?? adminTokenFromEnv());
    const provider = options.embeddingProvider ?? embeddingProvider(options);
    let background: BackgroundEmbedding | undefined;
    // The search index, the federation and the crawler keep their tables in the store's database (db/).
    const search = await createSearchIndex(store.db, provider, {
      dialect: store.dialect,
      ...(options.vectorIndex === undefined ? {} : { vectors: options.vectorIndex }),
      ...(options.lexicalInMemoryFrom === undefined
        ? {}
        : { lexicalInMemoryFrom: options.lexicalInMemoryFrom }),
      onEmbeddingError: (error) => {
        logger.warn(
          { err: error },
          'embedding failed; those agents are searched lexically until it succeeds',
        );
        background?.failed();
      },
    });
    searchIndex = search;
    if (provider !== undefined && options.backgroundEmbedding !== false) {
      // Replicas on one PostgreSQL database take turns: each agent is embedded once.
      background = embedInBackground(
        search,
        logger,
        options.backgroundEmbedding,
        store.dialect.runAlone.bind(store.dialect),
      );
      backgroundWork.push(background);
    }
    const sync = searchSync(search, logger);
    const reindex = async (): Promise<number> => {
      let count = 0;
      for await (const batch of store.agents.scan(200)) {
        await search.upsert(batch.map(searchDocumentOf));
        count += batch.length;
      }
      return count;
    };
    if (options.reindexOnStart === true) await reindex();
    // Entries the identity migration merged: their old ids leave the index, the entries they joined are indexed anew.
    await store.agents.reindexMerged(sync);

    const gateway = createGateway({
      ...(options.fetcher === undefined ? {} : { fetcher: options.fetcher }),
      ...(options.gatewayTimeoutMs === undefined ? {} : { timeoutMs: options.gatewayTimeoutMs }),
    });
    const crawlSink = createCrawlSink(store, sync);
    const importSink = createCrawlSink(store, sync, { arrival: 'imported' });
    const importFrom = (importOptions: RegistryImport) => importRegistry(store.db, importSink, importOptions);
    if ((options.imports?.sources.length ?? 0) > 0) {
      backgroundWork.push(mirrorRegistries(importFrom, options.imports!, logger, store.dialect));
    }
    const started = startCrawler(store, crawlSink, options.crawl, logger);
    crawl = started;
    const quota = options.quotaPerPublisher === undefined ? 1000 : options.quotaPerPublisher;
    const metrics = createMetrics();
    const rateLimitStore = await createRateLimitStore(options.rateLimitStore, {
      logger,
      setGauge: (name, value, help) => metrics.setGauge(name, value, help),
      ...(options.clockMs === undefined ? {} : { now: options.clockMs }),
    });
    limiter = new RateLimiter({ ...DEFAULT_RATE_LIMITS, ...options.rateLimits }, rateLimitStore);
    const services: RegistryServices = {
      store,
      search,
      sync,
      limiter,
      metrics,
      gateway,
      crawler: started.crawler,
      resolveIntent,
      openApi: (baseUrl) => openApiDocument({ baseUrl, version: REGISTRY_VERSION }),
      settings: {
        maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
        ...(quota === null ? {} : { quotaPerPublisher: quota }),
        ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl.replace(/\/+$/, '') }),
        trustProxy: options.trustProxy === true,
        version: REGISTRY_VERSION,
        ...(options.answerCache === false ? { answerCache: false } : {}),
        crawling: options.crawl?.enabled === true,
      },
      logger,
    };
    const app = createApi(services);
    let closed = false;
    return {
      adminToken,
      store,
      search,
      reindex,
      crawlSink,
      crawler: started.crawler,
      importRegistry: importFrom,
      fetch: async (request, connection = {}) => app.fetch(request, connection),
      shutDown: () => markShuttingDown(services),
      async close() {
        if (closed) return;
        closed = true;
        markShuttingDown(services);
        await stopBackgroundWork();
        await started.close();
        await gateway.close();
        await limiter?.close();
        search.close();
        await store.close();
      },
    };
  } catch (error) {
    await stopBackgroundWork();
    await crawl?.close();
    await limiter?.close();
    searchIndex?.close();
    await store.close();
    throw error;
  }
}

/**
 * The store of a registry database, migrated as `createRegistry` migrates it (every part's tables: db/), without
 * the rest of the registry: for work on the file alone, such as `agentry token` minting a token offline.
 */
export async function openRegistryStore(databasePath: string): Promise<RegistryStore> {
  return RegistryStore.open({ ...databaseLocation(databasePath), metadataOf: storedMetadata });
}

/** `databasePath` as a location: a `postgres://` (or `postgresql://`) URL, else a SQLite file path. */
function databaseLocation(databasePath: string): DatabaseLocation {
  return /^postgres(ql)?:\/\//i.test(databasePath) ? { url: databasePath } : { path: databasePath };
}

/** Whether `databasePath` names a PostgreSQL database (a `postgres://` URL) rather than a SQLite file. */
export function isPostgresDatabase(databasePath: string): boolean {
  return databaseTarget(databaseLocation(databasePath)).dialect === 'postgres';
}

/**
 * Whether `databasePath` is a registry database already (its migrations applied once): read only, never created.
 * A PostgreSQL database is asked when it is opened.
 */
export function isRegistryDatabase(databasePath: string): boolean {
  if (isPostgresDatabase(databasePath)) return true;
  return sqliteFileHasTables(databasePath, ['kysely_migration', 'agents', 'tokens']);
}

export interface ServeOptions {
  /** Default 0: any free port. Ignored with a listening `server`. */
  port?: number;
  /** Default `127.0.0.1`. Ignored with a listening `server`. */
  hostname?: string;
  /**
   * Serve on this server (http or https) instead of a new one; it is listened on unless it already is. A command
   * binds its port first, so that a port in use is reported before the database is created.
   */
  server?: Server;
  /** Serve HTTPS with this certificate (chain) and private key, PEM (on a new server; ignored with `server`). */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export interface ServedRegistry {
  /** `http://host:port` (`https://` on a TLS server), without a trailing slash. */
  url: string;
  port: number;
  /**
   * Stops accepting connections and closes open ones; does not close the registry. With `graceMs`, requests in
   * flight have that long to finish (idle connections close at once, busy ones as their answer is sent); what is
   * still open then is cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Serves the registry over HTTP, or HTTPS with `tls` (AIDIP §9 requires it in production), with @hono/node-server.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { createRegistry, serveRegistry } from '@agentry/registry';
 *
 * const registry = await createRegistry({ databasePath: 'agentry.db', publicUrl: 'https://registry.example.com' });
 * const served = await serveRegistry(registry, {
 *   port: 7420,
 *   tls: { cert: readFileSync('cert.pem'), key: readFileSync('key.pem') },
 * });
 * console.log(`registry at ${served.url}`);
 * process.once('SIGTERM', () => void served.close().then(() => registry.close()));
 * ```
 */
export async function serveRegistry(registry: Registry, options: ServeOptions = {}): Promise<ServedRegistry> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server =
    options.server ??
    (options.tls === undefined
      ? createServer()
      : (createHttpsServer({ cert: options.tls.cert, key: options.tls.key }) as unknown as Server));
  server.on(
    'request',
    getRequestListener(
      (request, env: HttpBindings | Http2Bindings) => {
        const remoteAddress = env.incoming.socket.remoteAddress;
        return registry.fetch(request, remoteAddress === undefined ? {} : { remoteAddress });
      },
      { hostname },
    ),
  );
  if (!server.listening) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, hostname, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }
  const info = server.address() as AddressInfo;
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  // An https.Server is a tls.Server: it has the TLS context methods an http.Server lacks.
  const scheme =
    typeof (server as { setSecureContext?: unknown }).setSecureContext === 'function' ? 'https' : 'http';
  return {
    url: `${scheme}://${host}:${info.port}`,
    port: info.port,
    close: (closeOptions = {}) =>
      new Promise<void>((done) => {
        const graceMs = closeOptions.graceMs ?? 0;
        let drain: NodeJS.Timeout | undefined;
        let deadline: NodeJS.Timeout | undefined;
        server.close(() => {
          clearInterval(drain);
          clearTimeout(deadline);
          done();
        });
        if (graceMs <= 0) {
          server.closeAllConnections();
          return;
        }
        // A kept-alive connection turns idle once its answer is sent: closing the idle ones now and then lets
        // each in-flight request finish and then lets its connection go, without waiting for keep-alive timeouts.
        server.closeIdleConnections();
        drain = setInterval(() => server.closeIdleConnections(), 50);
        deadline = setTimeout(() => {
          clearInterval(drain);
          server.closeAllConnections();
        }, graceMs);
      }),
  };
}

/** The registries of `options.sources` imported in the background; `close` stops that and closes the fetcher it made. */
function mirrorRegistries(
  importFrom: (options: RegistryImport) => Promise<RegistryImportResult>,
  options: NonNullable<RegistryOptions['imports']>,
  logger: Logger,
  dialect: DatabaseDialect,
): { close(): Promise<void> } {
  const ownFetcher =
    options.fetcher === undefined
      ? createSecureFetcher({ cache: false, userAgent: `agentry-registry/${REGISTRY_VERSION}` })
      : undefined;
  const fetcher = options.fetcher ?? ownFetcher!;
  // Replicas on one PostgreSQL database take turns per source: each import is made by one of them.
  const mirrors = importInBackground(
    (importOptions) => importFrom({ ...importOptions, fetcher }),
    logger,
    options,
    dialect.runAlone.bind(dialect),
  );
  return {
    async close() {
      await mirrors.close();
      await ownFetcher?.close();
    },
  };
}

/** The crawler over the store, its loop started when asked; `close` stops it and closes the fetcher it made. */
function startCrawler(
  store: RegistryStore,
  sink: CrawlSink,
  options: RegistryCrawlOptions | undefined,
  logger: Logger,
): { crawler: Crawler; close(): Promise<void> } {
  const ownFetcher =
    options?.fetcher === undefined
      ? createSecureFetcher({ cache: false, userAgent: `agentry-crawler/${REGISTRY_VERSION}` })
      : undefined;
  const crawler = createCrawler({
    db: store.db,
    fetcher: options?.fetcher ?? ownFetcher!,
    sink,
    ...(options?.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options?.perOrigin === undefined ? {} : { perOrigin: options.perOrigin }),
    ...(options?.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options?.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
    ...(options?.maxIntervalMs === undefined ? {} : { maxIntervalMs: options.maxIntervalMs }),
    ...(options?.liveness === false ? { liveness: false as const } : {}),
    ...(options?.maxAgentsPerOrigin === undefined ? {} : { maxAgentsPerOrigin: options.maxAgentsPerOrigin }),
    ...(options?.maxDocumentsPerOrigin === undefined
      ? {}
      : { maxDocumentsPerOrigin: options.maxDocumentsPerOrigin }),
  });
  if (options?.enabled === true) {
    crawler.start({
      onProgress: (progress) => {
        if (progress.outcome === 'unreachable' || progress.outcome === 'error') {
          logger.warn(
            { origin: progress.origin, outcome: progress.outcome, error: progress.error },
            'crawl failed',
          );
        } else if (progress.outcome === 'taken-over') {
          logger.info(
            { origin: progress.origin },
            'another crawler took the origin over while this one crawled it (its lease ran out); its result stands',
          );
        } else {
          logger.debug({ origin: progress.origin, outcome: progress.outcome }, 'crawled');
        }
        if (progress.dropped !== undefined) {
          logger.warn(
            { origin: progress.origin, dropped: progress.dropped },
            'the origin lists more than the per-origin limits allow (maxAgentsPerOrigin, maxDocumentsPerOrigin); the rest was dropped',
          );
        }
      },
      onError: (error) => logger.error({ err: error }, 'the crawl loop failed; retrying'),
    });
  }
  return {
    crawler,
    async close() {
      await crawler.stop();
      await ownFetcher?.close();
    },
  };
}

function searchSync(search: SearchIndex, logger: Logger): SearchSync {
  return {
    async upsert(records: readonly RegistryRecord[]): Promise<void> {
      if (records.length === 0) return;
      try {
        await search.upsert(records.map(searchDocumentOf));
      } catch (error) {
        logger.error(
          { err: error, agents: records.map((record) => record.id) },
          'search indexing failed; run reindex',
        );
      }
    },
    async remove(ids: readonly string[]): Promise<void> {
      try {
        await search.remove(ids);
      } catch (error) {
        logger.error({ err: error, agents: ids }, 'search removal failed; run reindex');
      }
    },
  };
}

function embeddingProvider(options: RegistryOptions): EmbeddingProvider | undefined {
  const kind = options.embeddings ?? 'use-lite';
  return createEmbeddingProvider(kind, options.embeddingOptions);
}

function defaultLogger(): Logger {
  return pino(
    { level: process.env['AGENTRY_LOG_LEVEL'] ?? 'info' },
    pino.destination({ dest: 2, sync: true }),
  );
}
