/**
 * The invocation gateway behind `POST /agents/{id}/invoke` (AIDIP §2 "gateway", §5): the registry calls a
 * registered agent on the caller's behalf with `@agentry/client`'s `invoke`, under the client's address checks,
 * and answers with the output or a problem. One try per call: retrying is the caller's decision. A caller that
 * takes `text/event-stream` gets a streaming agent's events as they arrive, and the call's outcome once the stream
 * has ended.
 */

import {
  createSecureFetcher,
  type InvokeEvent,
  type InvokeStream,
  invoke,
  invokeStream,
  NoBindingError,
  type SecureFetcher,
  type TaskProgress,
  TransportError,
  UnsupportedTransportError,
} from '@agentry/client';
import type { Agent, Binding } from '@agentry/core';
import type { RegistryRecord } from '../records/types.js';
import { type FailureParty, failureOf, type MappedFailure } from './errors.js';
import { problemDetails, problemResponse } from './problem.js';
import { readGatewayCall } from './request.js';

export const DEFAULT_GATEWAY_TIMEOUT_MS = 30_000;

export interface GatewayOptions {
  /**
   * The fetcher for calls to agents. Default: the client's strict policy (HTTPS only, public addresses only) with
   * no cache. A registry that must reach agents on a private network passes one configured to allow that.
   */
  fetcher?: SecureFetcher;
  /** Longest a call may take, deferred tasks included (default 30 s): then 504. */
  timeoutMs?: number;
  /**
   * Let agents be called through unix sockets, in-process or local-socket agents, and MCP stdio (default false):
   * a registration must not be able to point the registry at its own host's sockets or make it start processes.
   */
  allowLocalBindings?: boolean;
}

export interface GatewayInvokeOptions {
  /** Aborts the call (the caller went away). */
  signal?: AbortSignal;
  /** The operation the request's `operation` query parameter names; the body is then never read for one. */
  operation?: string;
}

/** How a call went, for the agent's quality record and the metrics. */
export interface GatewayOutcome {
  ok: boolean;
  /** From the call to its answer; for a relayed stream (`ended`), to the stream's end. */
  latencyMs: number;
  /** For a failure, whose it was: only `agent` failures should count against the agent's quality. */
  failure?: FailureParty;
}

export interface GatewayResult extends GatewayOutcome {
  response: Response;
  /** The operation run (or asked for). */
  operation?: string;
  /**
   * For a relayed stream, its outcome once it has ended (the fields above only say that it started): a success
   * when the agent's stream completes; a failure when it ends with an error or breaks off (`agent`, when the
   * agent's), or when the caller goes away first (`gateway`, as failureOf says of a call the caller left). The
   * promise settles before the body closes, and never rejects.
   */
  ended?: Promise<GatewayOutcome>;
}

export interface Gateway {
  invoke(
    record: RegistryRecord,
    body: unknown,
    headers: Headers,
    options?: GatewayInvokeOptions,
  ): Promise<GatewayResult>;
  /** Closes the fetcher the gateway made for itself (not one it was given). */
  close(): Promise<void>;
}

