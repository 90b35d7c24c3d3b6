/**
 * Streamed HTTP answers as `InvokeEvent`s: `text/event-stream` (SSE) and `application/x-ndjson` (and the other
 * spellings of JSON Lines seen in the wild). An SSE event named `error` carries an error object and ends the stream
 * with the `AgentError` it describes. A body that breaks off is a `TransportError`.
 */
import { readErrorValue } from '../error-body.js';
import { agentErrorFrom, type ErrorContext, protocolError, transportErrorFrom } from '../error-mapping.js';
import { AgentError } from '../errors.js';
import { isObject, mediaTypeOf } from '../json.js';
import { parseNdjson, StreamFormatError } from '../streams/ndjson.js';
import { parseSse } from '../streams/sse.js';
import { textChunks } from '../streams/text.js';
import type { InvokeEvent } from '../types.js';

const NDJSON_TYPES: ReadonlySet<string> = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'application/jsonlines',
]);

/** True for the media types answered as streams. */
export function isStreamMediaType(contentType: string | null): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'text/event-stream' || NDJSON_TYPES.has(type);
}

/** The events of a streamed answer, or undefined when the answer is not a stream. */
export function eventsOf(
  response: Response,
  ctx: ErrorContext,
  maxMessageBytes?: number,
): AsyncIterable<InvokeEvent> | undefined {
  return eventsOfType(mediaTypeOf(response.headers.get('content-type')), response, ctx, maxMessageBytes);
}

/** `eventsOf` for a media type already read (`mediaTypeOf`). */
export function eventsOfType(
  type: string,
  response: Response,
  ctx: ErrorContext,
  maxMessageBytes?: number,
): AsyncIterable<InvokeEvent> | undefined {
  if (type === 'text/event-stream') return sseEvents(response, ctx, maxMessageBytes);
  if (NDJSON_TYPES.has(type)) return ndjsonEvents(response, ctx, maxMessageBytes);
  return undefined;
}

async function* sseEvents(
  response: Response,
  ctx: ErrorContext,
  limit?: number,
): AsyncGenerator<InvokeEvent> {
  try {
    for await (const event of parseSse(textChunks(response.body), limit)) {
      if (event.event === 'error') throw agentErrorFrom(readErrorValue(event.data), ctx);
      yield event;
    }
  } catch (error) {
    throw streamError(error, ctx);
  }
}

async function* ndjsonEvents(
  response: Response,
  ctx: ErrorContext,
  limit?: number,
): AsyncGenerator<InvokeEvent> {
  try {
    for await (const data of parseNdjson(textChunks(response.body), limit)) {
      // Lines in the shape of Agentry's stream messages (as over WebSocket) say what they are; others are data.
      const kind = isObject(data) ? data['type'] : undefined;
      if (kind === 'chunk' && isObject(data)) yield { event: 'chunk', data: data['data'] ?? null };
      else if (kind === 'result' && isObject(data)) yield { event: 'result', data: data['output'] ?? null };
      else if (kind === 'error' && isObject(data))
        throw agentErrorFrom(readErrorValue(data['error'] ?? data), ctx);
      else yield { event: 'message', data };
    }
  } catch (error) {
    throw streamError(error, ctx);
  }
}

function streamError(error: unknown, ctx: ErrorContext): unknown {
  if (error instanceof StreamFormatError) {
    return protocolError(
      `${ctx.endpoint ?? 'The agent'} sent a broken stream: ${error.message}.`,
      ctx,
      error,
    );
  }
  return error instanceof AgentError ? error : transportErrorFrom(error, ctx);
}
