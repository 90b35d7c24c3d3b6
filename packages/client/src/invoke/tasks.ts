/**
 * Deferred answers (agent:// §8 "deferred response", AWP `execution_model: async` with `poll_endpoint`): the agent
 * answers 202 Accepted with a `Location` and/or a task id, and the result is polled for. Polls wait as long as the
 * agent hints (`Retry-After`, a poll interval in the body), are bounded by a timeout, and an abort (or the timeout)
 * cancels the task with `DELETE` on the poll URL. The shapes read are documented in docs/invocation.md.
 */
import type { JsonObject, JsonValue, Operation } from '@agentry/core';
import { encodeUriComponentSafe, trimTrailingSlash } from '@agentry/core';
import type { DeferredTask, HttpSend, RawResult } from './bindings/types.js';
import { readErrorValue } from './error-body.js';
import { agentErrorFrom, contextDetails, type ErrorContext, protocolError } from './error-mapping.js';
import { RemoteError, TransportError } from './errors.js';
import { errorFromResponse, headerRecord, readBody } from './http/response.js';
import { isObject } from './json.js';
import { parseRetryAfter } from './retry-after.js';
import { sleep } from './sleep.js';
import type { InvokeWarning, TaskOptions } from './types.js';

const TASK_ID_KEYS = ['taskId', 'task_id', 'jobId', 'job_id', 'id'] as const;
const POLL_URL_KEYS = ['pollUrl', 'poll_url', 'statusUrl', 'status_url'] as const;
const INTERVAL_MS_KEYS = ['pollIntervalMs', 'poll_interval_ms', 'retryAfterMs'] as const;
const INTERVAL_SECONDS_KEYS = ['pollInterval', 'poll_interval', 'retryAfter', 'retry_after'] as const;

const PENDING = new Set([
  'pending',
  'queued',
  'submitted',
  'accepted',
  'running',
  'working',
  'processing',
  'started',
  'in_progress',
  'in-progress',
]);
const DONE = new Set(['completed', 'complete', 'succeeded', 'success', 'done', 'finished']);
const FAILED = new Set(['failed', 'failure', 'error', 'rejected']);
const CANCELLED = new Set(['canceled', 'cancelled']);

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_INTERVAL_MS = 1000;
const DEFAULT_MAX_INTERVAL_MS = 60_000;
/** How long cancelling may take before it is given up. */
const CANCEL_TIMEOUT_MS = 5000;

/** The task a 202 answer describes. */
export function deferredFrom(
  response: Response,
  requestUrl: string,
  body: JsonValue | undefined,
  spec: Operation | undefined,
  send: HttpSend,
  headers: Record<string, string>,
): DeferredTask {
  const task: DeferredTask = { send, headers };
  const fields = isObject(body) ? body : {};
  const taskId = stringField(fields, TASK_ID_KEYS) ?? response.headers.get('x-task-id') ?? undefined;
  if (taskId !== undefined) task.taskId = taskId;
  const base = response.url || requestUrl;
  const location = response.headers.get('location') ?? stringField(fields, POLL_URL_KEYS);
  const pollUrl =
    location !== undefined && location !== null
      ? absolute(location, base)
      : spec?.pollEndpoint === undefined
        ? undefined
        : pollUrlFor(spec.pollEndpoint, taskId, base);
  if (pollUrl !== undefined) task.pollUrl = pollUrl;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after')) ?? intervalHint(fields);
  if (retryAfterMs !== undefined) task.retryAfterMs = retryAfterMs;
  return task;
}

/**
 * The URL to poll from an operation's poll endpoint: a `{placeholder}` in it is replaced by the task id, otherwise
 * the id is appended as a path segment; a relative endpoint resolves against the invocation URL.
 */
export function pollUrlFor(endpoint: string, taskId: string | undefined, base: string): string | undefined {
  let path = endpoint;
  if (taskId !== undefined) {
    const id = encodeUriComponentSafe(taskId);
    path = /\{[^}]*\}/.test(endpoint)
      ? endpoint.replace(/\{[^}]*\}/, id)
      : `${trimTrailingSlash(endpoint)}/${id}`;
  }
  return absolute(path, base);
}

export interface AwaitTaskOptions extends TaskOptions {
  signal?: AbortSignal;
  warn: (warning: InvokeWarning) => void;
}

