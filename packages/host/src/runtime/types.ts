/**
 * The seam between the host's HTTP surface and the transports that reach the same operations another way (the
 * MCP server, NDJSON over WebSocket, A2A JSON-RPC): every transport turns its message into a `CallRequest` and renders the
 * `CallOutcome`, so validation, auth, rate limits, idempotency, confirmation and tasks behave the same on each.
 */
import type { Agent } from '@agentry/core';
import type { CallTransport } from '../define/types.js';
import type { Problem } from '../errors.js';

export interface CallRequest {
  agentId: string;
  operation: string;
  input: unknown;
  /** The caller's headers (credentials, Idempotency-Key, X-Agent-Confirmation, X-Session-ID, …). */
  headers: Headers;
  transport: CallTransport;
  /** The caller reads partial results (SSE, NDJSON, WebSocket `stream: true`). */
  stream: boolean;
  signal?: AbortSignal;
  /**
   * The caller's network address, when the transport knows it: anonymous callers are rate limited and keep their
   * idempotency keys by it.
   */
  clientAddress?: string;
}

export type StreamEvent =
  | { type: 'chunk'; data: unknown }
  | { type: 'result'; output: unknown }
  | { type: 'error'; problem: Problem };

export type CallOutcome =
  /**
   * The operation finished: its output. `headers` carries RateLimit-*, Idempotency replay markers, … `text`, when
   * present, is the output as JSON text (`JSON.stringify(output)`), for transports that send it as it is.
   */
  | { kind: 'result'; output: unknown; headers: Headers; text?: string }
  /** A streaming handler: chunk events, then exactly one final `result` or `error` event. */
  | { kind: 'stream'; events: AsyncIterable<StreamEvent>; headers: Headers }
  /** A deferred operation was accepted: poll `location` (`/tasks/{id}`). */
  | { kind: 'task'; taskId: string; location: string; retryAfterSeconds: number; headers: Headers }
  /** The call was refused or failed (validation, auth, rate limit, confirmation, handler error, …). */
  | { kind: 'problem'; problem: Problem; headers: Headers };

export interface HostedAgent {
  /** The canonical agent, as every document describes it. */
  agent: Agent;
}

export interface HostRuntime {
  /** The base URL every document's links are built from (no trailing slash). */
  readonly baseUrl: string;
  agents(): readonly HostedAgent[];
  call(request: CallRequest): Promise<CallOutcome>;
  /**
   * The host's own web handler, for transports that follow a call over HTTP in process (the MCP server polls a
   * deferred task's `GET /tasks/{id}` through it). Set by `createHost`.
   */
  fetch?(request: Request): Promise<Response>;
}
