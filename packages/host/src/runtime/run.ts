/**
 * Running a handler: awaiting what it returns, or reading what it yields. Output leaves as JSON (a value JSON
 * cannot carry is the handler's bug), checked against the output schema; a thrown `HostError` is answered as its
 * problem, and anything else as a 500 that names nothing of the failure, which is logged instead.
 */
import type { JsonValue } from '@agentry/core';
import type { DefinedOperation, HandlerContext } from '../define/types.js';
import type { Problem } from '../errors.js';
import { deliberateProblem, problem, problems } from '../errors.js';
import type { HostLogger } from '../logger.js';
import { errorDetails } from '../logger.js';
import type { StreamEvent } from './types.js';
import { checkJson } from './validation.js';

export interface RunSettings {
  logger: HostLogger;
  validateOutput: boolean;
  agentId: string;
}

/** What a failure reads of the call's signal: a caller that went away is not the handler's fault to log. */
export interface Abortable {
  readonly aborted: boolean;
}

export type Finished =
  /** `text` is the output as JSON text, made on the way: an HTTP answer is written from it as it is. */
  { ok: true; output: JsonValue; text: string } | { ok: false; problem: Problem; headers?: Headers };

/** Whether what a handler returned is a stream of chunks. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Calls the handler; a synchronous throw is a failed call like an asynchronous one. */
export function start(
  op: DefinedOperation,
  input: unknown,
  context: HandlerContext,
): { returned: unknown } | { thrown: unknown } {
  try {
    return { returned: op.handler(input, context) };
  } catch (error) {
    return { thrown: error };
  }
}

/** The final output of a call: the awaited value, or a stream's return value (else its chunks). */
export async function runToOutput(
  op: DefinedOperation,
  started: { returned: unknown } | { thrown: unknown },
  signal: Abortable,
  settings: RunSettings,
): Promise<Finished> {
  if ('thrown' in started) return failure(started.thrown, op, signal, settings);
  try {
    let value: unknown;
    if (isAsyncIterable(started.returned)) {
      const iterator = started.returned[Symbol.asyncIterator]();
      const chunks: unknown[] = [];
      for (;;) {
        const step = await iterator.next();
        if (step.done) {
          value = step.value === undefined ? chunks : step.value;
          break;
        }
        chunks.push(step.value);
      }
    } else {
      // A handler that returns its output as it is need not cost the call a turn.
      value = isThenable(started.returned) ? await started.returned : started.returned;
    }
    return finalOutput(value, op, settings);
  } catch (error) {
    return failure(error, op, signal, settings);
  }
}

/** The events of a streaming call: a `chunk` per yielded value, then one `result` or `error`. */
export async function* streamEvents(
  op: DefinedOperation,
  stream: AsyncIterable<unknown>,
  signal: Abortable,
  settings: RunSettings,
): AsyncGenerator<StreamEvent> {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks: unknown[] = [];
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<unknown>;
      try {
        step = await iterator.next();
      } catch (error) {
        finished = true;
        const failed = failure(error, op, signal, settings);
        yield { type: 'error', problem: failed.problem };
        return;
      }
      if (step.done) {
        finished = true;
        const final = finalOutput(step.value === undefined ? chunks : step.value, op, settings);
        yield final.ok ? { type: 'result', output: final.output } : { type: 'error', problem: final.problem };
        return;
      }
      const chunk = toJson(step.value);
      if (!chunk.ok) {
        finished = true;
        logFailure(settings, op, 'yielded a chunk that is not JSON', chunk.error);
        yield { type: 'error', problem: problems.internal() };
        return;
      }
      chunks.push(chunk.value);
      yield { type: 'chunk', data: chunk.value };
    }
  } finally {
    // The reader left early (the caller went away): stop the handler's generator too.
    if (!finished) await iterator.return?.().catch(() => {});
  }
}

function finalOutput(value: unknown, op: DefinedOperation, settings: RunSettings): Finished {
  const json = toJson(value);
  if (!json.ok) {
    logFailure(settings, op, 'returned an output that is not JSON', json.error);
    return { ok: false, problem: problems.internal() };
  }
  if (settings.validateOutput) {
    const checked = checkJson(op.spec.output, json.value);
    if (!checked.ok) {
      settings.logger.error(
        `Operation "${op.spec.name}" of agent "${settings.agentId}" returned an output that fails its schema.`,
        { failures: checked.failures },
      );
      return {
        ok: false,
        problem: problem({
          status: 500,
          code: 'InvalidOutput',
          title: 'Internal error',
          detail:
            'The operation produced an output that does not match its schema. The error was logged by the host.',
        }),
      };
    }
  }
  return { ok: true, output: json.value, text: json.text };
}

/** The answer to a thrown error: its own problem when deliberate, else a 500 (logged unless the caller left). */
export function failure(
  error: unknown,
  op: DefinedOperation,
  signal: Abortable,
  settings: RunSettings,
): Finished & { ok: false } {
  const deliberate = deliberateProblem(error);
  if (deliberate !== undefined)
    return { ok: false, problem: deliberate.problem, headers: deliberate.headers };
  if (!signal.aborted) logFailure(settings, op, 'failed', error);
  return { ok: false, problem: problems.internal() };
}

function logFailure(settings: RunSettings, op: DefinedOperation, what: string, error: unknown): void {
  settings.logger.error(
    `Operation "${op.spec.name}" of agent "${settings.agentId}" ${what}.`,
    errorDetails(error),
  );
}

/**
 * The output as JSON: its text, and the value that text reads back as. Most handlers return plain JSON already
 * (plain objects and arrays of strings, finite numbers, booleans and null), which reads back as itself, so it is
 * not parsed again; anything else (a Date, a class instance, an `undefined` member, `toJSON`) becomes what its text
 * reads back as. The text is made now, so an output changed after it was returned does not change the answer.
 */
function toJson(
  value: unknown,
): { ok: true; value: JsonValue; text: string } | { ok: false; error: unknown } {
  if (value === undefined) return { ok: true, value: null, text: 'null' };
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: true, value: null, text: 'null' };
    return { ok: true, value: isPlainJson(value, 0) ? value : (JSON.parse(text) as JsonValue), text };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Nesting past which a value is read back from its text rather than walked. */
const PLAIN_DEPTH = 32;

function isPlainJson(value: unknown, depth: number): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || depth >= PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !isPlainJson(value[i], depth + 1)) return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
