/**
 * The invocation gateway behind `POST /agents/{id}/invoke` (AIDIP §2 "gateway", §5): the registry calls a
 * registered agent on the caller's behalf with `@agentry/client`'s `invoke`, under the client's address checks,
 * and answers with the output or a problem. One try per call: retrying is the caller's decision.
 */

import {
  createSecureFetcher,
  invoke,
  NoBindingError,
  type SecureFetcher,
  TransportError,
  UnsupportedTransportError,
} from '@agentry/client';
import type { Agent, Binding } from '@agentry/core';
import type { RegistryRecord } from '../records/types.js';
import { type FailureParty, failureOf } from './errors.js';
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

export interface GatewayResult {
  response: Response;
  latencyMs: number;
  ok: boolean;
  /** For a failure, whose it was: only `agent` failures should count against the agent's quality. */
  failure?: FailureParty;
  /** The operation run (or asked for). */
  operation?: string;
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

      try {
        const result = await invoke({ agent }, call.input, {
          ...call.options,
          ...(call.operation === undefined ? {} : { operation: call.operation }),
          fetcher,
          validate: 'strict',
          retry: { attempts: 1 },
          tasks: { timeoutMs },
          timeoutMs,
          signal,
        });
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
