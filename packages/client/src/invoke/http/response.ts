/**
 * Reading HTTP answers: headers as a plain record, error statuses as `AgentError`s, and bodies as output by their
 * media type (JSON, a stream of events, text).
 */
import type { JsonValue } from '@agentry/core';
import { readErrorBody } from '../error-body.js';
import { agentErrorFrom, type ErrorContext, protocolError } from '../error-mapping.js';
import type { AgentError } from '../errors.js';
import { isJsonType, mediaTypeOf } from '../json.js';
import { parseRetryAfter } from '../retry-after.js';
import type { InvokeEvent } from '../types.js';
import { eventsOfType } from './events.js';

export function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

/** The `AgentError` an error status (4xx/5xx) and its body describe. */
export async function errorFromResponse(response: Response, ctx: ErrorContext): Promise<AgentError> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The body could not be read (reset, too large): the status alone still says what happened.
  }
  const transport: { status: number; retryAfterMs?: number } = { status: response.status };
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  if (retryAfterMs !== undefined) transport.retryAfterMs = retryAfterMs;
  return agentErrorFrom(readErrorBody(text, response.headers.get('content-type')), ctx, transport);
}

export type Body = { output: JsonValue } | { events: AsyncIterable<InvokeEvent> };

/** Whether text is empty or only whitespace (what `text.trim() === ''` says, without copying the text). */
export function isBlank(text: string): boolean {
  return text.length === 0 || !NON_SPACE.test(text);
}

// `\s` is exactly the set `String.prototype.trim` removes (WhiteSpace and LineTerminator).
const NON_SPACE = /\S/;
const JSON_START = /^\s*[[{"]/;

/** The body of a successful answer: events for SSE/NDJSON, JSON parsed, text as a string, nothing as null. */
export async function readBody(
  response: Response,
  ctx: ErrorContext,
  maxMessageBytes?: number,
): Promise<Body> {
  const contentType = response.headers.get('content-type');
  const mediaType = mediaTypeOf(contentType);
  const events = eventsOfType(mediaType, response, ctx, maxMessageBytes);
  if (events !== undefined) return { events };
  const text = await response.text();
  if (isBlank(text)) return { output: null };
  if (isJsonType(mediaType) || (contentType === null && JSON_START.test(text))) {
    try {
      return { output: JSON.parse(text) as JsonValue };
    } catch (error) {
      throw protocolError(
        `${ctx.endpoint ?? 'The agent'} answered ${response.status} with ${mediaType || 'no media type'} that is not valid JSON.`,
        ctx,
        error,
      );
    }
  }
  return { output: text };
}
