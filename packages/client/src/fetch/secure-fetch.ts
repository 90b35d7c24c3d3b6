/**
 * The secure fetcher: every URL Agentry was given is fetched through one, so the rules hold in one place.
 *
 * Per request: the URL is checked (https, unless allowHttp; no IP literal that is not public; no credentials), the
 * name is resolved once and every address checked (unless allowPrivateNetwork or allowAddresses), and the connection
 * goes to a checked address with TLS verified for the name. Redirects are followed by hand, each one checked the same
 * way, counted and watched for loops. The answer is bounded in size while it is read and the whole exchange in time.
 * GETs go through an RFC 9111 cache (fetch/cache.ts) unless the policy turns it off.
 */
import { Readable } from 'node:stream';
import type { Agent } from 'undici';
import { readBounded } from './body.js';
import { BufferedResponse } from './buffered-response.js';
import { type CacheHit, HttpCache } from './cache.js';
import { deltaSeconds, parseCacheControl } from './cache-control.js';
import { Deadline } from './deadline.js';
import { FetchError, FetchRefusedError, NetworkError } from './errors.js';
import { type HeaderPairs, headerValue } from './freshness.js';
import { createAgent, networkError, send, type WireResponse } from './network.js';
import { type EffectivePolicy, effectivePolicy } from './policy.js';
import { followRedirect, isRedirect, type OutgoingRequest, visitKey } from './redirects.js';
import { checkUrl, parseUrl, type ResolvedTarget, resolveTarget, type Target } from './target.js';
import type { FetchPolicy, FetchResult, SecureFetcher, SecureRequestInit } from './types.js';

/** One step of a redirect chain, answered from the cache or the network. */
interface Hop {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderPairs;
  /** Buffered bytes; a readable still to be read in stream mode; null when there is no body. */
  readonly body: Uint8Array | WireResponse['body'] | null;
  readonly fromCache: boolean;
  readonly revalidated: boolean;
}

interface RequestContext {
  readonly init: SecureRequestInit;
  readonly stream: boolean;
  readonly maxResponseBytes: number;
  readonly deadline: LazyDeadline;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const CONDITIONAL_FIELDS = [
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
  'range',
];

export function createSecureFetcher(policy: FetchPolicy = {}): SecureFetcher {
  return new PinningFetcher(policy);
}

class PinningFetcher implements SecureFetcher {
  readonly policy: Readonly<FetchPolicy>;
  readonly #policy: EffectivePolicy;
  readonly #cache: HttpCache | undefined;
  readonly #agent: Agent;
  // Background revalidations belong to the fetcher; close() stops them.
  readonly #background = new AbortController();
  readonly #pending = new Set<Promise<void>>();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(policy: FetchPolicy) {
    this.policy = policy;
    this.#policy = effectivePolicy(policy);
    this.#cache = policy.cache === false ? undefined : (policy.cache ?? new HttpCache());
    this.#agent = createAgent(this.#policy);
  }

