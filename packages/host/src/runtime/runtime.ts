/**
 * The call pipeline every transport shares (HTTP envelope and operation routes, MCP, WebSocket), in the order the
 * host promises: resolve the agent and operation → confirmation (428) → auth (401/403) → rate limit (429) →
 * input (400) → idempotency (replay/409) → run (sync, stream or deferred task) → idempotency commit.
 */
import { type Agent, type JsonValue, type Operation, SESSION_HEADER } from '@agentry/core';
import type { AgentDefinition, DefinedOperation, HandlerContext } from '../define/types.js';
import type { Problem } from '../errors.js';
import { problem, problems } from '../errors.js';
import type { HostLogger } from '../logger.js';
import type { Authenticator, Principal } from '../policies/auth.js';
import { callerKey } from '../policies/caller-key.js';
import { confirmationProblem } from '../policies/confirmation.js';
import {
  type IdempotencyStore,
  idempotencyScope,
  REPLAYED_HEADER,
  requestFingerprint,
  type StoredResponse,
} from '../policies/idempotency.js';
import type { RateLimiter } from '../policies/rate-limit.js';
import { CallContext, contextFields } from './call-context.js';
import { isAsyncIterable, type RunSettings, runToOutput, start, streamEvents } from './run.js';
import { type CallSignal, callSignal, linkSignals } from './signals.js';
import { CALLBACK_HEADER, isCallbackUrl } from './tasks/callbacks.js';
import type { TaskRecord, TaskStore } from './tasks/task-store.js';
import type { CallOutcome, CallRequest, HostedAgent, HostRuntime, StreamEvent } from './types.js';
import { absentInput, checkInput } from './validation.js';

export { SESSION_HEADER } from '@agentry/core';
export const TASK_HEADER = 'X-Task-ID';

export interface RuntimeAgent {
  definition: AgentDefinition;
  /** The canonical agent as published (with this host's bindings and security). */
  agent: Agent;
}

export interface RuntimeOptions {
  baseUrl: string;
  /** The base URL's path (`''` at the origin root): task locations live under it. */
  basePath: string;
  agents: readonly RuntimeAgent[];
  authenticator?: Authenticator;
  rateLimiter?: RateLimiter;
  idempotency?: IdempotencyStore;
  tasks: TaskStore;
  /** What `Retry-After` deferred calls and polls of running tasks suggest. */
  taskRetryAfterSeconds: number;
  /** Whether signed callbacks can be sent; a call asking for one is refused otherwise. */
  callbacksEnabled: boolean;
  /** Called when a task ends (for its callback). */
  onTaskFinished?: (task: TaskRecord) => void;
  logger: HostLogger;
  validateOutput: boolean;
  /** Aborted when the host closes. */
  closing: AbortSignal;
}

export interface Runtime extends HostRuntime {
  agent(id: string): RuntimeAgent | undefined;
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const byId = new Map(options.agents.map((entry) => [entry.definition.id, entry]));
  const hosted: readonly HostedAgent[] = options.agents.map((entry) => ({ agent: entry.agent }));
  const ids = options.agents.map((entry) => entry.definition.id);
  // Each operation as published (with this host's security), found once rather than on every call.
  const published = new Map<DefinedOperation, Operation>();
  const runSettings = new Map<RuntimeAgent, RunSettings>();
  for (const entry of options.agents) {
    runSettings.set(entry, {
      logger: options.logger,
      validateOutput: options.validateOutput,
      agentId: entry.definition.id,
    });
    for (const op of entry.definition.operations.values()) {
      published.set(
        op,
        entry.agent.operations.find((candidate) => candidate.name === op.spec.name) ?? op.spec,
      );
    }
  }

