/**
 * Deferred tasks (`executionModel: 'async'`, agent:// §8 "deferred response"): what `GET /tasks/{id}` reports and
 * `DELETE /tasks/{id}` cancels. Tasks live in memory, bounded in number; a finished task is kept for `ttlMs` so
 * that pollers can read its result, then forgotten.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@agentry/core';
import type { Problem } from '../../errors.js';

export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'canceled';

export interface TaskRecord {
  readonly id: string;
  readonly agentId: string;
  readonly operation: string;
  status: TaskStatus;
  readonly createdAt: number;
  updatedAt: number;
  /** When a finished task is forgotten. */
  expiresAt?: number;
  output?: JsonValue;
  problem?: Problem;
  progress?: JsonValue;
  /** The client that started it; only that client may read or cancel it. */
  readonly owner?: string;
  /** Where the final status is POSTed, signed. */
  readonly callbackUrl?: string;
  /** The session the call ran in (`X-Session-ID`); A2A reads it as the task's context. */
  readonly sessionId?: string;
  readonly controller: AbortController;
}

export interface TaskStoreOptions {
  /** How long a finished task stays readable (default 1 hour). */
  ttlMs?: number;
  /** Most tasks kept at once, running or finished (default 10,000). */
  maxTasks?: number;
  now?: () => number;
}

export interface TaskStore {
  /** A new pending task, or undefined when the store is full of unfinished tasks. */
  create(init: {
    agentId: string;
    operation: string;
    owner?: string;
    callbackUrl?: string;
    sessionId?: string;
  }): TaskRecord | undefined;
  get(id: string): TaskRecord | undefined;
  /** Marks a running task finished; returns false when it had already ended (cancelled). */
  finish(id: string, result: { output: JsonValue } | { problem: Problem }): boolean;
  /** Cancels a task that has not finished, aborting its handler's signal; returns the record. */
  cancel(id: string): TaskRecord | undefined;
  /** Aborts every unfinished task (the host is closing). */
  close(): void;
}

const DEFAULT_TTL_MS = 60 * 60 * 1000;
const DEFAULT_MAX_TASKS = 10_000;

export function isFinished(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'canceled';
}

export function createTaskStore(options: TaskStoreOptions = {}): TaskStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
  const tasks = new Map<string, TaskRecord>();

  const expired = (task: TaskRecord, at: number): boolean =>
    task.expiresAt !== undefined && task.expiresAt <= at;
  const sweep = (): void => {
    const at = now();
    for (const [id, task] of tasks) if (expired(task, at)) tasks.delete(id);
  };
  const end = (task: TaskRecord, status: TaskStatus): void => {
    const at = now();
    task.status = status;
    task.updatedAt = at;
    task.expiresAt = at + ttlMs;
  };

  return {
    create(init) {
      if (tasks.size >= maxTasks) sweep();
      if (tasks.size >= maxTasks) {
        // Finished tasks make room first, oldest first (Map order is insertion order).
        for (const [id, task] of tasks) {
          if (tasks.size < maxTasks) break;
          if (isFinished(task.status)) tasks.delete(id);
        }
        if (tasks.size >= maxTasks) return undefined;
      }
      const at = now();
      const task: TaskRecord = {
        id: randomUUID(),
        agentId: init.agentId,
        operation: init.operation,
        status: 'pending',
        createdAt: at,
        updatedAt: at,
        controller: new AbortController(),
        ...(init.owner === undefined ? {} : { owner: init.owner }),
        ...(init.callbackUrl === undefined ? {} : { callbackUrl: init.callbackUrl }),
        ...(init.sessionId === undefined ? {} : { sessionId: init.sessionId }),
      };
      tasks.set(task.id, task);
      return task;
    },
    get(id) {
      const task = tasks.get(id);
      if (task === undefined) return undefined;
      if (expired(task, now())) {
        tasks.delete(id);
        return undefined;
      }
      return task;
    },
    finish(id, result) {
      const task = tasks.get(id);
      if (task === undefined || isFinished(task.status)) return false;
      if ('output' in result) task.output = result.output;
      else task.problem = result.problem;
      end(task, 'output' in result ? 'completed' : 'failed');
      return true;
    },
    cancel(id) {
      const task = this.get(id);
      if (task === undefined || isFinished(task.status)) return task;
      end(task, 'canceled');
      task.controller.abort(new Error(`Task ${id} was cancelled.`));
      return task;
    },
    close() {
      for (const task of tasks.values()) {
        if (isFinished(task.status)) continue;
        end(task, 'canceled');
        task.controller.abort(new Error('The host is closing.'));
      }
    },
  };
}

/** The JSON a poll answers with: status words our client (and the MCP helper) read, then result or error. */
export function taskRepresentation(task: TaskRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    taskId: task.id,
    status: task.status,
    agent: task.agentId,
    operation: task.operation,
    createdAt: new Date(task.createdAt).toISOString(),
    updatedAt: new Date(task.updatedAt).toISOString(),
  };
  if (task.sessionId !== undefined) out['sessionId'] = task.sessionId;
  if (task.progress !== undefined) out['progress'] = task.progress;
  if (task.status === 'completed') out['result'] = task.output ?? null;
  if (task.problem !== undefined) out['error'] = task.problem;
  if (task.expiresAt !== undefined) out['expiresAt'] = new Date(task.expiresAt).toISOString();
  return out;
}
