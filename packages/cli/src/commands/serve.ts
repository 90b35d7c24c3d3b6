/**
 * `agentry serve`: the registry — the AIDIP API, hybrid search, intent resolution, the gateway and the web page —
 * on an embedded SQLite file. `--demo` also hosts the example agents on loopback and registers them, which is
 * what `npm start` runs.
 */
import { createSecureFetcher, type SecureFetcher } from '@agentry/client';
import {
  adminTokenFromEnv,
  chosenUseLiteEngine,
  createRegistry,
  type Registry,
  type RegistryOptions,
  serveRegistry,
  tuneHeapForServing,
} from '@agentry/registry';
import type { Command } from 'commander';
import { databaseFlag, printableDatabase } from '../io/database-hint.js';
import { startDemoAgents } from '../io/demo.js';
import { EXIT, UsageError } from '../io/errors.js';
import { fetchPolicy, NETWORK_OPTIONS, type NetworkOptions } from '../io/network.js';
import { registryUrl } from '../io/registry-client.js';
import {
  CRAWL_LIMIT_OPTIONS,
  type CrawlLimitFlags,
  DATABASE_OPTION,
  databaseUsageError,
  environmentSettings,
  registryOptionsFrom,
} from '../io/registry-options.js';
import { listeningServer, parsePort, untilInterrupted } from '../io/server.js';
import { TLS_OPTIONS, type TlsOptions, tlsFiles } from '../io/tls.js';

interface ServeCommandOptions extends CrawlLimitFlags, NetworkOptions, TlsOptions {
  port?: string;
  hostname?: string;
  db?: string;
  database?: string;
  embeddings?: string;
  publicUrl?: string;
  demo?: boolean;
  crawl?: boolean;
  import?: string[];
  importInterval?: string;
  rateLimitRedis?: string;
  shutdownTimeout?: string;
  json?: boolean;
}

