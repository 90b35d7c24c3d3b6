/**
 * `invokeStream(target, input, options)`: call an agent and read its answer as events, for agents that stream
 * (SSE, NDJSON, WebSocket chunks, local async iterables). An agent that answers once gives one `result` event, so
 * callers can use `invokeStream` whatever the agent does. Opening the call is retried like `invoke`; once events
 * flow, nothing is repeated.
 */
import type { JsonValue } from '@agentry/core';
import { finishTask } from './invoke.js';
import { prepareCall } from './prepare.js';
import { withRetries } from './retry.js';
import type { InvokeEvent, InvokeOptions, InvokeStream, InvokeTarget, InvokeWarning } from './types.js';
import { checkOutput } from './validation.js';

/**
 * Calls an operation and yields its answer as events: `chunk`s as a streaming agent sends them, then its `result`.
 *
 * @example
 * ```ts
 * import { invokeStream } from '@agentry/client';
 *
 * const stream = invokeStream('https://agents.example.com/.well-known/woa.json', { text: 'Agents. Everywhere.' }, {
 *   operation: 'summarize',
 * });
 * for await (const event of stream) console.log(event.event, event.data); // 'chunk' …, then 'result'
 * console.log(stream.warnings);
 * ```
 */
export function invokeStream(
  target: InvokeTarget,
  input: JsonValue,
  options: InvokeOptions = {},
): InvokeStream {
  const warnings: InvokeWarning[] = [];
  const events = run(target, input, options, warnings);
  return {
    warnings,
    [Symbol.asyncIterator]: () => events,
  };
}

async function* run(
  target: InvokeTarget,
  input: JsonValue,
  options: InvokeOptions,
  warnings: InvokeWarning[],
): AsyncGenerator<InvokeEvent> {
  const call = await prepareCall(target, input, options, true, warnings);
  const mode = options.validate ?? 'strict';
  try {
    let { value: raw } = await withRetries(() => call.transport.call(call.ctx), call.retry);
    if (raw.deferred !== undefined) raw = await finishTask(call, raw, options);
    if (raw.events === undefined) {
      const output = raw.output ?? null;
      checkOutput(call.ctx.spec, output, mode, call.errors, call.warn);
      yield { event: 'result', data: output };
      return;
    }
    for await (const event of raw.events) {
      // Chunks are partial; a `result` event is the output and is checked like one.
      if (event.event === 'result') checkOutput(call.ctx.spec, event.data, mode, call.errors, call.warn);
      yield event;
    }
  } catch (error) {
    throw options.signal?.aborted ? options.signal.reason : error;
  } finally {
    await call.dispose();
  }
}
