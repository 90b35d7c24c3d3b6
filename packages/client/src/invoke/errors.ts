/**
 * The one error family of invocation. Every failure of `invoke` and `invokeStream` is an `AgentError` (or the
 * caller's own abort reason), whatever the transport said: a problem+json body, an AIDIP `{error: {code, message}}`,
 * a JSON-RPC error, a plain-text body, a refused or failed connection. Callers branch on the subclass (or `status`
 * and `code`) and show `message`, which says what happened and, where something can be done, what to do.
 */
import { AgentryError, type AgentryErrorCode, type JsonObject, type JsonValue } from '@agentry/core';

/** One place where an input or output failed its schema. */
export interface SchemaFailure {
  /** JSON pointer into the instance (`""` for the whole value). */
  pointer: string;
  message: string;
  /** The JSON Schema keyword that failed, when known. */
  keyword?: string;
}

export interface AgentErrorDetails {
  /** HTTP status (or the status the transport's error object carries). */
  status?: number;
  /** Machine-readable code: an AIDIP/AWP error code, a problem's `code`, a JSON-RPC error code as text. */
  code?: string;
  /** RFC 9457 members. */
  title?: string;
  detail?: string;
  type?: string;
  instance?: string;
  /** JSON pointer of the offending input, where the error names one. */
  pointer?: string;
  /** The AWP surface's machine-actionable recovery instruction for `code` (`errors[code].recovery`). */
  recovery?: string;
  /** How long the agent asked the caller to wait before trying again (from `Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  /** The agent and operation being called, and the URL or endpoint, for messages and logs. */
  agent?: string;
  operation?: string;
  endpoint?: string;
  /** The error body as received, when it was JSON. */
  body?: JsonValue;
  /** Each schema failure, for validation errors (and for agents that list them, RFC 9457 `errors`). */
  failures?: SchemaFailure[];
  /** What the caller changes to fix it, for front ends that name it their own way. */
  fix?: ErrorFix;
  cause?: unknown;
}

/**
 * The change that fixes an error, as data: `message` names it as the library's option (`auth: { bearer } or
 * { apiKey }`, `confirm: true`); a front end says it its own way (the CLI names `--bearer`/`--api-key`, `--yes`),
 * after `summary`, which is `message` without that sentence.
 */
export interface ErrorFix {
  option: 'auth' | 'confirm';
  summary: string;
  /** For `auth`: the kinds of credential the agent describes (none when it describes none). */
  credentials?: Array<'bearer' | 'apiKey'>;
  /** For `auth`: the agent's own instructions for getting credentials. */
  agentSays?: string;
}

export class AgentError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'AgentError';
  override name = 'AgentError';
  declare readonly status?: number;
  declare readonly title?: string;
  declare readonly detail?: string;
  declare readonly type?: string;
  declare readonly instance?: string;
  declare readonly pointer?: string;
  declare readonly recovery?: string;
  declare readonly retryAfterMs?: number;
  declare readonly agent?: string;
  declare readonly operation?: string;
  declare readonly endpoint?: string;
  declare readonly body?: JsonValue;
  declare readonly fix?: ErrorFix;
  readonly failures: SchemaFailure[];

  constructor(message: string, details: AgentErrorDetails = {}) {
    // `code` is the answer's own, absent when it carried none (the class's kind is `static code`).
    super(message, {
      code: details.code,
      ...(details.cause === undefined ? {} : { cause: details.cause }),
    });
    const { cause: _cause, failures, ...rest } = details;
    // Absent members stay absent (not `undefined`-valued, hence `declare` above) so errors serialise cleanly.
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) (this as unknown as Record<string, unknown>)[key] = value;
    }
    this.failures = failures ?? [];
  }

  /** The error as RFC 9457 problem details plus Agentry's members, for `--json` output and logs. */
  toJSON(): JsonObject {
    const out: JsonObject = { name: this.name, message: this.message };
    const keys = [
      'status',
      'code',
      'title',
      'detail',
      'type',
      'instance',
      'pointer',
      'recovery',
      'retryAfterMs',
      'agent',
      'operation',
      'endpoint',
    ] as const;
    for (const key of keys) {
      const value = this[key];
      if (value !== undefined) out[key] = value;
    }
    if (this.failures.length > 0) {
      out['failures'] = this.failures.map((failure) => ({ ...failure }));
    }
    return out;
  }
}