const DEFAULT_PORT = 7420;
/** Seconds requests in flight have to finish once the server is told to stop. */
const DEFAULT_SHUTDOWN_TIMEOUT = 10;
/** Minutes between two imports of an `--import` registry. */
const DEFAULT_IMPORT_INTERVAL_MINUTES = 60;

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'run the registry: AIDIP API, hybrid search, intent resolution, gateway and web page (SQLite, or PostgreSQL with --database)',
    )
    .option(
      '-p, --port <port>',
      `port to listen on (default: PORT, else ${DEFAULT_PORT}; 0 picks a free one)`,
    )
    .option('--hostname <name>', 'address to listen on (default: HOST, else 127.0.0.1)')
    .option('--db <file>', 'the SQLite database file (default: AGENTRY_DB, else ./agentry.db)')
    .option(...DATABASE_OPTION)
    .option(
      '--embeddings <kind>',
      'semantic search: use-lite (bundled model), openai (AGENTRY_OPENAI_BASE_URL, AGENTRY_OPENAI_MODEL, AGENTRY_OPENAI_API_KEY) or none (default: AGENTRY_EMBEDDINGS, else use-lite)',
    )
    .option(
      '--public-url <url>',
      'the URL clients reach the registry at (default: AGENTRY_PUBLIC_URL, else the address listened on)',
    )
    .option('--demo', 'also host the example agents on loopback and register them (what npm start does)')
    .option('--crawl', 'keep crawling the registered hosts in the background (see agentry crawl)')
    .option(...CRAWL_LIMIT_OPTIONS.agents)
    .option(...CRAWL_LIMIT_OPTIONS.documents)
    .option(
      '--import <registry-url...>',
      'mirror these registries (the official MCP Registry, or Agentry registries): imported at start, then every --import-interval (see agentry import)',
    )
    .option(
      '--import-interval <minutes>',
      `minutes between imports of each --import registry (default: ${DEFAULT_IMPORT_INTERVAL_MINUTES})`,
    )
    .option(
      '--rate-limit-redis <url>',
      'keep rate limits in this Redis (redis://host:port), shared by every replica that names it (default: AGENTRY_RATE_LIMIT_REDIS, else in this process)',
    )
    .option(
      '--shutdown-timeout <seconds>',
      'on SIGINT or SIGTERM, how long requests in flight have to finish before their connections are cut',
      String(DEFAULT_SHUTDOWN_TIMEOUT),
    )
    .option(...NETWORK_OPTIONS.allowHttp)
    .option(...NETWORK_OPTIONS.allowPrivateNetwork)
    .option(...TLS_OPTIONS.cert)
    .option(...TLS_OPTIONS.key)
    .option('--json', 'print where it listens (and the admin token, when new) as one JSON line')
    .addHelpText(
      'after',
      '\nThe admin token is printed once, on the first start (or set AGENTRY_ADMIN_TOKEN); lost, agentry token --db\n<file> --role admin makes a new one. The server runs until interrupted (Ctrl-C, or SIGTERM): it then answers\n/readyz 503, stops accepting connections, lets requests in flight finish (up to --shutdown-timeout seconds),\nstops crawling, embedding and imports, and closes the database cleanly.\n\nExit status: 0 stopped by a signal and closed cleanly, 2 usage error (a wrong flag, a port in use, a database\nthat cannot be opened).\n\nExamples:\n  agentry serve\n  agentry serve --port 8080 --db /var/lib/agentry/registry.db --embeddings none\n  agentry serve --demo\n  agentry serve --import https://registry.modelcontextprotocol.io --import-interval 30',
    )
    .action(async (options: ServeCommandOptions) => {
      tuneHeapForServing(); // before the registry opens: see serving-heap.ts
      const env = environmentSettings();
      const port = options.port !== undefined ? parsePort(options.port) : (env.port ?? DEFAULT_PORT);
      const hostname = options.hostname ?? env.hostname ?? '127.0.0.1';
      const registryOptions = registryOptionsFrom(env, options);
      if (options.publicUrl !== undefined) {
        if (!URL.canParse(options.publicUrl)) throw new UsageError(`--public-url must be an absolute URL`);
        registryOptions.publicUrl = options.publicUrl;
      }
      const rateLimitRedis = sharedRateLimits(options.rateLimitRedis);
      if (rateLimitRedis !== undefined)
        registryOptions.rateLimitStore = { kind: 'redis', url: rateLimitRedis };

      let imports: { sources: string[]; intervalMs: number } | undefined;
      if (options.import === undefined || options.import.length === 0) {
        // An interval alone mirrors nothing: said, rather than ignored.
        if (options.importInterval !== undefined) {
          throw new UsageError(
            '--import-interval is for --import <registry-url...>: name the registries to mirror',
          );
        }
      } else {
        const minutes = Number(options.importInterval ?? DEFAULT_IMPORT_INTERVAL_MINUTES);
        if (!Number.isFinite(minutes) || minutes < 1) {
          throw new UsageError(
            `--import-interval must be a number of minutes, at least 1, not "${options.importInterval}"`,
          );
        }
        imports = { sources: options.import.map(importSource), intervalMs: minutes * 60_000 };
      }
      const search = searchSummary(registryOptions);
      const shutdownTimeout = Number(options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT);
      if (!Number.isFinite(shutdownTimeout) || shutdownTimeout < 0) {
        throw new UsageError(
          `--shutdown-timeout must be a number of seconds, 0 or more, not "${options.shutdownTimeout}"`,
        );
      }

      // The port first: one in use is a usage error before the database (and its admin token, shown once) is made.
      const { server } = await listeningServer(port, hostname, tlsFiles(options));
      // What the registry fetches with (gateway, crawler, imports): --allow-http and --allow-private-network, or
      // AGENTRY_ALLOW_HTTP and AGENTRY_ALLOW_PRIVATE_NETWORK, as every fetching command reads them.
      const policy = fetchPolicy(options);
      const fetchers: SecureFetcher[] = [];
      let demo: Awaited<ReturnType<typeof startDemoAgents>> | undefined;
      let registry: Registry | undefined;
      let served: Awaited<ReturnType<typeof serveRegistry>>;
      try {
        demo = options.demo ? await startDemoAgents() : undefined;
        if (demo !== undefined || policy.allowHttp || policy.allowPrivateNetwork) {
          // With --demo, the demo agents too (plain HTTP on loopback, their ports only), nothing else private.
          const fetcher = createSecureFetcher({
            ...policy,
            ...(demo === undefined
              ? {}
              : {
                  allowHttp: true,
                  allowAddresses: demo.hosts.map((host) => `127.0.0.1:${new URL(host.url).port}`),
                }),
            cache: false,
            userAgent: 'agentry-registry/0.1',
          });
          fetchers.push(fetcher);
          registryOptions.fetcher = fetcher;
          registryOptions.crawl = { enabled: false, ...registryOptions.crawl, fetcher };
        }
        if (options.crawl) registryOptions.crawl = { ...registryOptions.crawl, enabled: true };
        if (imports !== undefined) {
          const fetcher = createSecureFetcher({ ...policy, cache: false, userAgent: 'agentry-registry/0.1' });
          fetchers.push(fetcher);
          registryOptions.imports = { ...imports, fetcher };
        }
        registry = await createRegistry(registryOptions);
        served = await serveRegistry(registry, { server });
      } catch (error) {
        server.close();
        await registry?.close();
        for (const fetcher of fetchers) await fetcher.close();
        await demo?.close();
        throw databaseUsageError(error);
      }
      const publicUrl = registryOptions.publicUrl ?? served.url;
      const registered = demo ? await demo.register(registry) : [];

      // Listening for Ctrl-C before saying it is ready: a script that stops it as soon as it reads the ready line
      // must close it cleanly, not kill it.
      const interrupted = untilInterrupted();
      if (options.json) {
        const line: Record<string, unknown> = {
          url: served.url,
          database: printableDatabase(registryOptions.databasePath),
          search: search.json,
        };
        if (registry.adminToken !== undefined) line.adminToken = registry.adminToken;
        if (demo) line.demo = registered;
        process.stdout.write(`${JSON.stringify(line)}\n`);
      } else {
        const out = (text: string) => process.stdout.write(`${text}\n`);
        out(
          `agentry: registry at ${publicUrl} (database ${printableDatabase(registryOptions.databasePath)})`,
        );
        out(`  web page   ${publicUrl}/`);
        out(`  API        ${publicUrl}/openapi.json`);
        out(`  search     ${search.text}`);
        if (registry.adminToken !== undefined) {
          out(
            `  admin token (shown once; keep it; if lost: agentry token ${databaseFlag(registryOptions.databasePath)} --role admin): ${registry.adminToken}`,
          );
        } else if (adminTokenFromEnv() !== undefined) {
          out('  admin token from AGENTRY_ADMIN_TOKEN');
        }
        for (const agent of registered) out(`  demo agent ${agent.id.padEnd(11)} hosted at ${agent.hostUrl}`);
      }
      await interrupted;
      // A load balancer probing /readyz on a kept-alive connection sees 503 at once and sends no more; new
      // connections are refused; requests in flight finish (bounded); then the background work stops (the
      // crawler hands its claimed hosts back) and the database closes.
      registry.shutDown();
      await served.close({ graceMs: shutdownTimeout * 1000 });
      await registry.close();
      for (const fetcher of fetchers) await fetcher.close();
      await demo?.close();
      process.exitCode = EXIT.ok;
    });
}