  const call = async (request: CallRequest): Promise<CallOutcome> => {
    const entry = byId.get(request.agentId);
    if (entry === undefined) return refused(problems.agentNotFound(request.agentId, ids));
    const op = entry.definition.operations.get(request.operation);
    if (op === undefined) {
      const names = [...entry.definition.operations.keys()];
      return refused(problems.operationNotFound(request.agentId, request.operation, names));
    }
    const spec = published.get(op) ?? op.spec;
    const headers = new Headers();

    const unconfirmed = confirmationProblem(spec, request.headers);
    if (unconfirmed !== undefined) return refused(unconfirmed);

    let principal: Principal | undefined;
    if (options.authenticator !== undefined) {
      const decision = await options.authenticator.authorize(request.headers, spec, entry.agent);
      if (!decision.ok) return refused(decision.problem, decision.headers);
      principal = decision.principal;
    }

    // Most operations have no limit: they skip the bucket lookup and its (empty) headers.
    if (options.rateLimiter?.limits(spec.rateLimit) === true) {
      const client = callerKey(principal?.clientId, request.clientAddress);
      const decision = options.rateLimiter.take(client, `${request.agentId}/${spec.name}`, spec.rateLimit);
      decision.headers.forEach((value, name) => {
        headers.append(name, value);
      });
      if (!decision.allowed) {
        return refused(decision.problem ?? problem({ status: 429, code: 'RateLimited' }), headers);
      }
    }

    const raw = request.input === undefined ? absentInput(spec.input) : request.input;
    const checking = checkInput(op, raw);
    const checked = checking instanceof Promise ? await checking : checking;
    if (!checked.ok) return refused(problems.invalidInput(checked.failures), headers);

    const deferred = spec.executionModel === 'async';
    const callbackUrl = deferred ? request.headers.get(CALLBACK_HEADER)?.trim() : undefined;
    if (callbackUrl !== undefined && callbackUrl !== '') {
      const refusal = callbackProblem(callbackUrl, options.callbacksEnabled);
      if (refusal !== undefined) return refused(refusal, headers);
    }

    const key = options.idempotency?.keyFor(spec, request.headers, raw);
    let claim: Extract<ReturnType<IdempotencyStore['begin']>, { kind: 'new' }> | undefined;
    if (key !== undefined && options.idempotency !== undefined) {
      const store = options.idempotency;
      const begun = store.begin(
        idempotencyScope(request.agentId, spec.name, callerKey(principal?.clientId, request.clientAddress)),
        key,
        requestFingerprint(spec.name, raw),
        store.windowFor(spec),
      );
      if (begun.kind === 'replay') return replayed(begun.response, headers);
      if (begun.kind !== 'new') return refused(begun.problem, headers);
      claim = begun;
    }

    const settings = runSettings.get(entry)!;
    const fields = contextFields(request.agentId, spec.name, request.headers, request.transport, {
      sessionId: request.headers.get(SESSION_HEADER),
      principal,
      idempotencyKey: key,
    });

    if (deferred) {
      const task = options.tasks.create({
        agentId: request.agentId,
        operation: spec.name,
        ...optional('owner', principal?.clientId),
        ...optional('callbackUrl', callbackUrl === '' ? undefined : callbackUrl),
        ...optional('sessionId', request.headers.get(SESSION_HEADER) ?? undefined),
      });
      if (task === undefined) {
        claim?.abandon();
        return refused(
          problem({
            status: 503,
            code: 'TooManyTasks',
            title: 'Service unavailable',
            detail: 'The host is running as many deferred tasks as it keeps; try again later.',
          }),
          withRetryAfter(headers, options.taskRetryAfterSeconds),
        );
      }
      const { signal, release } = linkSignals(task.controller.signal, options.closing);
      const context: HandlerContext = {
        ...fields,
        taskId: task.id,
        signal,
        progress(update: JsonValue) {
          if (task.status === 'running' || task.status === 'pending') task.progress = update;
        },
      };
      task.status = 'running';
      void runToOutput(op, start(op, checked.value, context), signal, settings).then((finished) => {
        release();
        const ended = options.tasks.finish(
          task.id,
          finished.ok ? { output: finished.output } : { problem: finished.problem },
        );
        if (ended) options.onTaskFinished?.(task);
      });
      const location = `${options.basePath}/tasks/${task.id}`;
      headers.set(TASK_HEADER, task.id);
      claim?.commit(storedJson(202, [[TASK_HEADER, task.id]], { taskId: task.id, location }));
      return {
        kind: 'task',
        taskId: task.id,
        location,
        retryAfterSeconds: options.taskRetryAfterSeconds,
        headers,
      };
    }

    const calling = callSignal(request, options.closing);
    const context = new CallContext(fields, request.headers.get(TASK_HEADER), calling);
    const started = start(op, checked.value, context);
    if (request.stream && 'returned' in started && isAsyncIterable(started.returned)) {
      const events = released(streamEvents(op, started.returned, calling, settings), calling);
      return { kind: 'stream', events: claim === undefined ? events : committing(events, claim), headers };
    }
    let finished: Awaited<ReturnType<typeof runToOutput>>;
    try {
      finished = await runToOutput(op, started, calling, settings);
    } finally {
      calling.release();
    }
    if (finished.ok) {
      claim?.commit(storedText(200, [], finished.text));
      return { kind: 'result', output: finished.output, headers, text: finished.text };
    }
    settle(claim, finished.problem);
    finished.headers?.forEach((value, name) => {
      headers.set(name, value);
    });
    return { kind: 'problem', problem: finished.problem, headers };
  };

