/**
 * A `CallOutcome` as the events a message-based transport sends (MCP progress and result, WebSocket messages, A2A
 * stream updates): zero or more chunks, then exactly one final `result` or `error`. A deferred call's task is
 * waited for, since neither MCP `tools/call` nor a WebSocket call has a way to hand the caller a URL to poll instead.
 */
import { problem, problems } from '../errors.js';
import type { CallOutcome, StreamEvent } from './types.js';

export type FinalEvent = Extract<StreamEvent, { type: 'result' | 'error' }>;
export type TaskOutcome = Extract<CallOutcome, { kind: 'task' }>;

/** Waits for a deferred call's task: its final event. */
export type TaskWaiter = (
  task: TaskOutcome,
  context: { headers: Headers; signal: AbortSignal },
) => Promise<FinalEvent>;

export async function* outcomeEvents(
  outcome: CallOutcome,
  waitForTask: TaskWaiter,
  context: { headers: Headers; signal: AbortSignal },
): AsyncGenerator<StreamEvent> {
  switch (outcome.kind) {
    case 'result':
      yield { type: 'result', output: outcome.output };
      return;
    case 'problem':
      yield { type: 'error', problem: outcome.problem };
      return;
    case 'task':
      yield await waitForTask(outcome, context);
      return;
    case 'stream':
      yield* finalised(outcome.events);
  }
}

/** The handler's events, cut at the first final one, with an error when the stream ends without one. */
async function* finalised(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  try {
    for await (const event of events) {
      yield event;
      if (event.type !== 'chunk') return;
    }
  } catch {
    // The runtime turns handler failures into `error` events; what is thrown past it is a fault of the host's, whose
    // text is not the caller's to read.
    yield { type: 'error', problem: problems.internal() };
    return;
  }
  yield {
    type: 'error',
    problem: problem({
      status: 500,
      code: 'StreamIncomplete',
      title: 'Stream ended without a result',
      detail: 'The operation stopped streaming before it sent a final result.',
    }),
  };
}