export function createGateway(options: GatewayOptions = {}): Gateway {
  const fetcher = options.fetcher ?? createSecureFetcher({ cache: false });
  const owned = options.fetcher === undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;

  return {
    async invoke(record, body, headers, invokeOptions = {}) {
      const started = performance.now();
      const elapsed = (): number => Math.round((performance.now() - started) * 1000) / 1000;

      if (record.status === 'retired') {
        const problem = problemDetails({
          status: 410,
          code: 'AgentRetired',
          detail: `Agent "${record.id}" is retired and can no longer be invoked.`,
          extra: { agent: record.id },
        });
        return { response: problemResponse(problem), latencyMs: elapsed(), ok: false, failure: 'caller' };
      }
      const read = readGatewayCall(body, headers, {
        ids: [record.id, record.agent.id],
        agent: record.agent,
        ...(invokeOptions.operation === undefined ? {} : { operation: invokeOptions.operation }),
      });
      if (read.problem !== undefined) {
        return {
          response: problemResponse(read.problem),
          latencyMs: elapsed(),
          ok: false,
          failure: 'caller',
        };
      }
      const { call } = read;
      const agent =
        options.allowLocalBindings === true ? record.agent : withNetworkBindingsOnly(record.agent);
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal =
        invokeOptions.signal === undefined ? deadline : AbortSignal.any([deadline, invokeOptions.signal]);

      const callOptions = {
        ...call.options,
        ...(call.operation === undefined ? {} : { operation: call.operation }),
        fetcher,
        validate: 'strict' as const,
        retry: { attempts: 1 },
        tasks: { timeoutMs },
        timeoutMs,
        signal,
      };
      try {
        if (wantsEvents(headers)) {
          const operation =
            call.operation ?? (agent.operations.length === 1 ? agent.operations[0]?.name : undefined);
          // A deferred task's progress is an event too: `task` {id?, status: working, polls} while it waits.
          const progress = new EventChannel();
          const streamOptions = {
            ...callOptions,
            tasks: {
              timeoutMs,
              onPending: ({ taskId, polls }: TaskProgress) =>
                progress.push({
                  event: 'task',
                  data: { ...(taskId === undefined ? {} : { id: taskId }), status: 'working', polls },
                }),
            },
          };
          const relayed = await relayEvents(
            withProgress(invokeStream({ agent }, call.input, streamOptions), progress),
            (output) => {
              const jsonHeaders: Record<string, string> = { 'content-type': 'application/json' };
              if (operation !== undefined) jsonHeaders['x-agent-operation'] = operation;
              return new Response(JSON.stringify(output), { status: 200, headers: jsonHeaders });
            },
            (error) =>
              failureOf(error, {
                agentId: record.id,
                inputAt: call.inputAt,
                ...(operation === undefined ? {} : { operation }),
              }),
          );
          const streamed: GatewayResult = { response: relayed.response, latencyMs: elapsed(), ok: true };
          if (relayed.ended !== undefined) {
            streamed.ended = relayed.ended.then(({ failure }) =>
              failure === undefined
                ? { ok: true, latencyMs: elapsed() }
                : { ok: false, latencyMs: elapsed(), failure },
            );
          }
          if (operation !== undefined) streamed.operation = operation;
          return streamed;
        }
        const result = await invoke({ agent }, call.input, callOptions);
        const responseHeaders: Record<string, string> = {
          'content-type': 'application/json',
          'x-agent-operation': result.operation,
        };
        if (result.taskId !== undefined) responseHeaders['x-task-id'] = result.taskId;
        return {
          response: new Response(JSON.stringify(result.output), { status: 200, headers: responseHeaders }),
          latencyMs: elapsed(),
          ok: true,
          operation: result.operation,
        };
      } catch (error) {
        const removedLocal = agent !== record.agent && agent.bindings.length < record.agent.bindings.length;
        const mapped = failureOf(refusedIfLocalOnly(error, removedLocal), {
          agentId: record.id,
          inputAt: call.inputAt,
          ...(call.operation === undefined ? {} : { operation: call.operation }),
        });
        const operation =
          typeof mapped.problem['operation'] === 'string' ? mapped.problem['operation'] : call.operation;
        const failed: GatewayResult = {
          response: problemResponse(mapped.problem, mapped.headers),
          latencyMs: elapsed(),
          ok: false,
          failure: mapped.party,
        };
        if (operation !== undefined) failed.operation = operation;
        return failed;
      }
    },
    async close() {
      if (owned) await fetcher.close();
    },
  };
}

/** Bindings that reach the agent's host, not ours: HTTP(S), MCP over HTTP, A2A, WebSocket. */
function isNetworkBinding(binding: Binding): boolean {
  switch (binding.kind) {
    case 'unix':
    case 'local':
      return false;
    case 'mcp':
      return /^https?:\/\//i.test(binding.server) && binding.transport !== 'stdio';
    default:
      return true;
  }
}

function withNetworkBindingsOnly(agent: Agent): Agent {
  const bindings = agent.bindings.filter(isNetworkBinding);
  return bindings.length === agent.bindings.length ? agent : { ...agent, bindings };
}

/**
 * With the local bindings taken away, "no binding for the operation" means the agent can only be reached
 * locally: that is a refusal, not a missing binding.
 */