  return {
    baseUrl: options.baseUrl,
    agents: () => hosted,
    call,
    agent: (id) => byId.get(id),
  };
}

function refused(problemDetails: Problem, headers: Headers = new Headers()): CallOutcome {
  return { kind: 'problem', problem: problemDetails, headers };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function withRetryAfter(headers: Headers, seconds: number): Headers {
  headers.set('retry-after', String(seconds));
  return headers;
}

function callbackProblem(url: string, enabled: boolean): Problem | undefined {
  if (!enabled) {
    return problem({
      status: 400,
      code: 'CallbacksNotSupported',
      title: 'Bad request',
      detail: `This host sends no task callbacks; leave out ${CALLBACK_HEADER} and poll the task instead.`,
    });
  }
  if (!isCallbackUrl(url)) {
    return problem({
      status: 400,
      code: 'InvalidCallbackUrl',
      title: 'Bad request',
      detail: `${CALLBACK_HEADER} must be an absolute http(s) URL.`,
    });
  }
  return undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function storedJson(status: number, headers: [string, string][], body: unknown): StoredResponse {
  return storedText(status, headers, JSON.stringify(body));
}

function storedText(status: number, headers: [string, string][], text: string): StoredResponse {
  return { status, headers, body: encoder.encode(text) };
}

/** A failed call's key: kept when the request was at fault (4xx, so a retry gets the same answer), else freed. */
function settle(
  claim: { commit(response: StoredResponse): void; abandon(): void } | undefined,
  failed: Problem,
): void {
  if (claim === undefined) return;
  if (failed.status >= 400 && failed.status < 500) claim.commit(storedJson(failed.status, [], failed));
  else claim.abandon();
}

/** The outcome a stored response stands for, marked as replayed. */
function replayed(response: StoredResponse, headers: Headers): CallOutcome {
  for (const [name, value] of response.headers) headers.set(name, value);
  headers.set(REPLAYED_HEADER, 'true');
  const body = JSON.parse(decoder.decode(response.body)) as unknown;
  if (response.status === 202) {
    const task = body as { taskId: string; location: string };
    return { kind: 'task', taskId: task.taskId, location: task.location, retryAfterSeconds: 1, headers };
  }
  if (response.status >= 400) return { kind: 'problem', problem: body as Problem, headers };
  return { kind: 'result', output: body, headers };
}

/** The events, then the call's signal detached from its sources (however the stream ends). */
async function* released<T>(events: AsyncIterable<T>, signal: CallSignal): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    signal.release();
  }
}

/** A stream whose final event settles the idempotency key; a reader that leaves early frees it. */
async function* committing(
  events: AsyncGenerator<StreamEvent>,
  claim: { commit(response: StoredResponse): void; abandon(): void },
): AsyncGenerator<StreamEvent> {
  let settled = false;
  try {
    for await (const event of events) {
      if (event.type === 'result') {
        claim.commit(storedJson(200, [], event.output));
        settled = true;
      } else if (event.type === 'error') {
        settle(claim, event.problem);
        settled = true;
      }
      yield event;
    }
  } finally {
    if (!settled) claim.abandon();
  }
}
