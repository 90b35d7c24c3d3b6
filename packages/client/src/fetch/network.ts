/**
 * Sends one HTTP request to an address the target check approved. The request goes to an origin spelled with that
 * IP address, while the `Host` header carries the name, and undici derives the TLS server name (SNI, and the name the
 * certificate is verified for) from that header. So there is no second DNS lookup anywhere, and certificates are
 * still checked against the name the caller asked for.
 */
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { FetchError, NetworkError } from './errors.js';
import type { EffectivePolicy } from './policy.js';
import type { ResolvedTarget } from './target.js';

export interface WireRequest {
  readonly method: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

export interface WireResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: ReadonlyArray<[string, string]>;
  readonly body: Readable & { dump(options?: { limit: number }): Promise<void> };
}

/** One connection pool per fetcher; TLS trusts Node's roots plus `policy.ca`, and certificates are always verified. */
export function createAgent(policy: EffectivePolicy): Agent {
  return new Agent({
    connect: { rejectUnauthorized: true, ...(policy.ca === undefined ? {} : { ca: policy.ca }) },
  });
}

// Errors raised before a byte was sent, after which the next address of the name may be tried.
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export async function send(
  agent: Dispatcher,
  target: ResolvedTarget,
  request: WireRequest,
  signal: AbortSignal,
): Promise<WireResponse> {
  const { url } = target;
  const path = `${url.pathname}${url.search}`;
  const headers = { ...request.headers, host: url.host };
  let lastError: unknown;
  for (const { address, family } of target.addresses) {
    const origin = `${url.protocol}//${family === 6 ? `[${address}]` : address}:${target.port}`;
    try {
      const response = await agent.request({
        origin,
        path,
        method: request.method as Dispatcher.HttpMethod,
        headers,
        body: request.body ?? null,
        signal,
        // undici's own idle timers are off: the deadline bounds a buffered answer as a whole, and a stream's reader
        // bounds the stream.
        bodyTimeout: 0,
        headersTimeout: 0,
      });
      return {
        status: response.statusCode,
        statusText: response.statusText,
        headers: headerPairs(response.headers),
        body: response.body,
      };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (errorCode(error) === 'UND_ERR_INVALID_ARG') {
        const detail = error instanceof Error ? error.message : String(error);
        throw new FetchError(`The request to ${url.href} is not valid: ${detail}.`, url.href, {
          cause: error,
        });
      }
      lastError = error;
      if (!CONNECT_FAILURES.has(errorCode(error))) break;
    }
  }
  throw networkError(lastError, target);
}

function headerPairs(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) pairs.push([name, each]);
    else pairs.push([name, value]);
  }
  return pairs;
}

export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** Turns a connection or transfer failure into a NetworkError saying what failed, where. */
export function networkError(error: unknown, target: ResolvedTarget): NetworkError {
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  const where = `${target.hostname}:${target.port}`;
  const message = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/i.test(code)
    ? `The TLS certificate of ${where} was not accepted: ${detail}${code === '' ? '' : ` (${code})`}.`
    : `Cannot reach ${where}: ${detail}${code === '' || detail.includes(code) ? '' : ` (${code})`}.`;
  return new NetworkError(message, target.url.href, { cause: error });
}