function refusedIfLocalOnly(error: unknown, removedLocal: boolean): unknown {
  if (!removedLocal || !(error instanceof NoBindingError || error instanceof UnsupportedTransportError))
    return error;
  return new TransportError(error.message, { cause: error }, 'refused');
}

/** Whether the caller takes an event stream (`Accept: text/event-stream`). */
function wantsEvents(headers: Headers): boolean {
  return /\btext\/event-stream\b/i.test(headers.get('accept') ?? '');
}

/** Whose failure ended a relayed stream; none when it completed. */
interface StreamEnd {
  failure?: FailureParty;
}

/**
 * An agent's answer as Server-Sent Events, relayed as they arrive — or, when the agent answered once (one
 * `result`: a plain answer, or a deferred task waited for), that answer as JSON, as a caller that takes no stream
 * gets it. The first event is awaited before answering, so a call that fails at once is a problem with its status,
 * not a stream; a failure after the first event ends the stream with an `error` event holding the problem. A
 * stream comes with `ended`, which says how it ended.
 */
async function relayEvents(
  stream: AsyncIterable<InvokeEvent>,
  single: (output: unknown) => Response,
  failureOfError: (error: unknown) => MappedFailure,
): Promise<{ response: Response; ended?: Promise<StreamEnd> }> {
  const events = stream[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done === true) return { response: single(null) };
  if (first.value.event === 'result') {
    const second = await events.next();
    if (second.done === true) return { response: single(first.value.data) };
    return sseResponse([first.value, second.value], events, failureOfError);
  }
  return sseResponse([first.value], events, failureOfError);
}

function sseResponse(
  started: InvokeEvent[],
  rest: AsyncIterator<InvokeEvent>,
  failureOfError: (error: unknown) => MappedFailure,
): { response: Response; ended: Promise<StreamEnd> } {
  let end: (how: StreamEnd) => void = () => {};
  const ended = new Promise<StreamEnd>((resolve) => {
    end = resolve;
  });
  const encoder = new TextEncoder();
  const frame = (event: string, data: unknown): Uint8Array =>
    encoder.encode(`event: ${event.replace(/[\r\n]/g, ' ')}\ndata: ${JSON.stringify(data)}\n\n`);
  let pending = [...started];
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = pending.shift();
      if (next !== undefined) {
        controller.enqueue(frame(next.event, next.data));
        return;
      }
      // The outcome is settled before the body closes, so whoever records it can hold the close until it has.
      try {
        const read = await rest.next();
        if (read.done === true) {
          end({});
          controller.close();
        } else controller.enqueue(frame(read.value.event, read.value.data));
      } catch (error) {
        const failed = failureOfError(error);
        end({ failure: failed.party });
        controller.enqueue(frame('error', failed.problem));
        controller.close();
      }
    },
    async cancel() {
      // The caller went away mid-stream: not the agent's failure (failureOf says the same of an aborted call).
      end({ failure: 'gateway' });
      pending = [];
      await rest.return?.();
    },
  });
  const response = new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
  });
  return { response, ended };
}

/** Events pushed from callbacks (a deferred task's progress), read in order. */
class EventChannel {
  readonly #queued: InvokeEvent[] = [];
  #wake: (() => void) | undefined;

  push(event: InvokeEvent): void {
    this.#queued.push(event);
    this.#wake?.();
    this.#wake = undefined;
  }

  take(): InvokeEvent | undefined {
    return this.#queued.shift();
  }

  /** Resolves once an event is queued (at once if one is). */
  arrival(): Promise<void> {
    if (this.#queued.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }
}

/** The stream's events with the channel's pushed in as they come, while the stream has not yet answered. */
async function* withProgress(stream: InvokeStream, progress: EventChannel): AsyncGenerator<InvokeEvent> {
  const events = stream[Symbol.asyncIterator]();
  try {
    let next = events.next();
    for (;;) {
      const queued = progress.take();
      if (queued !== undefined) {
        yield queued;
        continue;
      }
      const first = await Promise.race([next, progress.arrival().then(() => undefined)]);
      if (first === undefined) continue;
      if (first.done === true) return;
      yield first.value;
      next = events.next();
    }
  } finally {
    await events.return?.();
  }
}
