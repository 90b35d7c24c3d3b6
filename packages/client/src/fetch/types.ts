/**
 * The secure fetcher's contract. Everything in Agentry that fetches a URL it was given (resolution, invocation,
 * the crawler) goes through one of these, so the SSRF and HTTPS rules are enforced in one place.
 */
import type { HttpCache } from './cache.js';

/** Resolves a host name to addresses; the fetcher looks a name up once per request and connects to that address. */
export type LookupFunction = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface FetchPolicy {
  /** Allow plain `http:` URLs (default false; also `AGENTRY_ALLOW_HTTP=1` in the CLI). */
  allowHttp?: boolean;
  /**
   * Allow loopback, private, link-local, CGNAT, unique-local and other non-public addresses (default false; also
   * `AGENTRY_ALLOW_PRIVATE_NETWORK=1` in the CLI).
   */
  allowPrivateNetwork?: boolean;
  /**
   * Non-public addresses allowed even without `allowPrivateNetwork`: each an address or CIDR range, optionally limited
   * to one port (`10.1.2.3`, `10.1.0.0/16`, `127.0.0.1:8443`, `[fd00::5]:443`). For one intranet service, or a test
   * server standing in for a public origin. Checked against the address a name resolves to, on every redirect too.
   */
  allowAddresses?: string[];
  /** Redirects followed per request, each re-checked against this policy (default 5). */
  maxRedirects?: number;
  /** Largest response body read into memory (default 5 MiB); streams are bounded per message instead. */
  maxResponseBytes?: number;
  /** Time allowed for a whole request, headers and body (default 10 s). */
  timeoutMs?: number;
  /** DNS resolution (default: the system resolver). */
  lookup?: LookupFunction;
  /** Extra CA certificates (PEM) to trust, e.g. a throwaway test CA. Certificates are always validated. */
  ca?: string | string[];
  /**
   * The HTTP cache for GET requests; `false` disables it (default: a new 32 MiB in-memory `HttpCache` per fetcher).
   * Share one cache only among fetchers with the same policy: a cached answer is served without a DNS lookup.
   */
  cache?: HttpCache | false;
  /** `User-Agent` header, unless a request sets its own (default `agentry-client/0.1`). */
  userAgent?: string;
}

export interface SecureRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Override the policy's limits for this request. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /**
   * `stream`: hand back the body unread (SSE, NDJSON) with no total size bound; the caller reads it.
   * Default: the body is read (bounded) and buffered.
   */
  responseType?: 'buffer' | 'stream';
  /** `no-store`: bypass the cache for this request. */
  cacheMode?: 'default' | 'no-store';
  /**
   * The headers and query parameters that carry this request's credentials (an API key's header or parameter,
   * whatever its name). On any redirect to another origin (scheme, host or port) they are dropped, as
   * `Authorization`, `Proxy-Authorization`, `Cookie` and `X-API-Key` always are.
   */
  credentials?: { headers?: readonly string[]; query?: readonly string[] };
}

export interface FetchResult {
  /** The response (body buffered unless `responseType: 'stream'`). */
  response: Response;
  /** The final URL, after redirects. */
  url: string;
  /** The response came from the cache without a request. */
  fromCache: boolean;
  /** A conditional request was answered 304 and the cached response reused. */
  revalidated: boolean;
  /** The URLs redirected through, in order. */
  redirects: string[];
}

export interface SecureFetcher {
  readonly policy: Readonly<FetchPolicy>;
  fetch(input: string | URL, init?: SecureRequestInit): Promise<FetchResult>;
  /**
   * Stops background cache revalidations and closes pooled connections once the requests in flight (streams being
   * read included) are done. Idempotent; `fetch` refuses afterwards.
   */
  close(): Promise<void>;
}

/** What every HTTP cache offers its owner (the fetcher itself needs an `HttpCache` from fetch/cache.ts). */
export interface HttpCacheLike {
  readonly size: number;
  clear(): void;
}
