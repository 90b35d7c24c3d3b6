/**
 * Following an A2A task with the client's shared deferred-task loop (tasks.ts): that loop polls with `GET` and
 * cancels with `DELETE` on a poll URL, and reads the answers by their `status` word. For an A2A task the "poll" is
 * a `GetTask` call and the "cancel" a `CancelTask` call on the agent's endpoint; their answers are handed back in
 * the shape the loop reads (`{status, result}` / `{status, error}`), and JSON-RPC errors as error responses. So
 * intervals, the timeout, cancelling on abort and the errors are the same as for every other binding.
 */
import type { JsonObject, JsonValue } from '@agentry/core';
import { isObject } from '../json.js';
import { type A2aTask, type A2aVersion, METHODS, outputOf, readTask } from './a2a-wire.js';
import type { HttpSend } from './types.js';

/** Sends one JSON-RPC request to the agent's endpoint; the HTTP response, unread. */
export type RpcSend = (
  method: string,
  params: JsonObject,
  signal: AbortSignal | undefined,
) => Promise<Response>;

const JSON_HEADERS = { 'content-type': 'application/json' };

export function a2aTaskSend(rpc: RpcSend, version: A2aVersion, taskId: string): HttpSend {
  return async (_url, init) => {
    const method = init.method === 'DELETE' ? METHODS[version].cancel : METHODS[version].get;
    const response = await rpc(method, { id: taskId }, init.signal);
    if (response.status >= 400) return response;
    const envelope = (await response.json().catch(() => null)) as JsonValue;
    if (!isObject(envelope)) {
      return new Response(JSON.stringify({ title: 'Not a JSON-RPC response', status: 502 }), {
        status: 502,
        headers: JSON_HEADERS,
      });
    }
    if (isObject(envelope['error'])) {
      return new Response(JSON.stringify(envelope), {
        status: errorStatus(envelope['error']),
        headers: JSON_HEADERS,
      });
    }
    return pollAnswer(isObject(envelope['result']) ? readTask(version, envelope['result']) : undefined);
  };
}

/** A task read from an answer, as the deferred-task loop reads a poll answer (a 502 when there was none). */
export function pollAnswer(task: A2aTask | undefined): Response {
  if (task === undefined) {
    return new Response(JSON.stringify({ title: 'The task answer has no task', status: 502 }), {
      status: 502,
      headers: JSON_HEADERS,
    });
  }
  return new Response(JSON.stringify(pollShape(task)), { status: 200, headers: JSON_HEADERS });
}

/** A task as the deferred-task loop reads a poll answer. */
function pollShape(task: A2aTask): JsonObject {
  switch (task.state) {
    case 'completed':
      return { taskId: task.id, status: 'completed', result: outputOf(task.artifacts) };
    case 'failed':
    case 'rejected':
      return { taskId: task.id, status: 'failed', error: errorOf(task) };
    case 'canceled':
      return { taskId: task.id, status: 'canceled' };
    case 'input-required':
    case 'auth-required':
      return {
        taskId: task.id,
        status: 'failed',
        error: { title: 'The task is waiting for the caller', detail: waitingForCaller(task) },
      };
    default:
      return { taskId: task.id, status: 'working' };
  }
}

/** What a task in `input-required` or `auth-required` waits for, which invoke cannot give. */
export function waitingForCaller(task: A2aTask): string {
  return `Task ${task.id} is ${task.state}: the agent asks for a further message, which invoke does not send.`;
}

/** Why a task failed: the status message's problem (or text). */
export function errorOf(task: A2aTask): JsonValue {
  const said = task.statusMessage;
  if (isObject(said)) return said;
  return { title: 'Task failed', detail: typeof said === 'string' ? said : `Task ${task.id} failed.` };
}

/** The HTTP status a JSON-RPC error stands for: its problem's, else by A2A code. */
function errorStatus(error: JsonObject): number {
  const data = Array.isArray(error['data']) ? error['data'] : [error['data']];
  for (const entry of data) {
    if (isObject(entry) && typeof entry['status'] === 'number' && entry['status'] >= 400)
      return entry['status'];
  }
  if (error['code'] === -32001) return 404;
  if (error['code'] === -32002) return 409;
  return 400;
}