/** Polls a deferred task until it has a result (returned), fails (thrown), times out or is aborted (cancelled). */
export async function awaitTask(
  task: DeferredTask,
  ctx: ErrorContext,
  options: AwaitTaskOptions,
): Promise<RawResult> {
  const { pollUrl } = task;
  if (pollUrl === undefined) {
    throw protocolError(
      `${describeTask(task, ctx)} was accepted for later (202), but the answer gave no way to follow it: no Location header, no poll URL in the body, and the operation declares no poll endpoint.`,
      ctx,
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxIntervalMs = options.maxIntervalMs ?? DEFAULT_MAX_INTERVAL_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let waitMs = task.retryAfterMs ?? intervalMs;
  const pollCtx: ErrorContext = { ...ctx, endpoint: pollUrl };
  let polls = 0;
  const pending = (): void =>
    options.onPending?.({ ...(task.taskId === undefined ? {} : { taskId: task.taskId }), polls });
  pending();
  try {
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        await cancelTask(task, pollUrl, options.warn);
        throw new TransportError(
          `${describeTask(task, ctx)} did not finish within ${Math.round(timeoutMs / 1000)} s; it was cancelled. Raise tasks.timeoutMs to wait longer.`,
          { ...contextDetails(pollCtx) },
          'timeout',
        );
      }
      await sleep(Math.min(Math.max(waitMs, 0), maxIntervalMs, remaining), options.signal);
      const response = await task.send(pollUrl, {
        method: 'GET',
        headers: { accept: 'application/json', ...task.headers },
        cacheMode: 'no-store',
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      polls++;
      const hintMs = parseRetryAfter(response.headers.get('retry-after'));
      // Still working (202), or busy: a poll is safe to repeat, so 429 and 503 only mean "later".
      if (response.status === 202 || response.status === 429 || response.status === 503) {
        await response.body?.cancel().catch(() => {});
        waitMs = hintMs ?? intervalMs;
        pending();
        continue;
      }
      if (response.status >= 400) throw await errorFromResponse(response, pollCtx);
      const body = await readBody(response, pollCtx);
      const output = 'output' in body ? body.output : await collect(body.events);
      const state = taskState(output);
      if (state === 'pending') {
        waitMs = hintMs ?? intervalHint(output as JsonObject) ?? intervalMs;
        pending();
        continue;
      }
      const result: RawResult = { status: response.status, headers: headerRecord(response.headers), output };
      if (state === undefined) return result;
      const fields = output as JsonObject;
      if (state === 'done') return { ...result, output: resultOf(fields) };
      if (state === 'failed') {
        throw agentErrorFrom(readErrorValue(fields['error'] ?? fields), pollCtx);
      }
      throw new RemoteError(`${describeTask(task, ctx)} was cancelled by the agent.`, {
        ...contextDetails(pollCtx),
        body: fields,
      });
    }
  } catch (error) {
    if (options.signal?.aborted) {
      await cancelTask(task, pollUrl, options.warn);
      throw options.signal.reason;
    }
    throw error;
  }
}

/** Best-effort `DELETE` of the task; a failure is a warning, since the caller's own error matters more. */
async function cancelTask(
  task: DeferredTask,
  pollUrl: string,
  warn: (w: InvokeWarning) => void,
): Promise<void> {
  try {
    const response = await task.send(pollUrl, {
      method: 'DELETE',
      headers: task.headers,
      cacheMode: 'no-store',
      signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status >= 400 && response.status !== 404 && response.status !== 410) {
      warn({ code: 'task.cancel-failed', message: `Cancelling ${pollUrl} answered ${response.status}.` });
    }
  } catch (error) {
    warn({
      code: 'task.cancel-failed',
      message: `Cancelling ${pollUrl} failed: ${error instanceof Error ? error.message : String(error)}.`,
    });
  }
}

type TaskState = 'pending' | 'done' | 'failed' | 'cancelled';

/** The state a poll answer reports, or undefined when the answer is the result itself. */
function taskState(body: JsonValue): TaskState | undefined {
  if (!isObject(body)) return undefined;
  const raw = body['status'] ?? body['state'];
  if (typeof raw !== 'string') return undefined;
  const state = raw.toLowerCase();
  if (PENDING.has(state)) return 'pending';
  if (DONE.has(state)) return 'done';
  if (FAILED.has(state)) return 'failed';
  if (CANCELLED.has(state)) return 'cancelled';
  return undefined;
}

/** A finished task's result: its `result`, `output` or `data` member, else the whole status object. */
function resultOf(body: JsonObject): JsonValue {
  for (const key of ['result', 'output', 'data']) {
    if (Object.hasOwn(body, key)) return body[key]!;
  }
  return body;
}

function intervalHint(fields: JsonObject): number | undefined {
  for (const key of INTERVAL_MS_KEYS) {
    const value = fields[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  for (const key of INTERVAL_SECONDS_KEYS) {
    const value = fields[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value * 1000;
  }
  return undefined;
}

function stringField(fields: JsonObject, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

function absolute(location: string, base: string): string | undefined {
  return URL.canParse(location, base) ? new URL(location, base).href : undefined;
}

async function collect(events: AsyncIterable<{ data: JsonValue }>): Promise<JsonValue> {
  const out: JsonValue[] = [];
  for await (const event of events) out.push(event.data);
  return out;
}

function describeTask(task: DeferredTask, ctx: ErrorContext): string {
  const what = ctx.operation === undefined ? 'The call' : `Operation "${ctx.operation}"`;
  return task.taskId === undefined ? what : `${what} (task ${task.taskId})`;
}
