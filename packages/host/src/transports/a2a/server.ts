/**
 * The host's A2A endpoint: JSON-RPC 2.0 over HTTP POST at `/agents/{id}/a2a` (the URL the agent's card names), in
 * A2A v1.0 and v0.3 (methods.ts, dialect.ts). A message becomes a `runtime.call` (message-input.ts), so validation,
 * auth, rate limits, idempotency, confirmation and deferred tasks behave as on every other transport; the outcome
 * is answered in A2A's terms:
 *
 * - an output: an agent Message whose one DataPart is the output (`SendStreamingMessage`: a stream of that one
 *   Message);
 * - a deferred operation: a Task with the host task's id, waited for unless the caller asked to return immediately,
 *   its output the DataPart of its `output` artifact; `GetTask` and `CancelTask` read and cancel it (task-view.ts);
 * - a streaming operation, streamed: a working Task, a status update per chunk (the chunk as the status message's
 *   DataPart), then the output artifact and a completed (or failed) status;
 * - a refusal or failure: a JSON-RPC error carrying the problem (errors.ts).
 *
 * docs/host-protocols.md describes the mapping.
 */
import { isObject, type JsonObject, type JsonValue, parseJsonText } from '@agentry/core';
import { DEFAULT_BODY_LIMIT, readBodyText } from '../../http/body.js';
import { textStream } from '../../http/text-stream.js';
import { outcomeEvents } from '../../runtime/outcome-events.js';
import { SESSION_HEADER } from '../../runtime/runtime.js';
import { pollingTaskWaiter, type TaskPollingOptions } from '../../runtime/tasks/polling.js';
import type { CallOutcome, HostRuntime, StreamEvent } from '../../runtime/types.js';
import { type Dialect, dialectFor, type TaskView } from './dialect.js';
import { type A2aError, a2aError, JSON_RPC, problemError, reasonOf } from './errors.js';
import { messageCall } from './message-input.js';
import { isServedVersion, type MethodRoute, routeOf, VERSION_HEADER } from './methods.js';
import { isFinalState, type TaskAccess, taskView } from './task-view.js';

export interface A2aHandlerOptions {
  /** The agent this endpoint serves. */
  agentId: string;
  /** Largest request body read (default: the host's 1 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /**
   * How deferred operations are followed: the host's own `/tasks/{id}` routes, through `fetch` (default
   * `runtime.fetch`); blocking sends wait at most `timeoutMs` (default 50 s), then answer the task still working.
   */
  tasks?: TaskPollingOptions;
}

export interface A2aRequestContext {
  /** The caller's network address: anonymous callers are rate limited by it. */
  clientAddress?: string;
}

export type A2aHandler = (request: Request, context?: A2aRequestContext) => Promise<Response>;

type RequestId = string | number | null;

/** What following a call's outcome needs: how to write it, and whose call it was. */
interface Following {
  dialect: Dialect;
  headers: Headers;
  signal: AbortSignal;
  contextId: string;
  operation: string;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-store',
  // Proxies (nginx) would otherwise hold events back.
  'x-accel-buffering': 'no',
};
const V1 = dialectFor('1.0');

interface Exchange {
  request: Request;
  context: A2aRequestContext;
  id: RequestId;
  dialect: Dialect;
  params: JsonObject;
}

