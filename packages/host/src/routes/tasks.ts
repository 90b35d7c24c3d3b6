/**
 * `GET /tasks/{id}` (poll) and `DELETE /tasks/{id}` (cancel) for deferred calls, in the shapes our client's task
 * polling reads (docs/invocation.md, "Deferred tasks"): 200 with `status`, then `result` or `error`. A task started
 * by an authenticated client is that client's: anyone else is told it does not exist.
 */
import { problem } from '../errors.js';
import type { Answer } from '../http/answer.js';
import type { HostRequest } from '../http/host-request.js';
import { problemAnswer } from '../http/problem-response.js';
import type { Authenticator } from '../policies/auth.js';
import type { Runtime } from '../runtime/runtime.js';
import { isFinished, type TaskStore, taskRepresentation } from '../runtime/tasks/task-store.js';
import { methodNotAllowed } from './invoke.js';

export interface TaskRouteSettings {
  runtime: Runtime;
  tasks: TaskStore;
  authenticator?: Authenticator;
  retryAfterSeconds: number;
}

export async function taskRoute(
  request: HostRequest,
  taskId: string,
  settings: TaskRouteSettings,
): Promise<Answer> {
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'DELETE') {
    return methodNotAllowed('GET, HEAD, DELETE');
  }
  const task = settings.tasks.get(taskId);
  if (task === undefined) return notFound(taskId);
  if (task.owner !== undefined) {
    const entry = settings.runtime.agent(task.agentId);
    const op = entry?.agent.operations.find((candidate) => candidate.name === task.operation);
    if (settings.authenticator === undefined || entry === undefined || op === undefined)
      return notFound(taskId);
    const decision = await settings.authenticator.authorize(request.headers, op, entry.agent);
    if (!decision.ok) return problemAnswer(decision.problem, decision.headers);
    if (decision.principal?.clientId !== task.owner) return notFound(taskId);
  }
  const current = request.method === 'DELETE' ? (settings.tasks.cancel(taskId) ?? task) : task;
  const headers: [string, string][] = [
    ['content-type', 'application/json'],
    ['cache-control', 'no-store'],
  ];
  if (!isFinished(current.status)) headers.push(['retry-after', String(settings.retryAfterSeconds)]);
  const body = request.method === 'HEAD' ? null : JSON.stringify(taskRepresentation(current));
  return { status: 200, headers, body };
}

function notFound(taskId: string): Answer {
  return problemAnswer(
    problem({
      status: 404,
      code: 'TaskNotFound',
      title: 'Task not found',
      detail: `No task "${taskId}" here: it never existed, expired, or belongs to another client.`,
    }),
  );
}
