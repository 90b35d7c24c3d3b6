/**
 * Waits for a deferred call's task by polling the host's own `GET /tasks/{id}` through its web handler, in
 * process: the same answer, with the same auth, an HTTP caller polling would get. The answer is read by the
 * rules docs/invocation.md gives for deferred tasks (202 still working; `status` words; `result` / `output`; a
 * problem on failure). Polling is bounded; past the bound the caller gets a 504 problem naming the task, which
 * keeps running and can still be polled over HTTP. A caller that goes away has its task cancelled (`DELETE`),
 * since nobody else knows of it.
 */

import { CONFIRMATION_HEADER, IDEMPOTENCY_HEADER } from '@agentry/core';
import type { Problem } from '../../errors.js';
import { problem } from '../../errors.js';
import type { FinalEvent, TaskOutcome, TaskWaiter } from '../outcome-events.js';
import type { HostRuntime } from '../types.js';

/** The host's web handler (`fetch(Request) => Response`). */
export type HostFetch = (request: Request) => Promise<Response>;

export interface TaskPollingOptions {
  /** The host's own handler (default: the runtime's `fetch`); polls never leave the process. */
  fetch?: HostFetch;
  /** How long to wait for a task before answering 504 (default 50 s: inside the MCP SDK client's 60 s request timeout). */
  timeoutMs?: number;
  /** The longest pause between polls (default 1 s); polls start at 20 ms apart and back off to it. */
  maxIntervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 50_000;
const DEFAULT_MAX_INTERVAL_MS = 1000;
const FIRST_INTERVAL_MS = 20;

const PENDING = new Set(['pending', 'queued', 'submitted', 'accepted', 'running', 'working', 'in_progress']);
const DONE = new Set(['completed', 'complete', 'succeeded', 'success', 'done', 'finished']);
const FAILED = new Set(['failed', 'failure', 'error', 'rejected']);
const CANCELLED = new Set(['canceled', 'cancelled']);

/**
 * Headers of the original call a poll does not repeat: those about its body, its connection or its protocol, and
 * those that would make the poll a different call. The rest (credentials under whatever name, session) say who asks.
 */
const NOT_REPEATED = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'expect',
  'host',
  IDEMPOTENCY_HEADER.toLowerCase(),
  'keep-alive',
  'mcp-protocol-version',
  'mcp-session-id',
  'transfer-encoding',
  'upgrade',
  CONFIRMATION_HEADER.toLowerCase(),
]);

/**
 * Waits through `options.fetch`, else the runtime's own handler; with neither (a runtime not made by `createHost`),
 * a deferred call is answered with a problem naming its task.
 */
export function pollingTaskWaiter(runtime: HostRuntime, options: TaskPollingOptions = {}): TaskWaiter {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxIntervalMs = options.maxIntervalMs ?? DEFAULT_MAX_INTERVAL_MS;
  return async (task, { headers, signal }) => {
    const fetch: HostFetch | undefined = options.fetch ?? runtime.fetch?.bind(runtime);
    if (fetch === undefined) return unfollowed(task);
    const url = new URL(task.location, `${runtime.baseUrl}/`).href;
    const pollHeaders = pollHeadersFrom(headers);
    const deadline = Date.now() + timeoutMs;
    let intervalMs = Math.min(FIRST_INTERVAL_MS, maxIntervalMs);
    try {
      for (;;) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return timedOut(task, timeoutMs);
        await pause(Math.min(intervalMs, remaining), signal);
        const response = await fetch(new Request(url, { headers: pollHeaders, signal }));
        const answer = await readPoll(response, task);
        if (answer !== 'pending') return answer;
        // `Retry-After` spares a remote poller's network and the host's load; in process, backing off does that.
        intervalMs = Math.min(intervalMs * 2, maxIntervalMs);
      }
    } catch (error) {
      if (!signal.aborted) throw error;
      await cancel(fetch, url, pollHeaders);
      throw signal.reason;
    }
  };
}

/** The headers that say who asks (credentials, session), without those about the original call's body. */
export function pollHeadersFrom(headers: Headers): Headers {
  const out = new Headers({ accept: 'application/json' });
  headers.forEach((value, name) => {
    if (!NOT_REPEATED.has(name) && !name.startsWith('sec-websocket-')) out.set(name, value);
  });
  return out;
}

async function readPoll(response: Response, task: TaskOutcome): Promise<FinalEvent | 'pending'> {
  if (response.status === 202 || response.status === 429 || response.status === 503) {
    await response.body?.cancel();
    return 'pending';
  }
  const body = await jsonBody(response);
  if (response.status >= 400) return { type: 'error', problem: problemFrom(body, response.status, task) };
  if (!isRecord(body)) return { type: 'result', output: body };
  const state =
    typeof (body['status'] ?? body['state']) === 'string' ? String(body['status'] ?? body['state']) : '';
  const word = state.toLowerCase();
  if (PENDING.has(word)) return 'pending';
  if (DONE.has(word))
    return { type: 'result', output: body['result'] ?? body['output'] ?? body['data'] ?? null };
  if (FAILED.has(word)) {
    return { type: 'error', problem: problemFrom(body['problem'] ?? body['error'] ?? body, 500, task) };
  }
  if (CANCELLED.has(word)) {
    return {
      type: 'error',
      problem: problem({
        status: 409,
        code: 'TaskCancelled',
        title: 'Task cancelled',
        detail: `Task ${task.taskId} was cancelled before it finished.`,
        taskId: task.taskId,
      }),
    };
  }
  return { type: 'result', output: body };
}

async function jsonBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A failed task's error as problem details: taken as is when it is one, else wrapped. */
function problemFrom(value: unknown, status: number, task: TaskOutcome): Problem {
  if (isRecord(value) && typeof value['title'] === 'string' && typeof value['status'] === 'number') {
    return { type: 'about:blank', ...value } as Problem;
  }
  const message = isRecord(value) && typeof value['message'] === 'string' ? value['message'] : undefined;
  return problem({
    status,
    code: 'TaskFailed',
    title: 'Task failed',
    detail: message ?? `Task ${task.taskId} failed.`,
    taskId: task.taskId,
    ...(value === null || value === undefined ? {} : { error: value }),
  });
}

function timedOut(task: TaskOutcome, timeoutMs: number): FinalEvent {
  return {
    type: 'error',
    problem: problem({
      status: 504,
      code: 'TaskPending',
      title: 'Task still running',
      detail: `Task ${task.taskId} did not finish within ${Math.round(timeoutMs / 1000)} s; it is still running. Poll ${task.location} for its result.`,
      taskId: task.taskId,
      location: task.location,
    }),
  };
}

/** With no way to wait, the caller is told where the task is (as an error: there is no output yet). */
function unfollowed(task: TaskOutcome): FinalEvent {
  return {
    type: 'error',
    problem: problem({
      status: 501,
      code: 'TaskNotFollowed',
      title: 'Deferred operation',
      detail: `The operation was accepted as task ${task.taskId}; poll ${task.location} over HTTP for its result.`,
      taskId: task.taskId,
      location: task.location,
    }),
  };
}

async function cancel(fetch: HostFetch, url: string, headers: Headers): Promise<void> {
  try {
    const response = await fetch(new Request(url, { method: 'DELETE', headers }));
    await response.body?.cancel();
  } catch {
    // Best effort: the caller is gone, and the task ends on its own.
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
