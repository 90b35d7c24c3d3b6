/**
 * One HTTP invocation, shared by every HTTP-based binding (WoA REST, AWP/AIDIP/TD endpoints, unix sockets, local
 * sockets): send the request, and read the answer as output, a stream of events, a deferred task or an error.
 */
import type { JsonValue } from '@agentry/core';
import { dropQueryCredentials, withoutCredentials } from '../../fetch/redirects.js';
import type { SecureFetcher, SecureRequestInit } from '../../fetch/types.js';
import type { CallContext, DeferredTask, HttpSend, RawResult } from '../bindings/types.js';
import { transportErrorFrom } from '../error-mapping.js';
import type { CredentialNames } from '../headers.js';
import { tryParseJson } from '../json.js';
import { deferredFrom } from '../tasks.js';
import { errorFromResponse, headerRecord, isBlank, readBody } from './response.js';

export interface HttpRequest {
  url: string;
  method: string;
  /** Request-specific headers (content type); the context's headers are added. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

const ACCEPT_JSON = 'application/json, application/problem+json;q=0.9, */*;q=0.5';
const ACCEPT_STREAM =
  'text/event-stream, application/x-ndjson;q=0.9, application/json;q=0.8, application/problem+json;q=0.8';

/**
 * A sender over the secure fetcher, turning its errors into `TransportError`s that name the URL. It names the
 * call's credentials to the fetcher, which drops them on a redirect to another origin.
 */
export function fetcherSend(fetcher: SecureFetcher, ctx: CallContext): HttpSend {
  return (url, init) =>
    fetcher.fetch(url, { ...init, credentials: ctx.credentials }).then(
      (result) => result.response,
      (error: unknown) => {
        throw transportErrorFrom(error, { ...ctx.errors, endpoint: url }, init.signal);
      },
    );
}

export async function httpExchange(
  send: HttpSend,
  request: HttpRequest,
  ctx: CallContext,
): Promise<RawResult> {
  const url = withQuery(request.url, ctx.query);
  // Later sources win: the request's own headers, then the context's.
  const headers: Record<string, string> = { accept: ctx.stream ? ACCEPT_STREAM : ACCEPT_JSON };
  const own = request.headers;
  if (own !== undefined) for (const name in own) headers[name] = own[name]!;
  const shared = ctx.headers;
  for (const name in shared) headers[name] = shared[name]!;
  const init: SecureRequestInit = {
    method: request.method,
    headers,
    // Invocations are never answered from the cache.
    cacheMode: 'no-store',
    responseType: ctx.stream ? 'stream' : 'buffer',
  };
  if (request.body !== undefined) init.body = request.body;
  if (ctx.signal !== undefined) init.signal = ctx.signal;
  if (ctx.timeoutMs !== undefined) init.timeoutMs = ctx.timeoutMs;

  const response = await send(url, init);
  const errors = { ...ctx.errors, endpoint: ctx.errors.endpoint ?? url };
  if (response.status >= 400) throw await errorFromResponse(response, errors);

  const result: RawResult = { status: response.status, headers: headerRecord(response.headers) };
  if (response.status === 202) {
    const text = await response.text().catch(() => '');
    const body = isBlank(text) ? undefined : tryParseJson(text);
    const pollHeaders = pollHeadersOf(ctx.headers);
    result.deferred = keptToItsOrigin(
      deferredFrom(response, url, body, ctx.spec, send, pollHeaders),
      url,
      ctx.credentials,
    );
    if (body !== undefined) result.output = body;
    return result;
  }
  const body = await readBody(response, errors, ctx.fetcher.policy.maxResponseBytes);
  if ('events' in body) result.events = body.events;
  else result.output = body.output;
  return result;
}

/**
 * A task whose poll URL is on another origin than the one the call was sent to is polled without the call's
 * credentials, as a redirect there would be: they were given for that origin.
 */
function keptToItsOrigin(task: DeferredTask, callUrl: string, credentials: CredentialNames): DeferredTask {
  if (task.pollUrl === undefined || !URL.canParse(task.pollUrl) || !URL.canParse(callUrl)) return task;
  const poll = new URL(task.pollUrl);
  if (poll.origin === new URL(callUrl).origin) return task;
  dropQueryCredentials(poll, credentials.query);
  return { ...task, pollUrl: poll.href, headers: withoutCredentials(task.headers, credentials.headers) };
}

/** Adds query parameters (repeated for arrays) to a URL, keeping those it has. */
export function withQuery(url: string, query: Record<string, string | string[]>): string {
  if (!hasKeys(query)) return url;
  const parsed = new URL(url);
  for (const name of Object.keys(query)) {
    const value = query[name]!;
    for (const item of Array.isArray(value) ? value : [value]) parsed.searchParams.append(name, item);
  }
  return parsed.href;
}

function hasKeys(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/** Polls carry who is asking (auth, session, API key), not what the call sent (idempotency key, body type). */
function pollHeadersOf(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-type' || lower.includes('idempotency')) continue;
    out[name] = value;
  }
  return out;
}

/** JSON request body text. */
export function jsonBody(value: JsonValue): string {
  return JSON.stringify(value);
}
