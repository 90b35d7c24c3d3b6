/** The public shapes of invocation: what `invoke` and `invokeStream` take and give back. */
import type { Agent, Binding, JsonValue } from '@agentry/core';
import type { SecureFetcher } from '../fetch/types.js';
import type { Resolution, ResolveOptions } from '../resolve/types.js';
import type { DelegationOptions } from './delegation.js';

/**
 * What to call: an `agent://` URI or URL (resolved first), a `Resolution` already made, or an agent (with the
 * binding to use, when the caller wants a particular one).
 */
export type InvokeTarget = string | Resolution | ResolvedTarget;

export interface ResolvedTarget {
  agent: Agent;
  binding?: Binding;
  /** The version resolution selected; sent as `X-Agent-Version`. */
  version?: string;
}

export type ValidationMode = 'strict' | 'warn' | 'off';

export interface RetryOptions {
  /** Tries in all, the first included (default 3; 1 disables retries). */
  attempts?: number;
  /** First backoff step (default 250 ms); each retry doubles it, with full jitter. */
  baseDelayMs?: number;
  /**
   * Longest wait between tries (default 30 s). A `Retry-After` asking for longer is not waited out: the error
   * is thrown with `retryAfterMs` so the caller can decide.
   */
  maxDelayMs?: number;
}

export interface TaskOptions {
  /** Give up polling a deferred task after this long (default 5 minutes); the task is then cancelled. */
  timeoutMs?: number;
  /** Poll interval when the agent gives no hint (default 1 s). */
  intervalMs?: number;
  /** Longest interval honoured from a hint (default 60 s). */
  maxIntervalMs?: number;
  /**
   * Told when the answer is deferred (`polls` 0) and after each poll that finds the task still working: for a
   * caller that shows a task's progress while it waits.
   */
  onPending?: (task: TaskProgress) => void;
}

/** A deferred task still working, as `TaskOptions.onPending` hears of it. */
export interface TaskProgress {
  /** The task's id, when the agent gave one. */
  taskId?: string;
  /** Polls made so far. */
  polls: number;
}

export interface AuthOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  bearer?: string;
  /**
   * Sent where the agent's API-key scheme says (header, query or cookie, under its name), else as `X-API-Key`.
   */
  apiKey?: string;
}

export interface InvokeOptions {
  /** The operation to run; may be left out when the agent has one operation (or one named `default`). */
  operation?: string;
  /** The secure fetcher for HTTP(S) traffic (default: a new one with the default, strict policy). */
  fetcher?: SecureFetcher;
  /** How string targets are resolved (static map, WebFinger, fallback, scheme); fetcher, version and signal are ours. */
  resolve?: Omit<ResolveOptions, 'fetcher' | 'version' | 'signal'>;
  /** Input and output schema checks (default `strict`: throw; `warn`: report as warnings; `off`). */
  validate?: ValidationMode;
  /** Run an operation that is destructive, irreversible or asks for a person's confirmation. */
  confirm?: boolean;
  /** Makes a non-idempotent call safe to retry; sent per the operation's idempotency contract. */
  idempotencyKey?: string;
  retry?: RetryOptions;
  tasks?: TaskOptions;
  /** Extra request headers (they win over Agentry's own). */
  headers?: Record<string, string>;
  auth?: AuthOptions;
  /** `X-Session-ID` (and `sessionId` in non-HTTP envelopes). */
  sessionId?: string;
  /** `X-Task-ID` (and `taskId` in non-HTTP envelopes). */
  taskId?: string;
  /** Sign and send an `X-Delegation-Chain` hop: this caller acting for the chain it was given. */
  delegation?: DelegationOptions;
  /** Requested agent version (`X-Agent-Version`); defaults to the version resolution selected. */
  version?: string;
  /** Time allowed for one HTTP request (the fetcher's own default otherwise). */
  timeoutMs?: number;
  /** Allow MCP stdio bindings, which start a local process the agent description names (default false). */
  allowStdio?: boolean;
  signal?: AbortSignal;
  /** Called with each warning as it happens (they are also in the result). */
  onWarning?: (warning: InvokeWarning) => void;
  /** Called before each retry, with the wait chosen and the error that caused it. */
  onRetry?: (retry: RetryNotice) => void;
}

export interface InvokeWarning {
  /** `input.invalid`, `output.invalid`, `operation.degraded`, `agent.not-operational`, `task.cancel-failed`... */
  code: string;
  message: string;
  /** JSON pointer, for schema warnings. */
  pointer?: string;
}

export interface RetryNotice {
  /** The try that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  /** True when the wait is the agent's `Retry-After`, false for backoff. */
  fromRetryAfter: boolean;
  error: Error;
}

export interface InvokeResult {
  output: JsonValue;
  /** HTTP status of the final answer; 200 for transports without statuses (MCP, wss, local). */
  status: number;
  binding: Binding;
  /** The operation run. */
  operation: string;
  warnings: InvokeWarning[];
  /** The task id: the one sent, the one a deferred answer gave, or the agent's `X-Task-ID`. */
  taskId?: string;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** Tries made (more than 1 after retries). */
  attempts: number;
}

/**
 * One event of a streamed invocation: an SSE event, an NDJSON line, or a WebSocket message.
 * `event` is the SSE event name (`message` when unnamed), `message` for NDJSON lines, and `chunk` or `result`
 * for WebSocket messages and for transports that answer once (`result`).
 */
export interface InvokeEvent {
  event: string;
  /** The data, parsed as JSON when it is JSON (SSE data that is not JSON stays a string). */
  data: JsonValue;
  /** The SSE event id, when given. */
  id?: string;
}

/** The stream `invokeStream` returns; `warnings` fills as it goes, and `binding` is known once it starts. */
export interface InvokeStream extends AsyncIterable<InvokeEvent> {
  readonly warnings: InvokeWarning[];
}
