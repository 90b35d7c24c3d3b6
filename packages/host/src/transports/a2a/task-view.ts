/**
 * A2A tasks over the host's deferred-task runtime. A deferred operation's call is an A2A task with the host task's
 * id; reading and cancelling it goes through the host's own `GET` / `DELETE /tasks/{id}` (routes/tasks.ts), in
 * process and with the caller's headers, so ownership and auth are checked exactly as for an HTTP poller. The
 * task's `contextId` is the session the call ran in (`X-Session-ID`, which a message's `contextId` sets).
 */
import { isObject, type JsonValue } from '@agentry/core';
import type { Problem } from '../../errors.js';
import { problem } from '../../errors.js';
import { pollHeadersFrom } from '../../runtime/tasks/polling.js';
import type { TaskState, TaskView } from './dialect.js';
import { type A2aError, a2aError, JSON_RPC, problemError } from './errors.js';

export type HostFetch = (request: Request) => Promise<Response>;

const STATES: Readonly<Record<string, TaskState>> = {
  pending: 'submitted',
  running: 'working',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
};

export interface TaskAccess {
  fetch: HostFetch;
  /** The host's base URL (task routes live under it). */
  baseUrl: string;
  /** The agent whose endpoint asks: another agent's tasks are not found here. */
  agentId: string;
}

/** The task, read (`GET`) or cancelled (`DELETE`) through the task routes; an A2A error when that fails. */
export async function taskView(
  access: TaskAccess,
  taskId: string,
  headers: Headers,
  method: 'GET' | 'DELETE' = 'GET',
): Promise<TaskView | A2aError> {
  const url = `${access.baseUrl}/tasks/${encodeURIComponent(taskId)}`;
  const response = await access.fetch(new Request(url, { method, headers: pollHeadersFrom(headers) }));
  const body = (await response.json().catch(() => null)) as JsonValue;
  if (response.status === 404) return taskNotFound(taskId);
  if (response.status >= 400 || !isObject(body)) {
    const details = isObject(body) && typeof body['status'] === 'number' ? (body as Problem) : undefined;
    return problemError(details ?? problem({ status: response.status }), response.headers);
  }
  if (body['agent'] !== access.agentId) return taskNotFound(taskId);
  const state = STATES[String(body['status'])] ?? 'working';
  const view: TaskView = {
    id: taskId,
    contextId: typeof body['sessionId'] === 'string' ? body['sessionId'] : taskId,
    operation: String(body['operation'] ?? ''),
    state,
    timestamp: typeof body['updatedAt'] === 'string' ? body['updatedAt'] : new Date().toISOString(),
  };
  if (state === 'completed') view.output = body['result'] ?? null;
  if (isObject(body['error'])) view.problem = body['error'] as Problem;
  return view;
}

export function isFinalState(state: TaskState): boolean {
  return state === 'completed' || state === 'failed' || state === 'canceled';
}

export function taskNotFound(taskId: string): A2aError {
  return a2aError(
    JSON_RPC.taskNotFound,
    404,
    'TaskNotFound',
    `No task "${taskId}" here: it never existed, expired, or belongs to another client or agent.`,
  );
}