  async fetch(input: string | URL, init: SecureRequestInit = {}): Promise<FetchResult> {
    if (this.#closed) throw new FetchError('This fetcher is closed.', String(input));
    init.signal?.throwIfAborted();
    let request = initialRequest(parseUrl(input), init, this.#policy);
    const context: RequestContext = {
      init,
      stream: init.responseType === 'stream',
      maxResponseBytes: init.maxResponseBytes ?? this.#policy.maxResponseBytes,
      deadline: new LazyDeadline(init.timeoutMs ?? this.#policy.timeoutMs, request.url.href, init.signal),
    };
    const redirects: string[] = [];
    // Filled at the first redirect: most requests have none.
    let visited: Set<string> | undefined;
    let from: string | undefined;
    try {
      for (;;) {
        const target = checkUrl(request.url, this.#policy, from);
        const hop = await this.#hop(target, request, context, from);
        const location = isRedirect(hop.status) ? headerValue(hop.headers, 'location') : undefined;
        if (location === undefined) return finish(hop, request.url.href, redirects);
        const next = followRedirect(request, hop.status, location);
        const refuse = (message: string, reason: FetchRefusedError['reason']): FetchRefusedError =>
          new FetchRefusedError(message, next.url.href, reason);
        visited ??= new Set([visitKey(request)]);
        if (visited.has(visitKey(next))) {
          throw refuse(
            `${request.url.href} redirects back to ${next.url.href}, a redirect loop.`,
            'redirect-loop',
          );
        }
        if (redirects.length >= this.#policy.maxRedirects) {
          throw refuse(
            `More than ${this.#policy.maxRedirects} redirects (the last from ${request.url.href}); raise maxRedirects to follow more.`,
            'too-many-redirects',
          );
        }
        redirects.push(next.url.href);
        visited.add(visitKey(next));
        from = request.url.href;
        request = next;
      }
    } finally {
      // A buffered answer is complete here; a stream is handed to its reader, who bounds it from now on.
      context.deadline.clear();
    }
  }

  /** Stops background revalidations and closes the pool once requests in flight are done. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#background.abort(new FetchError('The fetcher was closed.', ''));
      await Promise.all(this.#pending);
      await this.#agent.close();
    })();
    return this.#closing;
  }

  /** One request: from the cache when it may be, otherwise over the network (conditional if the cache has a copy). */
  async #hop(target: Target, request: OutgoingRequest, context: RequestContext, from?: string): Promise<Hop> {
    const cache = this.#cacheFor(request, context);
    const cacheRequest = { url: withoutFragment(target.url), headers: request.headers };
    let hit: CacheHit | undefined;
    if (cache !== undefined) {
      hit = cache.lookup(cacheRequest);
      if (hit !== undefined && !mustRevalidate(request.headers)) {
        if (hit.state === 'stale-while-revalidate') this.#revalidateInBackground(cache, target, request, hit);
        if (hit.state !== 'stale')
          return cachedHop(hit.entry.status, hit.entry.statusText, hit.headers, hit.entry.body);
      }
    }
    const signal = context.deadline.signal;
    const sent =
      hit === undefined
        ? request
        : { ...request, headers: { ...request.headers, ...hit.entry.conditionalHeaders } };
    const requestTime = cache?.now() ?? 0;
    const { wire, resolved } = await this.#exchange(target, sent, signal, from);
    const responseTime = cache?.now() ?? 0;
    if (cache !== undefined && hit !== undefined && wire.status === 304) {
      await wire.body.dump();
      cache.refresh(hit.entry, wire.headers, requestTime, responseTime);
      const again = cache.lookup(cacheRequest) ?? hit;
      return {
        ...cachedHop(hit.entry.status, hit.entry.statusText, again.headers, hit.entry.body),
        fromCache: false,
        revalidated: true,
      };
    }
    const body = await readBody(wire, resolved, request.method, context, signal);
    if (cache !== undefined && wire.status !== 304 && !(body instanceof Readable)) {
      cache.store(cacheRequest, { ...wire, body }, requestTime, responseTime);
    }
    if (!SAFE_METHODS.has(request.method) && wire.status < 400) this.#cache?.invalidate(cacheRequest.url);
    return {
      status: wire.status,
      statusText: wire.statusText,
      headers: wire.headers,
      body,
      fromCache: false,
      revalidated: false,
    };
  }

  /** The cache, when this request may use it: a buffered GET, not opted out, not already conditional. */
  #cacheFor(request: OutgoingRequest, context: RequestContext): HttpCache | undefined {
    if (this.#cache === undefined || request.method !== 'GET' || context.stream) return undefined;
    if (context.init.cacheMode === 'no-store') return undefined;
    if (CONDITIONAL_FIELDS.some((name) => name in request.headers)) return undefined;
    if (parseCacheControl(request.headers['cache-control']).has('no-store')) return undefined;
    return this.#cache;
  }

  /** Resolves and checks the target (one lookup), then sends the request to a checked address. */
  async #exchange(target: Target, request: OutgoingRequest, signal: AbortSignal, from?: string) {
    const resolved = await resolveTarget(target, this.#policy, signal, from);
    const wire = await send(this.#agent, resolved, request, signal);
    return { wire, resolved };
  }

  #revalidateInBackground(cache: HttpCache, target: Target, request: OutgoingRequest, hit: CacheHit): void {
    if (this.#closed) return;
    const running = cache.revalidateInBackground(hit.entry, async () => {
      const deadline = new Deadline(this.#policy.timeoutMs, target.url.href, this.#background.signal);
      try {
        const sent = { ...request, headers: { ...request.headers, ...hit.entry.conditionalHeaders } };
        const requestTime = cache.now();
        const { wire, resolved } = await this.#exchange(target, sent, deadline.signal);
        const responseTime = cache.now();
        const cacheRequest = { url: withoutFragment(target.url), headers: request.headers };
        if (wire.status === 304) {
          await wire.body.dump();
          cache.refresh(hit.entry, wire.headers, requestTime, responseTime);
          return;
        }
        const context = { init: {}, stream: false, maxResponseBytes: this.#policy.maxResponseBytes };
        const body = await readBody(wire, resolved, 'GET', context, deadline.signal);
        if (!(body instanceof Readable))
          cache.store(cacheRequest, { ...wire, body }, requestTime, responseTime);
      } finally {
        deadline.clear();
      }
    });
    if (running === undefined) return;
    this.#pending.add(running);
    void running.finally(() => this.#pending.delete(running));
  }
}

/** The first request of a chain: method upper-cased, field names lower-cased, a User-Agent unless one is given. */
function initialRequest(url: URL, init: SecureRequestInit, policy: EffectivePolicy): OutgoingRequest {
  const headers: Record<string, string> = { 'user-agent': policy.userAgent };
  if (init.headers !== undefined) {
    for (const name of Object.keys(init.headers)) headers[name.toLowerCase()] = String(init.headers[name]);
  }
  const method = (init.method ?? 'GET').toUpperCase();
  return init.body === undefined ? { url, method, headers } : { url, method, headers, body: init.body };
}

/** `Cache-Control: no-cache` or `max-age=0` (or `Pragma: no-cache`) on the request: use a stored copy only if revalidated. */
function mustRevalidate(headers: Readonly<Record<string, string>>): boolean {
  const cacheControl = headers['cache-control'];
  if (cacheControl === undefined) return /no-cache/i.test(headers['pragma'] ?? '');
  const directives = parseCacheControl(cacheControl);
  return directives.has('no-cache') || deltaSeconds(directives, 'max-age') === 0;
}

async function readBody(
  wire: WireResponse,
  target: ResolvedTarget,
  method: string,
  context: Pick<RequestContext, 'stream' | 'maxResponseBytes'>,
  signal: AbortSignal,
): Promise<Uint8Array | WireResponse['body'] | null> {
  // A redirect that will be followed needs no body (dump reads a little, so the connection can be reused).
  const followed = isRedirect(wire.status) && headerValue(wire.headers, 'location') !== undefined;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(wire.status) || followed) {
    await wire.body.dump();
    return null;
  }
  if (context.stream) return wire.body;
  try {
    return await readBounded(
      wire.body,
      context.maxResponseBytes,
      target.url.href,
      headerValue(wire.headers, 'content-length'),
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof FetchError) throw error;
    throw networkError(error, target);
  }
}

/** The cache key of a URL: a fragment names a part of the resource, not another resource. */
function withoutFragment(url: URL): string {
  const at = url.href.indexOf('#');
  return at === -1 ? url.href : url.href.slice(0, at);
}

function cachedHop(status: number, statusText: string, headers: HeaderPairs, body: Uint8Array | null): Hop {
  return { status, statusText, headers, body, fromCache: true, revalidated: false };
}

function finish(hop: Hop, url: string, redirects: string[]): FetchResult {
  const init = {
    status: hop.status,
    statusText: hop.statusText,
    headers: hop.headers as Array<[string, string]>,
  };
  const redirected = redirects.length > 0;
  let response: Response;
  try {
    if (hop.body instanceof Readable) {
      response = new Response(Readable.toWeb(hop.body) as ReadableStream<Uint8Array>, init);
      Object.defineProperties(response, { url: { value: url }, redirected: { value: redirected } });
    } else {
      response = new BufferedResponse(hop.body, init, url, redirected);
    }
  } catch (error) {
    const message = `${url} answered with a response that cannot be represented: ${String(error)}.`;
    throw new NetworkError(message, url, { cause: error });
  }
  return { response, url, fromCache: hop.fromCache, revalidated: hop.revalidated, redirects };
}

/** The deadline, started only when a request goes to the network: answers from the cache need no timer. */
class LazyDeadline {
  #deadline: Deadline | undefined;
  constructor(
    readonly timeoutMs: number,
    readonly url: string,
    readonly callerSignal: AbortSignal | undefined,
  ) {}

  get signal(): AbortSignal {
    this.#deadline ??= new Deadline(this.timeoutMs, this.url, this.callerSignal);
    return this.#deadline.signal;
  }

  clear(): void {
    this.#deadline?.clear();
  }
}
