/**
 * A2A's HTTP+JSON binding: where its requests go, and following a task through it. The objects are those of the
 * JSON-RPC binding (a2a-wire.ts) without the JSON-RPC envelope: `POST {url}/message:send` and `:stream`,
 * `GET {url}/tasks/{id}`, `POST {url}/tasks/{id}:cancel`, under `/v1` in v0.3. Errors are HTTP statuses with an
 * `{"error": {code, status, message, details}}` body, which the shared error reading understands.
 */
import type { JsonValue } from '@agentry/core';
import { encodeUriComponentSafe, trimTrailingSlash } from '@agentry/core';
import { isObject } from '../json.js';
import { pollAnswer } from './a2a-tasks.js';
import { type A2aVersion, readTask } from './a2a-wire.js';
import type { HttpSend } from './types.js';

/** The URL of an HTTP+JSON method (`message:send`, `tasks/{id}`) under the interface URL. */
export function restUrl(base: string, version: A2aVersion, path: string): string {
  return `${trimTrailingSlash(base)}${version === '0.3' ? '/v1' : ''}/${path}`;
}

export function restTaskUrl(base: string, version: A2aVersion, taskId: string): string {
  return restUrl(base, version, `tasks/${encodeUriComponentSafe(taskId)}`);
}

/**
 * The deferred-task loop's poll (`GET` on the task's URL) and cancel (`DELETE`, sent as `POST {task}:cancel`),
 * answered in the shape the loop reads; error responses are handed back as they came.
 */
export function a2aRestTaskSend(send: HttpSend, version: A2aVersion): HttpSend {
  return async (taskUrl, init) => {
    const response =
      init.method === 'DELETE'
        ? await send(`${taskUrl}:cancel`, {
            ...init,
            method: 'POST',
            headers: { ...init.headers, 'content-type': 'application/json' },
            body: '{}',
          })
        : await send(taskUrl, { ...init, method: 'GET' });
    if (response.status >= 400) return response;
    const body = (await response.json().catch(() => null)) as JsonValue;
    return pollAnswer(isObject(body) ? readTask(version, body) : undefined);
  };
}