/** The input does not match the operation's schema (checked before sending), or the agent rejected it (400/422). */
export class InvalidInputError extends AgentError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
  override name = 'InvalidInputError';
}

/** The agent answered, but its output does not match the operation's output schema. `output` holds it anyway. */
export class InvalidOutputError extends AgentError {
  static override readonly code: AgentryErrorCode = 'InvalidOutput';
  override name = 'InvalidOutputError';
  constructor(
    message: string,
    details: AgentErrorDetails,
    readonly output: JsonValue,
  ) {
    super(message, details);
  }
}

/** No such agent: the target names none, the resolution found none, or the endpoint answered 404. */
export class AgentNotFoundError extends AgentError {
  static override readonly code: AgentryErrorCode = 'AgentNotFound';
  override name = 'AgentNotFoundError';
}

/** The agent has no operation of that name (or the call did not say which of several to run). */
export class OperationNotFoundError extends AgentError {
  static override readonly code: AgentryErrorCode = 'OperationNotFound';
  override name = 'OperationNotFoundError';
  constructor(
    message: string,
    details: AgentErrorDetails,
    /** The operations the agent does have. */
    readonly available: string[] = [],
  ) {
    super(message, details);
  }
}

/** The agent wants credentials (401). */
export class AuthRequiredError extends AgentError {
  static override readonly code: AgentryErrorCode = 'Unauthorized';
  override name = 'AuthRequiredError';
}

/** The credentials given do not allow this call (403). */
export class ForbiddenError extends AgentError {
  static override readonly code: AgentryErrorCode = 'Forbidden';
  override name = 'ForbiddenError';
}

/** Too many requests (429) after any retries allowed. `retryAfterMs` says when to try again, when the agent said. */
export class RateLimitedError extends AgentError {
  static override readonly code: AgentryErrorCode = 'RateLimited';
  override name = 'RateLimitedError';
}

/** The operation is destructive, irreversible or asks for a person's confirmation; pass `confirm: true` to run it. */
export class ConfirmationRequiredError extends AgentError {
  static override readonly code: AgentryErrorCode = 'ConfirmationRequired';
  override name = 'ConfirmationRequiredError';
  constructor(
    message: string,
    details: AgentErrorDetails,
    /** Why confirmation is needed: `sensitivity: destructive`, `sensitivity: irreversible`, `requiresConfirmation`. */
    readonly reasons: string[],
  ) {
    super(message, details);
  }
}

/** The binding uses a transport Agentry does not speak (`agent+matrix`, a private WoA transport, gRPC...). */
export class UnsupportedTransportError extends AgentError {
  static override readonly code: AgentryErrorCode = 'UnsupportedTransport';
  override name = 'UnsupportedTransportError';
  constructor(
    message: string,
    details: AgentErrorDetails,
    /** The transport's name as the description gave it. */
    readonly transport: string,
  ) {
    super(message, details);
  }
}

/** The agent has no binding Agentry could use for the operation. */
export class NoBindingError extends AgentError {
  static override readonly code: AgentryErrorCode = 'UnsupportedTransport';
  override name = 'NoBindingError';
}

/**
 * The request did not get an answer: the connection failed or timed out, the fetch policy refused the address, or
 * a local process or socket could not be reached. `reason` says which.
 */
export class TransportError extends AgentError {
  static override readonly code: AgentryErrorCode = 'AgentUnreachable';
  override name = 'TransportError';
  constructor(
    message: string,
    details: AgentErrorDetails,
    readonly reason: TransportFailure,
  ) {
    super(message, details);
  }
}

export type TransportFailure =
  | 'refused' // the fetch policy (HTTPS only, no private addresses) or the invoke options forbid it
  | 'timeout'
  | 'network' // DNS, TCP, TLS, a closed socket
  | 'too-large'
  | 'protocol'; // the other side broke the transport's rules (bad JSON where JSON is required, a closed stream)

/** The agent answered with an error that none of the classes above describes (5xx, 409, an MCP tool error...). */
export class RemoteError extends AgentError {
  static override readonly code: AgentryErrorCode = 'AgentError';
  override name = 'RemoteError';
}
