/**
 * A2A (A2A cards' `JSONRPC` and `HTTP+JSON` interfaces), in v1.0 or v0.3 as the binding's `protocolVersion` says
 * (a2a-wire.ts). The operation is the skill, named as `skillId` in the message's metadata; the input is the
 * message's one DataPart; `sessionId` is the message's `contextId`. Requests go through the secure fetcher like
 * every HTTP binding (HTTPS and address rules, redirects re-checked), with the call's headers (auth, session,
 * delegation, idempotency) and `A2A-Version`.
 *
 * The two protocol bindings carry the same objects: JSON-RPC posts `{jsonrpc, method, params}` to the interface URL
 * and answers `{result}` or `{error}`; HTTP+JSON posts the params alone to `{url}/message:send` (or `:stream`;
 * v0.3 under `/v1`), answers the result alone, follows tasks at `{url}/tasks/{id}` and says what went wrong with the
 * HTTP status and an `{error}` body (a2a-rest.ts).
 *
 * The answer is an agent Message (its part is the output) or a Task: completed (its artifacts are the output),
 * failed (an error from its status message), or still running, which is followed with `GetTask` through the shared
 * deferred-task loop and cancelled with `CancelTask` on abort or timeout (a2a-tasks.ts). Deferred operations are
 * sent with `returnImmediately` so the client does the waiting. `invokeStream` sends `SendStreamingMessage` (unless
 * the card says the agent does not stream): status updates with a message are chunks, artifacts make the result.
 * JSON-RPC errors become the usual `AgentError` classes, from the problem in their `data` where there is one.
 */
import type { A2aBinding, JsonValue } from '@agentry/core';
import { readErrorValue } from '../error-body.js';
import { agentErrorFrom, contextDetails, type ErrorContext, protocolError } from '../error-mapping.js';
import { RemoteError } from '../errors.js';
import { fetcherSend, httpExchange } from '../http/exchange.js';
import { isObject } from '../json.js';
import type { InvokeEvent } from '../types.js';
import { a2aRestTaskSend, restTaskUrl, restUrl } from './a2a-rest.js';
import { a2aTaskSend, errorOf, type RpcSend, waitingForCaller } from './a2a-tasks.js';
import {
  type A2aResult,
  type A2aTask,
  type A2aVersion,
  METHODS,
  outputOf,
  readSendResult,
  readStreamResult,
  sendParams,
  VERSION_HEADER,
  versionOf,
} from './a2a-wire.js';
import type { BindingTransport, CallContext, HttpSend, RawResult } from './types.js';

export const a2aTransport: BindingTransport<A2aBinding> = {
  kind: 'a2a',
  supports: (binding) => protocolOf(binding) !== undefined,
  async call(ctx: CallContext<A2aBinding>): Promise<RawResult> {
    const version = versionOf(ctx.binding);
    const rest = protocolOf(ctx.binding) === 'HTTP+JSON';
    const streaming = ctx.stream && ctx.agent.surface?.flags?.streaming !== false;
    const params = sendParams(version, {
      input: ctx.input,
      skillId: ctx.operation,
      ...(ctx.meta.sessionId === undefined ? {} : { contextId: ctx.meta.sessionId }),
      returnImmediately: !streaming && ctx.spec?.executionModel === 'async',
    });
    const method = streaming ? METHODS[version].stream : METHODS[version].send;
    const url = rest
      ? restUrl(ctx.binding.url, version, streaming ? 'message:stream' : 'message:send')
      : ctx.binding.url;
    const errors: ErrorContext = { ...ctx.errors, endpoint: url };
    const raw = await httpExchange(
      fetcherSend(ctx.fetcher, ctx),
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', [VERSION_HEADER]: version },
        body: JSON.stringify(rest ? params : { jsonrpc: '2.0', id: crypto.randomUUID(), method, params }),
      },
      { ...ctx, stream: streaming, errors },
    );
    if (raw.events !== undefined) {
      return {
        status: raw.status,
        headers: raw.headers,
        events: streamEvents(raw.events, version, rest, errors),
      };
    }
    const result = rest
      ? sendResultOf(raw.output ?? null, version, errors)
      : answerOf(raw.output ?? null, version, errors);
    if (result.kind === 'message') return { status: raw.status, headers: raw.headers, output: result.value };
    if (result.kind !== 'task')
      throw protocolError(`${ctx.binding.url} answered a send with a ${result.kind} event.`, errors);
    const { task } = result;
    if (task.state === 'completed')
      return { status: raw.status, headers: raw.headers, output: outputOf(task.artifacts) };
    if (isEnded(task)) throw taskError(task, errors);
    // Still running: follow it with GetTask (and CancelTask), through the shared deferred-task loop.
    return {
      status: raw.status,
      headers: { ...raw.headers, 'x-task-id': task.id },
      deferred: {
        taskId: task.id,
        headers: {},
        ...(rest
          ? {
              pollUrl: restTaskUrl(ctx.binding.url, version, task.id),
              send: a2aRestTaskSend(agentSend(ctx, version), version),
            }
          : { pollUrl: ctx.binding.url, send: a2aTaskSend(rpcSend(ctx, version), version, task.id) }),
      },
    };
  },
};

