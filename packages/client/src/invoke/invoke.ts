/**
 * `invoke(target, input, options)`: call an agent's operation over whichever binding it has, and get its output,
 * validated. See docs/invocation.md.
 */
import type { JsonValue } from '@agentry/core';
import type { RawResult } from './bindings/types.js';
import { type PreparedCall, prepareCall } from './prepare.js';
import { withRetries } from './retry.js';
import { awaitTask } from './tasks.js';
import type { InvokeEvent, InvokeOptions, InvokeResult, InvokeTarget } from './types.js';
import { checkOutput } from './validation.js';

/**
 * Calls an operation of the agent `target` names (resolved first when it is a URI or URL) and returns its output,
 * checked against the operation's output schema. Failures are `AgentError`s saying what went wrong and what to do.
 *
 * @example
 * ```ts
 * import { AgentError, invoke } from '@agentry/client';
 *
 * try {
 *   const { output, binding, warnings } = await invoke('agent://planner.example.com/gen-iti', { city: 'Paris' }, {
 *     auth: { bearer: process.env.PLANNER_TOKEN },
 *     idempotencyKey: 'trip-2026-12-01', // makes a non-idempotent call safe to retry
 *   });
 *   console.log(output, binding.kind, warnings);
 * } catch (error) {
 *   if (!(error instanceof AgentError)) throw error;
 *   console.error(error.status, error.code, error.message, error.recovery);
 * }
 * ```
 */
export async function invoke(
  target: InvokeTarget,
  input: JsonValue,
  options: InvokeOptions = {},
): Promise<InvokeResult> {
  const call = await prepareCall(target, input, options, false);
  try {
    let raw: RawResult;
    let attempts = 1;
    // A call that may not be repeated (or only once) needs no retry loop around it.
    if (call.retry.repeatable && call.retry.policy.attempts > 1) {
      ({ value: raw, attempts } = await withRetries(() => call.transport.call(call.ctx), call.retry));
    } else {
      raw = await call.transport.call(call.ctx);
    }
    const final = raw.deferred === undefined ? raw : await finishTask(call, raw, options);
    const output = final.output ?? (final.events === undefined ? null : await collect(final.events));
    checkOutput(call.ctx.spec, output, options.validate ?? 'strict', call.errors, call.warn);
    const result: InvokeResult = {
      output,
      status: final.status,
      binding: call.ctx.binding,
      operation: call.ctx.operation,
      warnings: call.warnings,
      headers: final.headers,
      attempts,
    };
    const taskId =
      options.taskId ?? raw.deferred?.taskId ?? final.headers['x-task-id'] ?? raw.headers['x-task-id'];
    if (taskId !== undefined) result.taskId = taskId;
    return result;
  } catch (error) {
    throw options.signal?.aborted ? options.signal.reason : error;
  } finally {
    if (call.owns) await call.dispose();
  }
}

/** Polls a deferred answer to its result. */
export function finishTask(call: PreparedCall, raw: RawResult, options: InvokeOptions): Promise<RawResult> {
  return awaitTask(raw.deferred!, call.errors, {
    ...options.tasks,
    warn: call.warn,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/**
 * A streamed answer to a call that wanted one output: the `result` event's data when the stream marks one,
 * otherwise every event's data in order.
 */
async function collect(events: AsyncIterable<InvokeEvent>): Promise<JsonValue> {
  const all: JsonValue[] = [];
  let result: { data: JsonValue } | undefined;
  for await (const event of events) {
    if (event.event === 'result') result = event;
    else all.push(event.data);
  }
  return result === undefined ? all : result.data;
}