/** How the registry will search: lexical only, or hybrid with which embeddings (and, for USE-lite, which engine). */
function searchSummary(options: RegistryOptions): { text: string; json: Record<string, string> } {
  const kind = options.embeddings ?? 'use-lite';
  if (options.embeddingProvider !== undefined) {
    const id = options.embeddingProvider.id;
    return { text: `hybrid, embeddings by ${id}`, json: { mode: 'hybrid', embeddings: id } };
  }
  if (kind === 'none') return { text: 'lexical only (--embeddings none)', json: { mode: 'lexical' } };
  if (kind === 'openai')
    return {
      text: 'hybrid, embeddings by an OpenAI-compatible API',
      json: { mode: 'hybrid', embeddings: 'openai' },
    };
  let engine: string;
  try {
    engine = chosenUseLiteEngine();
  } catch (error) {
    // A misspelt AGENTRY_USE_LITE_ENGINE is a usage error: say so, without a stack trace.
    throw new UsageError((error as Error).message);
  }
  const note =
    engine === 'tfjs' ? ' (the native kernels are not built: npm rebuild @agentry/embeddings)' : '';
  return {
    text: `hybrid, USE-lite embeddings on the ${engine} engine${note}`,
    json: { mode: 'hybrid', embeddings: 'use-lite', engine },
  };
}

/** The Redis of `--rate-limit-redis`, else of `AGENTRY_RATE_LIMIT_REDIS`: a redis:// or rediss:// URL. */
function sharedRateLimits(flag: string | undefined): string | undefined {
  const env = process.env['AGENTRY_RATE_LIMIT_REDIS']?.trim();
  const [name, url] = flag !== undefined ? ['--rate-limit-redis', flag] : ['AGENTRY_RATE_LIMIT_REDIS', env];
  if (url === undefined || url === '') return undefined;
  if (!URL.canParse(url) || !['redis:', 'rediss:'].includes(new URL(url).protocol)) {
    // Not echoed: a URL may carry a password.
    throw new UsageError(`${name} must be a redis:// or rediss:// URL`);
  }
  return url;
}

/** A registry given to --import, as `agentry import` reads one. */
function importSource(value: string): string {
  try {
    return registryUrl(value);
  } catch (error) {
    throw new UsageError(`--import needs registry URLs; ${(error as Error).message}`);
  }
}
