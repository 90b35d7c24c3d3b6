/**
 * `agent+wss://` (agent:// §6.1, §8: streams over WebSocket use NDJSON). One connection per call: the client sends
 * one request message and reads NDJSON messages (one or more lines per WebSocket message) until the final one.
 *
 *   → {"id", "agent", "operation", "input", "stream", "sessionId"?, "taskId"?, "version"?, "idempotencyKey"?,
 *      "delegationChain"?}
 *   ← {"id", "type": "chunk", "data"}            zero or more partial results
 *   ← {"id", "type": "result", "output"}         final: success
 *   ← {"id", "type": "error", "error": {...}}    final: problem details (or an AIDIP / JSON-RPC error object)
 *
 * Messages for other ids and of other types are ignored, so that hosts may multiplex and extend. The handshake
 * carries the HTTP headers (auth, session, version, delegation), and a handshake answered with an HTTP error is
 * read like any HTTP error. The fetcher's SSRF rules apply (ws-guard.ts). docs/invocation.md is the reference for
 * hosts.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { JsonValue, WebSocketBinding } from '@agentry/core';
import WebSocket from 'ws';
import { readErrorBody, readErrorValue } from '../error-body.js';
import { agentErrorFrom, contextDetails, protocolError, transportErrorFrom } from '../error-mapping.js';
import { TransportError } from '../errors.js';
import { withQuery } from '../http/exchange.js';
import { isObject } from '../json.js';
import { parseRetryAfter } from '../retry-after.js';
import { parseNdjson, StreamFormatError } from '../streams/ndjson.js';
import { AsyncQueue } from '../streams/queue.js';
import type { InvokeEvent } from '../types.js';
import { envelopeWithMeta } from './envelope.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';
import { guardWebSocketUrl } from './ws-guard.js';

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

export const wssTransport: BindingTransport<WebSocketBinding> = {
  kind: 'wss',
  async call(ctx: CallContext<WebSocketBinding>): Promise<RawResult> {
    const url = withQuery(ctx.binding.url, ctx.query);
    checkScheme(url, ctx);
    let lookup: LookupFunction;
    try {
      lookup = await guardWebSocketUrl(url, ctx.fetcher.policy, ctx.signal);
    } catch (error) {
      throw transportErrorFrom(error, { ...ctx.errors, endpoint: url }, ctx.signal);
    }
    const events = exchange(url, lookup, ctx);
    if (ctx.stream) return { status: 200, headers: {}, events };
    let output: JsonValue | undefined;
    for await (const event of events) {
      if (event.event === 'result') output = event.data;
    }
    return { status: 200, headers: {}, output: output ?? null };
  },
};

function checkScheme(url: string, ctx: CallContext<WebSocketBinding>): void {
  const scheme = new URL(url).protocol;
  if (scheme === 'wss:' || (scheme === 'ws:' && ctx.fetcher.policy.allowHttp === true)) return;
  const allowed = scheme === 'ws:' ? ' Plain ws: is allowed only with allowHttp (--allow-http).' : '';
  throw new TransportError(
    `Refused to open ${url}: a WebSocket binding must use wss:.${allowed}`,
    { ...contextDetails(ctx.errors), endpoint: url },
    'refused',
  );
}

/** Opens the socket, sends the request, and yields `chunk` and `result` events until the final message. */
function exchange(
  url: string,
  lookup: LookupFunction,
  ctx: CallContext<WebSocketBinding>,
): AsyncIterable<InvokeEvent> {
  const errors = { ...ctx.errors, endpoint: url };
  const id = randomUUID();
  const policy = ctx.fetcher.policy;
  const extraCa = policy.ca === undefined ? [] : Array.isArray(policy.ca) ? policy.ca : [policy.ca];
  const socket = new WebSocket(url, {
    headers: ctx.headers,
    handshakeTimeout: policy.timeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    maxPayload: policy.maxResponseBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    followRedirects: false,
    // Connect only to the address the guard checked.
    lookup,
    ...(extraCa.length > 0 ? { ca: [...rootCertificates, ...extraCa] } : {}),
  });
  const lines = new AsyncQueue<string>(() => socket.close(1000));
  const onAbort = (): void => {
    lines.fail(ctx.signal?.reason);
    socket.terminate();
  };
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    ctx.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          lines.fail(
            new TransportError(
              `${url} did not finish within ${ctx.timeoutMs} ms.`,
              contextDetails(errors),
              'timeout',
            ),
          );
          socket.terminate();
        }, ctx.timeoutMs);

  socket.on('open', () => {
    socket.send(`${JSON.stringify({ id, ...envelopeWithMeta(ctx), stream: ctx.stream })}\n`);
  });
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      lines.fail(protocolError(`${url} sent a binary message; NDJSON text was expected.`, errors));
      socket.terminate();
      return;
    }
    lines.push(`${rawText(data)}\n`);
  });
  socket.on('unexpected-response', (_request, response) => {
    void handshakeError(response, errors).then((error) => {
      lines.fail(error);
      socket.terminate();
    });
  });
  socket.on('error', (error) => lines.fail(transportErrorFrom(error, errors, ctx.signal)));
  socket.on('close', (code, reason) => {
    lines.fail(
      protocolError(
        `${url} closed the connection (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}) before a final result or error message.`,
        errors,
      ),
    );
  });

  const cleanup = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onAbort);
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)
      socket.close(1000);
  };

  async function* events(): AsyncGenerator<InvokeEvent> {
    try {
      for await (const message of parseNdjson(lines, policy.maxResponseBytes)) {
        if (!isObject(message) || message['id'] !== id) continue;
        const type = message['type'];
        if (type === 'chunk') yield { event: 'chunk', data: message['data'] ?? null };
        else if (type === 'result') {
          yield { event: 'result', data: message['output'] ?? null };
          return;
        } else if (type === 'error') {
          throw agentErrorFrom(readErrorValue(message['error'] ?? message), errors);
        }
      }
    } catch (error) {
      if (error instanceof StreamFormatError) {
        throw protocolError(`${url} sent a broken message: ${error.message}.`, errors, error);
      }
      throw error;
    } finally {
      cleanup();
    }
  }
  return events();
}

/** A handshake answered with an HTTP status (401, 404, 429...) is read like any HTTP error. */
async function handshakeError(response: IncomingMessage, errors: CallContext['errors']): Promise<Error> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response) chunks.push(chunk as Buffer);
  } catch {
    // The status alone still says what happened.
  }
  const transport: { status: number; retryAfterMs?: number } = { status: response.statusCode ?? 502 };
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  if (retryAfterMs !== undefined) transport.retryAfterMs = retryAfterMs;
  const body = readErrorBody(
    Buffer.concat(chunks).toString('utf8'),
    response.headers['content-type'] ?? null,
  );
  return agentErrorFrom(body, errors, transport);
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
