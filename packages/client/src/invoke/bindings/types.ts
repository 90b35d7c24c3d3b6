/**
 * The contract every transport implements, in the manner of node-wot's protocol bindings: one module per binding
 * kind, each turning one call (operation + input + metadata) into its wire protocol and the answer back into a
 * `RawResult`. Everything around the call (choosing the binding, validation, retries, deferred tasks, governance)
 * is shared and lives outside the bindings.
 */
import type { Agent, Binding, JsonValue, Operation } from '@agentry/core';
import type { SecureFetcher, SecureRequestInit } from '../../fetch/types.js';
import type { ErrorContext } from '../error-mapping.js';
import type { CredentialNames } from '../headers.js';
import type { AuthOptions, InvokeEvent } from '../types.js';

/** Invocation metadata for transports without HTTP headers (wss, local, stdio), sent inside their envelopes. */
export interface EnvelopeMeta {
  sessionId?: string;
  taskId?: string;
  version?: string;
  idempotencyKey?: string;
  delegationChain?: string;
  /** The caller confirmed an operation that needs it (`X-Agent-Confirmation` where there are headers). */
  confirm?: boolean;
}

export interface CallContext<B extends Binding = Binding> {
  agent: Agent;
  binding: B;
  /** The operation's name, and its description when the agent describes it. */
  operation: string;
  spec?: Operation;
  input: JsonValue;
  /** Request headers for HTTP-based transports: auth, session, task, version, delegation, idempotency, caller's. */
  headers: Record<string, string>;
  /** Query parameters every HTTP request carries (an API key the agent wants in the query). */
  query: Record<string, string>;
  /** The same metadata, for envelopes. */
  meta: EnvelopeMeta;
  /** The headers and query parameters above that carry credentials: dropped on a redirect to another origin. */
  credentials: CredentialNames;
  auth?: AuthOptions;
  fetcher: SecureFetcher;
  /** The caller wants a stream: ask for one (`Accept`, `stream: true`) and hand back `events`. */
  stream: boolean;
  timeoutMs?: number;
  allowStdio: boolean;
  signal?: AbortSignal;
  errors: ErrorContext;
}

/** Sends one HTTP request and returns the response (body unread when `responseType: 'stream'`). */
export type HttpSend = (url: string, init: SecureRequestInit) => Promise<Response>;

/** A deferred answer (202 Accepted, a task id): where and how to poll for the result. */
export interface DeferredTask {
  taskId?: string;
  /** The absolute URL to poll, when the answer or the operation's poll endpoint gave one. */
  pollUrl?: string;
  /** The agent's hint for the first poll (`Retry-After` or a poll interval in the body). */
  retryAfterMs?: number;
  /** Sends the polls (and the cancelling DELETE) the way the call was sent: same fetcher or socket. */
  send: HttpSend;
  /** Headers to send with each poll (auth, session). */
  headers: Record<string, string>;
}

export interface RawResult {
  /** HTTP status, or 200 for transports without one. */
  status: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** The output; absent when the answer is a stream (`events`) or deferred. */
  output?: JsonValue;
  /** The answer is a stream of events (SSE, NDJSON, WebSocket messages). */
  events?: AsyncIterable<InvokeEvent>;
  deferred?: DeferredTask;
}

export interface BindingTransport<B extends Binding = Binding> {
  readonly kind: B['kind'];
  /** Whether this binding of the kind is spoken (A2A: JSON-RPC and HTTP+JSON, not gRPC); every one when absent. */
  supports?(binding: B): boolean;
  call(ctx: CallContext<B>): Promise<RawResult>;
}
