/**
 * Server-Sent Events (`text/event-stream`), parsed by eventsource-parser. Each event's data is read as JSON when it
 * is JSON and kept as text otherwise (token streams are often plain text).
 */
import type { JsonValue } from '@agentry/core';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { tryParseJson } from '../json.js';
import { DEFAULT_MESSAGE_LIMIT, StreamFormatError } from './ndjson.js';

export interface SseEvent {
  /** The event name; `message` when the server named none (as browsers report it). */
  event: string;
  data: JsonValue;
  id?: string;
}

export async function* parseSse(
  chunks: AsyncIterable<string>,
  maxEventLength: number = DEFAULT_MESSAGE_LIMIT,
): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  let failure: Error | undefined;
  const parser = createParser({
    maxBufferSize: maxEventLength,
    onEvent: (message) => ready.push(toEvent(message)),
    onError: (error) => {
      // Unknown fields and bad `retry` values are ignorable by the SSE standard; only the bound is fatal.
      if (error.type === 'max-buffer-size-exceeded') {
        failure = new StreamFormatError(
          `An SSE event is longer than ${maxEventLength} characters`,
          'too-large',
        );
      }
    },
  });
  for await (const chunk of chunks) {
    parser.feed(chunk);
    yield* ready.splice(0);
    if (failure !== undefined) throw failure;
  }
  // An event not closed by a blank line when the stream ends is discarded, as the standard says.
}

function toEvent(message: EventSourceMessage): SseEvent {
  const data = tryParseJson(message.data);
  const event: SseEvent = {
    event: message.event ?? 'message',
    data: data === undefined ? message.data : data,
  };
  if (message.id !== undefined) event.id = message.id;
  return event;
}