/** The protocol binding this transport speaks for `binding`, if any (A2A over gRPC is not spoken). */
function protocolOf(binding: A2aBinding): 'JSONRPC' | 'HTTP+JSON' | undefined {
  const name = binding.protocolBinding.toUpperCase();
  return name === 'JSONRPC' || name === 'HTTP+JSON' ? name : undefined;
}

/** Sends one request to the agent with the call's headers, answer unread (the task loop reads it). */
function agentSend(ctx: CallContext<A2aBinding>, version: A2aVersion): HttpSend {
  const send = fetcherSend(ctx.fetcher, ctx);
  return (url, init) =>
    send(url, {
      ...init,
      headers: { accept: 'application/json', ...ctx.headers, ...init.headers, [VERSION_HEADER]: version },
      cacheMode: 'no-store',
      ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
    });
}

/** Sends one JSON-RPC request to the interface URL with the call's headers, answer unread. */
function rpcSend(ctx: CallContext<A2aBinding>, version: A2aVersion): RpcSend {
  const send = agentSend(ctx, version);
  return (method, params, signal) =>
    send(ctx.binding.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: crypto.randomUUID(), method, params }),
      ...(signal === undefined ? {} : { signal }),
    });
}

/** A JSON-RPC response's result, read; its error thrown. */
function answerOf(envelope: JsonValue, version: A2aVersion, errors: ErrorContext): A2aResult {
  if (!isObject(envelope))
    throw protocolError(`${errors.endpoint} did not answer with a JSON-RPC response.`, errors);
  if (isObject(envelope['error'])) throw agentErrorFrom(readErrorValue(envelope), errors);
  return sendResultOf(envelope['result'], version, errors);
}

/**
 * A send's result, read: JSON-RPC's `result`, or HTTP+JSON's whole body (whose errors the exchange threw from the
 * HTTP status).
 */
function sendResultOf(result: JsonValue | undefined, version: A2aVersion, errors: ErrorContext): A2aResult {
  const read = readSendResult(version, result);
  if (read === undefined) {
    throw protocolError(
      `${errors.endpoint} answered with a result that is neither an A2A message nor a task.`,
      errors,
    );
  }
  return read;
}

/**
 * A stream's events as invocation events: a status message while working is a `chunk`; artifacts gather into the
 * `result`, sent when the task completes (or as the stream's one message).
 */
async function* streamEvents(
  events: AsyncIterable<InvokeEvent>,
  version: A2aVersion,
  rest: boolean,
  errors: ErrorContext,
): AsyncGenerator<InvokeEvent> {
  const artifacts: Array<{ id: string; values: JsonValue[] }> = [];
  const gather = (id: string, values: JsonValue[], append: boolean): void => {
    const known = artifacts.find((artifact) => artifact.id === id);
    if (known === undefined) artifacts.push({ id, values: [...values] });
    else known.values = append ? [...known.values, ...values] : [...values];
  };
  for await (const event of events) {
    const envelope = event.data;
    if (isObject(envelope) && isObject(envelope['error']))
      throw agentErrorFrom(readErrorValue(envelope), errors);
    // HTTP+JSON sends each stream response alone; JSON-RPC wraps it in a response's `result`.
    const item = readStreamResult(
      version,
      rest ? envelope : isObject(envelope) ? envelope['result'] : undefined,
    );
    if (item === undefined) continue;
    if (item.kind === 'message') {
      yield { event: 'result', data: item.value };
      return;
    }
    if (item.kind === 'artifact') {
      gather(item.id, item.values, item.append);
      continue;
    }
    const task: A2aTask =
      item.kind === 'task'
        ? item.task
        : {
            id: item.taskId,
            state: item.state,
            artifacts: [],
            ...(item.message === undefined ? {} : { statusMessage: item.message }),
          };
    for (const artifact of task.artifacts) gather(artifact.id, artifact.values, false);
    if (task.state === 'completed') {
      yield { event: 'result', data: outputOf(artifacts) };
      return;
    }
    if (isEnded(task)) throw taskError(task, errors);
    if (item.kind === 'status' && item.message !== undefined) yield { event: 'chunk', data: item.message };
  }
  throw protocolError(`${errors.endpoint} ended the stream before the task finished.`, errors);
}

/** A task that will not complete: failed, rejected, cancelled, or waiting for a message invoke cannot send. */
function isEnded(task: A2aTask): boolean {
  return task.state !== 'working' && task.state !== 'submitted' && task.state !== 'unknown';
}

function taskError(task: A2aTask, errors: ErrorContext): Error {
  if (task.state === 'failed' || task.state === 'rejected') {
    return agentErrorFrom(readErrorValue(errorOf(task)), errors);
  }
  const message =
    task.state === 'canceled' ? `Task ${task.id} was cancelled by the agent.` : waitingForCaller(task);
  return new RemoteError(message, {
    ...contextDetails(errors),
    body: task.statusMessage ?? null,
  });
}