export function createA2aHandler(runtime: HostRuntime, options: A2aHandlerOptions): A2aHandler {
  const { agentId } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
  const waitForTask = pollingTaskWaiter(runtime, options.tasks);
  const hostFetch = options.tasks?.fetch ?? runtime.fetch?.bind(runtime);
  const access: TaskAccess = {
    agentId,
    baseUrl: runtime.baseUrl,
    fetch:
      hostFetch ??
      (async () => Response.json({ status: 501, title: 'Tasks are not followed here' }, { status: 501 })),
  };

  const send = async (exchange: Exchange, streaming: boolean): Promise<Response> => {
    const { dialect, request, id } = exchange;
    const hosted = runtime.agents().find((entry) => entry.agent.id === agentId);
    if (hosted === undefined) return errorResponse(id, unknownAgent(agentId), dialect);
    const params = dialect.readSend(exchange.params);
    if (typeof params === 'string') {
      return errorResponse(id, a2aError(JSON_RPC.invalidParams, 400, 'InvalidMessage', params), dialect);
    }
    if (params.pushNotifications) return errorResponse(id, pushNotSupported(), dialect);
    if (params.message.taskId !== undefined) {
      return errorResponse(
        id,
        a2aError(
          JSON_RPC.unsupportedOperation,
          400,
          'TaskContinuationNotSupported',
          `Tasks here take no further messages: each message starts a call (task "${params.message.taskId}" was named).`,
        ),
        dialect,
      );
    }
    const call = messageCall(agentId, hosted.agent.operations, params.message, params.metadata);
    if ('code' in call) return errorResponse(id, call, dialect);

    const headers = new Headers(request.headers);
    const contextId = params.message.contextId ?? headers.get(SESSION_HEADER) ?? crypto.randomUUID();
    // The context is the session: a handler reads it as `sessionId`, and a task keeps it.
    if (!headers.has(SESSION_HEADER)) headers.set(SESSION_HEADER, contextId);
    const outcome = await runtime.call({
      agentId,
      operation: call.operation,
      input: call.input,
      headers,
      transport: 'a2a',
      stream: streaming,
      signal: request.signal,
      ...(exchange.context.clientAddress === undefined
        ? {}
        : { clientAddress: exchange.context.clientAddress }),
    });
    if (outcome.kind === 'problem') {
      return errorResponse(id, problemError(outcome.problem, outcome.headers), dialect);
    }
    const follow: Following = {
      dialect,
      headers,
      signal: request.signal,
      contextId,
      operation: call.operation,
    };
    if (streaming) return sseResponse(id, streamedEvents(outcome, follow), outcome.headers, dialect);
    if (outcome.kind !== 'task') {
      const final = await finalEvent(outcome, follow);
      if (final.type === 'error') return errorResponse(id, problemError(final.problem), dialect);
      return resultResponse(
        id,
        dialect.sendResult('message', dialect.message(contextId, toJson(final.output))),
        outcome.headers,
      );
    }
    if (!params.returnImmediately) await waitForTask(outcome, { headers, signal: request.signal });
    const view = await taskView(access, outcome.taskId, headers);
    if ('code' in view) return errorResponse(id, view, dialect);
    return resultResponse(id, dialect.sendResult('task', dialect.task(view)), outcome.headers);
  };

  const finalEvent = async (
    outcome: CallOutcome,
    follow: Following,
  ): Promise<Extract<StreamEvent, { type: 'result' | 'error' }>> => {
    for await (const event of outcomeEvents(outcome, waitForTask, follow)) {
      if (event.type !== 'chunk') return event;
    }
    throw new Error('outcomeEvents ended without a final event.');
  };

  /** The JSON-RPC responses a streamed send answers with, as SSE events. */
  async function* streamedEvents(outcome: CallOutcome, follow: Following): AsyncGenerator<RpcPayload> {
    const { dialect, contextId, operation } = follow;
    if (outcome.kind === 'task') {
      const first = await taskView(access, outcome.taskId, follow.headers);
      if ('code' in first) {
        yield { error: first };
        return;
      }
      yield { result: dialect.streamResult('task', dialect.task(first)) };
      if (!isFinalState(first.state)) await waitForTask(outcome, follow);
      const last = isFinalState(first.state) ? first : await taskView(access, outcome.taskId, follow.headers);
      if ('code' in last) {
        yield { error: last };
        return;
      }
      yield* closingEvents(dialect, last);
      return;
    }
    if (outcome.kind === 'result') {
      yield { result: dialect.streamResult('message', dialect.message(contextId, toJson(outcome.output))) };
      return;
    }
    // A streaming operation runs as a task of the stream's own: it is reported here, not kept for GetTask.
    const taskId = crypto.randomUUID();
    const timestamp = new Date().toISOString();
    const working: TaskView = { id: taskId, contextId, operation, state: 'working', timestamp };
    yield { result: dialect.streamResult('task', dialect.task(working)) };
    for await (const event of outcomeEvents(outcome, waitForTask, follow)) {
      if (event.type === 'chunk') {
        const update = {
          taskId,
          contextId,
          state: 'working' as const,
          message: toJson(event.data),
          final: false,
        };
        yield { result: dialect.streamResult('statusUpdate', dialect.statusUpdate(update)) };
      } else if (event.type === 'result') {
        yield* closingEvents(dialect, { ...working, state: 'completed', output: toJson(event.output) });
      } else {
        yield* closingEvents(dialect, { ...working, state: 'failed', problem: event.problem });
      }
    }
  }

  const getTask = async (exchange: Exchange): Promise<Response> => {
    const taskId = exchange.params['id'];
    if (typeof taskId !== 'string' || taskId === '')
      return errorResponse(exchange.id, noTaskId(), exchange.dialect);
    const view = await taskView(access, taskId, exchange.request.headers);
    if ('code' in view) return errorResponse(exchange.id, view, exchange.dialect);
    return resultResponse(exchange.id, exchange.dialect.task(view));
  };

  const cancelTask = async (exchange: Exchange): Promise<Response> => {
    const taskId = exchange.params['id'];
    if (typeof taskId !== 'string' || taskId === '')
      return errorResponse(exchange.id, noTaskId(), exchange.dialect);
    const headers = exchange.request.headers;
    const current = await taskView(access, taskId, headers);
    if ('code' in current) return errorResponse(exchange.id, current, exchange.dialect);
    if (isFinalState(current.state)) {
      return errorResponse(
        exchange.id,
        a2aError(
          JSON_RPC.taskNotCancelable,
          409,
          'TaskNotCancelable',
          `Task "${taskId}" has already ended (${current.state}).`,
        ),
        exchange.dialect,
      );
    }
    const cancelled = await taskView(access, taskId, headers, 'DELETE');
    if ('code' in cancelled) return errorResponse(exchange.id, cancelled, exchange.dialect);
    return resultResponse(exchange.id, exchange.dialect.task(cancelled));
  };

  return async (request, context = {}) => {
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
    const body = await readBodyText(request, maxBodyBytes);
    if (!body.ok) {
      const tooLarge = body.problem.status === 413;
      return errorResponse(
        null,
        {
          code: tooLarge ? JSON_RPC.invalidRequest : JSON_RPC.parseError,
          message: body.problem.detail ?? body.problem.title,
          problem: body.problem,
          httpStatus: tooLarge ? 413 : 200,
        },
        V1,
      );
    }
    // core's reader: a syntax error says where, and nesting past its limit is refused before anything recurses.
    const parsed = parseJsonText(body.text);
    if (!parsed.ok) {
      return errorResponse(
        null,
        a2aError(
          JSON_RPC.parseError,
          400,
          'InvalidJson',
          `The body is not usable JSON: ${parsed.issue.message}`,
        ),
        V1,
      );
    }
    const message: unknown = parsed.value;
    if (!isObject(message) || message['jsonrpc'] !== '2.0' || typeof message['method'] !== 'string') {
      const id = isObject(message) && isRequestId(message['id']) ? message['id'] : null;
      return errorResponse(
        id,
        a2aError(
          JSON_RPC.invalidRequest,
          400,
          'InvalidRequest',
          'The body must be one JSON-RPC 2.0 request: {"jsonrpc": "2.0", "id", "method", "params"}.',
        ),
        V1,
      );
    }
    const id = isRequestId(message['id']) ? message['id'] : null;
    const method = message['method'];
    const route = routeOf(method);
    const dialect = route === undefined ? V1 : dialectFor(route.version);
    if (!isServedVersion(request.headers.get(VERSION_HEADER))) {
      return errorResponse(
        id,
        a2aError(
          JSON_RPC.versionNotSupported,
          400,
          'VersionNotSupported',
          `A2A version "${request.headers.get(VERSION_HEADER)}" is not served here; this endpoint speaks 1.0 and 0.3.`,
        ),
        dialect,
      );
    }
    if (route === undefined) {
      return errorResponse(
        id,
        a2aError(
          JSON_RPC.methodNotFound,
          404,
          'MethodNotFound',
          `Method "${method}" is not an A2A method served here.`,
        ),
        dialect,
      );
    }
    if ('refused' in route) return errorResponse(id, refusal(route, method), dialect);
    const params = message['params'] ?? {};
    if (!isObject(params)) {
      return errorResponse(
        id,
        a2aError(JSON_RPC.invalidParams, 400, 'InvalidParams', '"params" must be an object.'),
        dialect,
      );
    }
    const exchange: Exchange = { request, context, id, dialect, params };
    try {
      switch (route.action) {
        case 'send':
          return await send(exchange, false);
        case 'stream':
          return await send(exchange, true);
        case 'get-task':
          return await getTask(exchange);
        case 'cancel-task':
          return await cancelTask(exchange);
      }
    } catch (error) {
      // A caller that went away gets no answer worth writing; anything else is the host's to report.
      if (request.signal.aborted) return new Response(null, { status: 499 });
      throw error;
    }
  };
}

