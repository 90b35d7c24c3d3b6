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
import { BufferedResponse } from './buffered-response.js';
import { type CacheHit, type CacheRequest, HttpCache } from './cache.js';
import { deltaSeconds, parseCacheControl } from './cache-control.js';
import { Deadline } from './deadline.js';
import { FetchError, FetchRefusedError, NetworkError } from './errors.js';
import { type HeaderPairs, headerValue } from './freshness.js';
import {
  type BodyRule,
  type BufferedWire,
  createAgent,
  networkError,
  type StreamWire,
  sendBuffered,
  sendStreaming,
} from './network.js';
import { type EffectivePolicy, effectivePolicy } from './policy.js';
import { chainCredentials, followRedirect, isRedirect, type OutgoingRequest, visitKey } from './redirects.js';
import { checkUrl, parseUrl, type ResolvedTarget, resolveTarget, type Target } from './target.js';
import type { FetchPolicy, FetchResult, SecureFetcher, SecureRequestInit } from './types.js';

/** One step of a redirect chain, answered from the cache or the network. */
interface Hop {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderPairs;
  /** Buffered bytes; a readable still to be read in stream mode; null when there is no body. */
  readonly body: Uint8Array | StreamWire['body'] | null;
  readonly fromCache: boolean;
  readonly revalidated: boolean;
}

