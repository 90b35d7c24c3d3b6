/**
 * A call's outcome as an HTTP answer: JSON output; a stream as Server-Sent Events (`event: chunk` / `result` /
 * `error`, JSON `data:`) or NDJSON (`{"type":"chunk","data":…}` lines, then `{"type":"result","output":…}` or
 * `{"type":"error","error":…}`); 202 with `Location` and `Retry-After` for a deferred task; problem details
 * otherwise. Invocation answers are never cached.
 */

import { type Answer, type HeaderFields, withFields } from '../http/answer.js';
import { problemAnswer, problemBody } from '../http/problem-response.js';
import { textStream } from '../http/text-stream.js';
import type { CallOutcome, StreamEvent } from '../runtime/types.js';

export const JSON_TYPE = 'application/json';
export const SSE_TYPE = 'text/event-stream';
export const NDJSON_TYPE = 'application/x-ndjson';
/** What invocation routes can answer, in the host's order of preference. */
export const INVOCATION_TYPES = [JSON_TYPE, SSE_TYPE, NDJSON_TYPE] as const;

export type AnswerType = (typeof INVOCATION_TYPES)[number];

export function outcomeAnswer(outcome: CallOutcome, answerType: AnswerType, baseUrl: string): Answer {
  const headers = outcome.headers;
  switch (outcome.kind) {
    case 'problem':
      return problemAnswer(outcome.problem, headers);
    case 'task': {
      const location = new URL(outcome.location, `${baseUrl}/`).href;
      const fields: [string, string][] = [
        ['cache-control', 'no-store'],
        ['location', location],
        ['retry-after', String(outcome.retryAfterSeconds)],
        ['x-task-id', outcome.taskId],
        ['content-type', JSON_TYPE],
      ];
      const body = { taskId: outcome.taskId, status: 'pending', pollUrl: location };
      return { status: 202, headers: withFields(headers, fields), body: JSON.stringify(body) };
    }
    case 'result':
      if (answerType === JSON_TYPE) {
        return {
          status: 200,
          headers: withFields(headers, JSON_RESULT_FIELDS),
          body: outcome.text ?? JSON.stringify(outcome.output ?? null),
        };
      }
      return streamAnswer(single(outcome.output), answerType, headers);
    case 'stream':
      if (answerType === JSON_TYPE) return streamAnswer(outcome.events, SSE_TYPE, headers);
      return streamAnswer(outcome.events, answerType, headers);
  }
}

const JSON_RESULT_FIELDS: HeaderFields = [
  ['cache-control', 'no-store'],
  ['content-type', JSON_TYPE],
];

async function* single(output: unknown): AsyncGenerator<StreamEvent> {
  yield { type: 'result', output };
}

function streamAnswer(
  events: AsyncIterable<StreamEvent>,
  type: typeof SSE_TYPE | typeof NDJSON_TYPE,
  headers: Headers,
): Answer {
  const fields: HeaderFields = [
    ['cache-control', 'no-store'],
    ['content-type', type],
    // Proxies (nginx) would otherwise hold chunks back.
    ['x-accel-buffering', 'no'],
  ];
  const body = textStream(events[Symbol.asyncIterator](), type === SSE_TYPE ? sseText : ndjsonText);
  return { status: 200, headers: withFields(headers, fields), body };
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