type RpcPayload = { result: JsonObject } | { error: A2aError };

function resultResponse(id: RequestId, result: JsonObject, headers?: Headers): Response {
  const out = new Headers(headers);
  for (const [name, value] of Object.entries(JSON_HEADERS)) out.set(name, value);
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { status: 200, headers: out });
}

function errorResponse(id: RequestId, error: A2aError, dialect: Dialect): Response {
  const out = new Headers(error.headers);
  for (const [name, value] of Object.entries(JSON_HEADERS)) out.set(name, value);
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: errorObject(error, dialect) }), {
    status: error.httpStatus,
    headers: out,
  });
}

function errorObject(error: A2aError, dialect: Dialect): JsonObject {
  return {
    code: error.code,
    message: error.message,
    data: dialect.errorData(error.problem, reasonOf(error.code)),
  };
}

function sseResponse(
  id: RequestId,
  payloads: AsyncGenerator<RpcPayload>,
  headers: Headers,
  dialect: Dialect,
): Response {
  const out = new Headers(headers);
  for (const [name, value] of Object.entries(SSE_HEADERS)) out.set(name, value);
  const body = textStream(payloads, (payload) => {
    const message =
      'result' in payload
        ? { jsonrpc: '2.0', id, result: payload.result }
        : { jsonrpc: '2.0', id, error: errorObject(payload.error, dialect) };
    // JSON text has no raw line breaks, so one data line carries it.
    return `data: ${JSON.stringify(message)}\n\n`;
  });
  return new Response(body, { status: 200, headers: out });
}