interface RequestContext {
  readonly init: SecureRequestInit;
  readonly stream: boolean;
  readonly maxResponseBytes: number;
  readonly timeoutMs: number;
  readonly url: string;
  /** Started when a request of the chain first goes to the network: answers from the cache need no timer. */
  deadline: Deadline | undefined;
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

/**
 * The fetcher every request of resolution and invocation goes through: HTTPS only and public addresses only unless
 * the policy allows more, each address checked as connected and on every redirect, bounded bodies and times, and an
 * HTTP cache for GETs.
 *
 * @example
 * ```ts
 * import { createSecureFetcher } from '@agentry/client';
 *
 * // Local development: plain HTTP and loopback, which the default policy refuses.
 * const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, timeoutMs: 5_000 });
 * const { response, fromCache } = await fetcher.fetch('http://127.0.0.1:8080/.well-known/woa.json');
 * console.log(response.status, fromCache, await response.json());
 * await fetcher.close();
 * ```
 */
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
      timeoutMs: init.timeoutMs ?? this.#policy.timeoutMs,
      url: request.url.href,
      deadline: undefined,
    };
    const redirects: string[] = [];
    const credentials = chainCredentials(request.url, init.credentials);
    // Filled at the first redirect: most requests have none.
    let visited: Set<string> | undefined;
    let from: string | undefined;
    try {
      for (;;) {
        const target = checkUrl(request.url, this.#policy, from);
        const hop = await this.#hop(target, request, context, from);
        const location = isRedirect(hop.status) ? headerValue(hop.headers, 'location') : undefined;
        if (location === undefined) return finish(hop, request.url.href, redirects);
        const next = followRedirect(request, hop.status, location, credentials);
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
      context.deadline?.clear();
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
  #hop(target: Target, request: OutgoingRequest, context: RequestContext, from?: string): Promise<Hop> {
    const cache = this.#cacheFor(request, context);
    return cache === undefined
      ? this.#networkHop(target, request, context, from)
      : this.#cacheHop(cache, target, request, context, from);
  }

  /** A GET the cache may answer, or store the answer to. */
  async #cacheHop(
    cache: HttpCache,
    target: Target,
    request: OutgoingRequest,
    context: RequestContext,
    from: string | undefined,
  ): Promise<Hop> {
    const cacheRequest: CacheRequest = { url: withoutFragment(target.url), headers: request.headers };
    const hit = cache.lookup(cacheRequest);
    if (hit !== undefined && !mustRevalidate(request.headers)) {
      if (hit.state === 'stale-while-revalidate') this.#revalidateInBackground(cache, target, request, hit);
      if (hit.state !== 'stale')
        return cachedHop(hit.entry.status, hit.entry.statusText, hit.headers, hit.entry.body);
    }
    const sent =
      hit === undefined
        ? request
        : { ...request, headers: { ...request.headers, ...hit.entry.conditionalHeaders } };
    const deadline = deadlineOf(context);
    const requestTime = cache.now();
    const resolved = await resolveTarget(target, this.#policy, deadline, from);
    const wire = await sendBuffered(
      this.#agent,
      resolved,
      sent,
      deadline,
      bodyRule(request.method, context.maxResponseBytes),
    );
    const responseTime = cache.now();
    if (hit !== undefined && wire.status === 304) {
      cache.refresh(hit.entry, wire.headers, requestTime, responseTime);
      const again = cache.lookup(cacheRequest) ?? hit;
      return {
        ...cachedHop(hit.entry.status, hit.entry.statusText, again.headers, hit.entry.body),
        fromCache: false,
        revalidated: true,
      };
    }
    if (wire.status !== 304) cache.store(cacheRequest, wire, requestTime, responseTime);
    return networkHop(wire);
  }

  /** A request the cache has no part in: resolved and checked (one lookup), sent to a checked address. */
  async #networkHop(
    target: Target,
    request: OutgoingRequest,
    context: RequestContext,
    from: string | undefined,
  ): Promise<Hop> {
    const deadline = deadlineOf(context);
    const resolved = await resolveTarget(target, this.#policy, deadline, from);
    let hop: Hop;
    if (context.stream) {
      const wire = await sendStreaming(this.#agent, resolved, request, deadline);
      hop = { ...networkHop(wire), body: await streamBody(wire, resolved, request.method, deadline) };
    } else {
      const rule = bodyRule(request.method, context.maxResponseBytes);
      hop = networkHop(await sendBuffered(this.#agent, resolved, request, deadline, rule));
    }
    // An unsafe method that succeeded changed the resource: stored answers for it are out of date.
    if (this.#cache !== undefined && !SAFE_METHODS.has(request.method) && hop.status < 400) {
      this.#cache.invalidate(withoutFragment(target.url));
    }
    return hop;
  }

  /** The cache, when this request may use it: a buffered GET, not opted out, not already conditional. */
  #cacheFor(request: OutgoingRequest, context: RequestContext): HttpCache | undefined {
    if (this.#cache === undefined || request.method !== 'GET' || context.stream) return undefined;
    if (context.init.cacheMode === 'no-store') return undefined;
    if (CONDITIONAL_FIELDS.some((name) => name in request.headers)) return undefined;
    if (parseCacheControl(request.headers['cache-control']).has('no-store')) return undefined;
    return this.#cache;
  }

  #revalidateInBackground(cache: HttpCache, target: Target, request: OutgoingRequest, hit: CacheHit): void {
    if (this.#closed) return;
    const running = cache.revalidateInBackground(hit.entry, async () => {
      const deadline = new Deadline(this.#policy.timeoutMs, target.url.href, this.#background.signal);
      try {
        const sent = { ...request, headers: { ...request.headers, ...hit.entry.conditionalHeaders } };
        const requestTime = cache.now();
        const resolved = await resolveTarget(target, this.#policy, deadline);
        const rule = bodyRule('GET', this.#policy.maxResponseBytes);
        const wire = await sendBuffered(this.#agent, resolved, sent, deadline, rule);
        const responseTime = cache.now();
        if (wire.status === 304) {
          cache.refresh(hit.entry, wire.headers, requestTime, responseTime);
          return;
        }
        const cacheRequest = { url: withoutFragment(target.url), headers: request.headers };
        cache.store(cacheRequest, wire, requestTime, responseTime);
      } finally {
        deadline.clear();
      }
    });
    if (running === undefined) return;
    this.#pending.add(running);
    void running.finally(() => this.#pending.delete(running));
  }
}

/** The request's deadline, started when a request of the chain first goes to the network. */
function deadlineOf(context: RequestContext): Deadline {
  context.deadline ??= new Deadline(context.timeoutMs, context.url, context.init.signal);
  return context.deadline;
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

/** What a buffered answer's body is read for: HEAD, 204/304 and a redirect to follow need none. */
function bodyRule(method: string, maxBytes: number): BodyRule {
  return method === 'HEAD' ? { maxBytes, discard: always } : { maxBytes, discard: bodyNotWanted };
}

function always(): boolean {
  return true;
}

function bodyNotWanted(status: number, headers: ReadonlyArray<[string, string]>): boolean {
  return (
    NULL_BODY_STATUSES.has(status) || (isRedirect(status) && headerValue(headers, 'location') !== undefined)
  );
}

/** A stream's body, handed on unread; none for HEAD, 204/304 and a redirect to follow (drained for reuse). */
async function streamBody(
  wire: StreamWire,
  target: ResolvedTarget,
  method: string,
  deadline: Deadline,
): Promise<StreamWire['body'] | null> {
  if (!(method === 'HEAD' || bodyNotWanted(wire.status, wire.headers))) return wire.body;
  try {
    await wire.body.dump();
  } catch (error) {
    if (deadline.aborted) throw deadline.reason;
    throw networkError(error, target);
  }
  return null;
}

function networkHop(wire: BufferedWire | StreamWire): Hop {
  return {
    status: wire.status,
    statusText: wire.statusText,
    headers: wire.headers,
    body: wire.body,
    fromCache: false,
    revalidated: false,
  };
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
