/**
 * A call's outcome as an HTTP answer: JSON output; a stream as Server-Sent Events (`event: chunk` / `result` /
 * `error`, JSON `data:`) or NDJSON (`{"type":"chunk","data":…}` lines, then `{"type":"result","output":…}` or
 * `{"type":"error","error":…}`); 202 with `Location` and `Retry-After` for a deferred task; problem details
 * otherwise. Invocation answers are never cached.
 */
import type { CallOutcome, StreamEvent } from '../runtime/types.js';
import { problemBody, problemResponse } from './problem-response.js';

export const JSON_TYPE = 'application/json';
export const SSE_TYPE = 'text/event-stream';
export const NDJSON_TYPE = 'application/x-ndjson';
/** What invocation routes can answer, in the host's order of preference. */
export const INVOCATION_TYPES = [JSON_TYPE, SSE_TYPE, NDJSON_TYPE] as const;

export type AnswerType = (typeof INVOCATION_TYPES)[number];

const encoder = new TextEncoder();

export function outcomeResponse(outcome: CallOutcome, answerType: AnswerType, baseUrl: string): Response {
  const headers = new Headers(outcome.headers);
  headers.set('cache-control', 'no-store');
  switch (outcome.kind) {
    case 'problem':
      return problemResponse(outcome.problem, headers);
    case 'task': {
      const location = new URL(outcome.location, `${baseUrl}/`).href;
      headers.set('location', location);
      headers.set('retry-after', String(outcome.retryAfterSeconds));
      headers.set('x-task-id', outcome.taskId);
      headers.set('content-type', JSON_TYPE);
      const body = { taskId: outcome.taskId, status: 'pending', pollUrl: location };
      return new Response(JSON.stringify(body), { status: 202, headers });
    }
    case 'result':
      if (answerType === JSON_TYPE) {
        headers.set('content-type', JSON_TYPE);
        return new Response(JSON.stringify(outcome.output ?? null), { status: 200, headers });
      }
      return streamResponse(single(outcome.output), answerType, headers);
    case 'stream':
      if (answerType === JSON_TYPE) return streamResponse(outcome.events, SSE_TYPE, headers);
      return streamResponse(outcome.events, answerType, headers);
  }
}

async function* single(output: unknown): AsyncGenerator<StreamEvent> {
  yield { type: 'result', output };
}

function streamResponse(
  events: AsyncIterable<StreamEvent>,
  type: typeof SSE_TYPE | typeof NDJSON_TYPE,
  headers: Headers,
): Response {
  headers.set('content-type', type);
  // Proxies (nginx) would otherwise hold chunks back.
  headers.set('x-accel-buffering', 'no');
  const iterator = events[Symbol.asyncIterator]();
  const write = type === SSE_TYPE ? sseText : ndjsonText;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const step = await iterator.next();
        if (step.done) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(write(step.value)));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
  return new Response(body, { status: 200, headers });
}

function sseText(event: StreamEvent): string {
  const data =
    event.type === 'chunk' ? event.data : event.type === 'result' ? event.output : problemBody(event.problem);
  // JSON text has no raw newlines, so one data line carries it.
  return `event: ${event.type}\ndata: ${JSON.stringify(data ?? null)}\n\n`;
}

function ndjsonText(event: StreamEvent): string {
  const line =
    event.type === 'chunk'
      ? { type: 'chunk', data: event.data ?? null }
      : event.type === 'result'
        ? { type: 'result', output: event.output ?? null }
        : { type: 'error', error: problemBody(event.problem) };
  return `${JSON.stringify(line)}\n`;
}