/** The events that end a task's stream: its output artifact and completed status, or its final status. */
function* closingEvents(dialect: Dialect, view: TaskView): Generator<RpcPayload> {
  const base = { taskId: view.id, contextId: view.contextId };
  if (view.state === 'completed') {
    const artifact = dialect.artifactUpdate({
      ...base,
      operation: view.operation,
      output: view.output ?? null,
    });
    yield { result: dialect.streamResult('artifactUpdate', artifact) };
  }
  const message =
    view.state === 'failed' && view.problem !== undefined ? (view.problem as JsonObject) : undefined;
  const status = dialect.statusUpdate({
    ...base,
    state: view.state,
    ...(message === undefined ? {} : { message }),
    final: true,
  });
  yield { result: dialect.streamResult('statusUpdate', status) };
}

function refusal(route: Extract<MethodRoute, { refused: unknown }>, method: string): A2aError {
  switch (route.refused) {
    case 'push-notifications':
      return pushNotSupported();
    case 'extended-card':
      return a2aError(
        JSON_RPC.extendedCardNotConfigured,
        404,
        'ExtendedCardNotConfigured',
        'This agent has no authenticated extended card: its public card says everything.',
      );
    default:
      return a2aError(
        JSON_RPC.unsupportedOperation,
        400,
        'UnsupportedOperation',
        `"${method}" is not offered here: send messages, and get or cancel their tasks.`,
      );
  }
}

function pushNotSupported(): A2aError {
  return a2aError(
    JSON_RPC.pushNotificationNotSupported,
    400,
    'PushNotificationsNotSupported',
    'This agent sends no push notifications: poll the task with GetTask instead.',
  );
}

function noTaskId(): A2aError {
  return a2aError(JSON_RPC.invalidParams, 400, 'InvalidParams', '"params.id" must name a task.');
}

function unknownAgent(agentId: string): A2aError {
  return {
    ...a2aError(JSON_RPC.invalidRequest, 404, 'AgentNotFound', `No agent "${agentId}" is hosted here.`),
    httpStatus: 404,
  };
}

function isRequestId(value: unknown): value is RequestId {
  return (
    typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)) || value === null
  );
}

/** Outputs and chunks are JSON already (the runtime made them so); this only narrows the type. */
function toJson(value: unknown): JsonValue {
  return (value ?? null) as JsonValue;
}
