/**
 * Turns what went wrong into the right `AgentError`: the status and code an agent answered with (read by
 * error-body.ts), and failures of the connection itself (the secure fetcher's errors, socket errors). Messages say
 * who answered what and, where a caller can do something about it, what.
 */
import { STATUS_CODES } from 'node:http';
import { type Agent, AgentryError, errorCodeKey, trimTrailingSlash } from '@agentry/core';
import {
  FetchError,
  FetchRefusedError,
  FetchTimeoutError,
  NetworkError,
  ResponseTooLargeError,
} from '../fetch/errors.js';
import type { ErrorBody } from './error-body.js';
import {
  AgentError,
  type AgentErrorDetails,
  AgentNotFoundError,
  AuthRequiredError,
  ConfirmationRequiredError,
  type ErrorFix,
  ForbiddenError,
  InvalidInputError,
  OperationNotFoundError,
  RateLimitedError,
  RemoteError,
  TransportError,
  type TransportFailure,
} from './errors.js';

export interface ErrorContext {
  agent?: Agent;
  operation?: string;
  endpoint?: string;
}

type ErrorClass = 'input' | 'auth' | 'forbidden' | 'agent' | 'operation' | 'rate' | 'confirmation' | 'remote';

/** Codes agents use (AIDIP, agent:// §9 categories, AWP examples), compared without case, `_`, `-` or `.`. */
const CLASS_BY_CODE: Readonly<Record<string, ErrorClass>> = {
  invalidinput: 'input',
  badrequest: 'input',
  validationerror: 'input',
  invalidparams: 'input',
  unauthorized: 'auth',
  unauthenticated: 'auth',
  authrequired: 'auth',
  authexpired: 'auth',
  tokenexpired: 'auth',
  forbidden: 'forbidden',
  permissiondenied: 'forbidden',
  agentnotfound: 'agent',
  notfound: 'agent',
  capabilitynotfound: 'operation',
  operationnotfound: 'operation',
  toolnotfound: 'operation',
  methodnotfound: 'operation',
  ratelimited: 'rate',
  ratelimitexceeded: 'rate',
  toomanyrequests: 'rate',
};

/** JSON-RPC 2.0 reserved codes, and A2A's ContentTypeNotSupported / UnsupportedOperation. */
const CLASS_BY_JSON_RPC: Readonly<Record<number, ErrorClass>> = {
  [-32602]: 'input',
  [-32601]: 'operation',
  [-32005]: 'input',
  [-32004]: 'operation',
};

const CLASS_BY_STATUS: Readonly<Record<number, ErrorClass>> = {
  400: 'input',
  422: 'input',
  401: 'auth',
  403: 'forbidden',
  404: 'agent',
  // 428 Precondition Required: Agentry hosts answer it when a destructive operation arrives unconfirmed.
  428: 'confirmation',
  429: 'rate',
};

/** The error an agent's answer describes. `status` is the transport's (HTTP) status, when there is one. */
export function agentErrorFrom(
  body: ErrorBody,
  ctx: ErrorContext,
  transport: { status?: number; retryAfterMs?: number } = {},
): AgentError {
  const status = transport.status ?? body.status;
  const details: AgentErrorDetails = { ...contextDetails(ctx) };
  if (status !== undefined) details.status = status;
  for (const key of ['code', 'title', 'detail', 'type', 'instance', 'pointer', 'failures', 'body'] as const) {
    if (body[key] !== undefined) (details as Record<string, unknown>)[key] = body[key];
  }
  const recovery = recoveryFor(ctx.agent, body.code) ?? body.recovery;
  if (recovery !== undefined) details.recovery = recovery;
  if (transport.retryAfterMs !== undefined) details.retryAfterMs = transport.retryAfterMs;

  const kind = classify(body, status);
  const message = describe(kind, details, ctx);
  const fix = fixFor(kind, details, ctx);
  if (fix !== undefined) details.fix = fix;
  switch (kind) {
    case 'input':
      return new InvalidInputError(message, details);
    case 'auth':
      return new AuthRequiredError(message, details);
    case 'forbidden':
      return new ForbiddenError(message, details);
    case 'agent':
      return new AgentNotFoundError(message, details);
    case 'operation':
      return new OperationNotFoundError(
        message,
        details,
        ctx.agent?.operations.map((op) => op.name),
      );
    case 'rate':
      return new RateLimitedError(message, details);
    case 'confirmation':
      return new ConfirmationRequiredError(message, details, confirmationReasonsOf(body));
    default:
      return new RemoteError(message, details);
  }
}

/** The reasons a 428 problem gives (`reasons: [...]`, as Agentry hosts send), else none. */
function confirmationReasonsOf(body: ErrorBody): string[] {
  const reasons = (body.body as { reasons?: unknown } | undefined)?.reasons;
  return Array.isArray(reasons)
    ? reasons.filter((reason): reason is string => typeof reason === 'string')
    : [];
}

/** The AWP surface's recovery instruction for an error code (`errors[code].recovery`). */
export function recoveryFor(agent: Agent | undefined, code: string | undefined): string | undefined {
  const errors = agent?.surface?.errors;
  if (errors === undefined || code === undefined || !Object.hasOwn(errors, code)) return undefined;
  return errors[code]?.recovery;
}

/** A failure to get an answer at all. Aborts are not errors of ours: the caller's abort reason is rethrown. */
export function transportErrorFrom(error: unknown, ctx: ErrorContext, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof AgentError) return error;
  const details: AgentErrorDetails = { ...contextDetails(ctx), cause: error };
  const where = ctx.endpoint ?? 'the agent';
  let reason: TransportFailure = 'network';
  let what: string;
  if (error instanceof FetchRefusedError) {
    reason = 'refused';
    what = `Refused to call ${where}: ${error.message}`;
    if (error.allowedBy !== undefined && !error.message.includes(error.allowedBy)) {
      what += ` (${error.allowedBy} allows it)`;
    }
  } else if (error instanceof FetchTimeoutError) {
    reason = 'timeout';
    what = `${where} did not answer in time: ${error.message}`;
  } else if (error instanceof ResponseTooLargeError) {
    reason = 'too-large';
    what = `${where} sent more than ${error.limitBytes} bytes: ${error.message}`;
  } else if (error instanceof NetworkError || error instanceof FetchError) {
    what = `Could not reach ${where}: ${error.message}`;
  } else if (isTimeout(error)) {
    reason = 'timeout';
    what = `${where} did not answer in time`;
  } else {
    what = `Could not reach ${where}: ${errorText(error)}`;
  }
  return new TransportError(`${what}.`.replace(/\.\.$/, '.'), details, reason);
}

/** A transport broke its own rules (bad JSON where JSON is required, a stream that ended without a result). */
export function protocolError(message: string, ctx: ErrorContext, cause?: unknown): TransportError {
  const details: AgentErrorDetails = { ...contextDetails(ctx) };
  if (cause !== undefined) details.cause = cause;
  return new TransportError(message, details, 'protocol');
}

export function contextDetails(ctx: ErrorContext): AgentErrorDetails {
  const details: AgentErrorDetails = {};
  if (ctx.agent !== undefined) details.agent = ctx.agent.id;
  if (ctx.operation !== undefined) details.operation = ctx.operation;
  if (ctx.endpoint !== undefined) details.endpoint = ctx.endpoint;
  return details;
}

function classify(body: ErrorBody, status: number | undefined): ErrorClass {
  // A named code says more than a JSON-RPC number: an MCP server answers an unknown tool with −32602 (invalid
  // params) but can name it `operation_not_found` in the error's data. A problem's type URI often ends in the
  // category too (agent:// §9's example: `.../capability-not-found`).
  for (const word of [body.code, lastSegment(body.type)]) {
    if (word === undefined) continue;
    const key = errorCodeKey(word);
    if (Object.hasOwn(CLASS_BY_CODE, key)) return CLASS_BY_CODE[key]!;
  }
  if (body.jsonRpcCode !== undefined && Object.hasOwn(CLASS_BY_JSON_RPC, body.jsonRpcCode)) {
    return CLASS_BY_JSON_RPC[body.jsonRpcCode]!;
  }
  if (status !== undefined && Object.hasOwn(CLASS_BY_STATUS, status)) return CLASS_BY_STATUS[status]!;
  return 'remote';
}

function lastSegment(uri: string | undefined): string | undefined {
  if (uri === undefined) return undefined;
  const segment = trimTrailingSlash(uri.replace(/[#?].*$/, ''))
    .split('/')
    .at(-1);
  return segment === undefined || segment === '' ? undefined : segment;
}

function describe(kind: ErrorClass, details: AgentErrorDetails, ctx: ErrorContext, advise = true): string {
  const who =
    ctx.agent !== undefined
      ? `Agent "${ctx.agent.id}"${ctx.operation === undefined ? '' : ` (operation "${ctx.operation}")`}`
      : (ctx.endpoint ?? 'The agent');
  const status =
    details.status === undefined
      ? ''
      : ` ${details.status}${STATUS_CODES[details.status] ? ` ${STATUS_CODES[details.status]}` : ''}`;
  const code = details.code === undefined ? '' : ` [${details.code}]`;
  const said = details.detail ?? details.title ?? 'no details given';
  let message = `${who} answered${status}${code}: ${said}`;
  if (!/[.!?]$/.test(message)) message += '.';
  if (details.pointer !== undefined && details.pointer !== '') message += ` At input ${details.pointer}.`;
  if (details.recovery !== undefined) message += ` Recovery: ${details.recovery}`;
  else if (advise) message += advice(kind, details, ctx);
  return message;
}

/** The fix as data, for the kinds whose advice names an option; `summary` is the message before the advice. */
function fixFor(kind: ErrorClass, details: AgentErrorDetails, ctx: ErrorContext): ErrorFix | undefined {
  if (kind !== 'auth' && kind !== 'confirmation') return undefined;
  const summary = describe(kind, details, ctx, false);
  if (kind === 'confirmation') return { option: 'confirm', summary };
  const fix: ErrorFix = { option: 'auth', summary, credentials: credentialKinds(ctx) };
  const instructions = ctx.agent?.auth?.instructions;
  if (instructions !== undefined) fix.agentSays = instructions;
  return fix;
}

/** The kinds of credential the agent's auth describes: a bearer token, an API key. */
function credentialKinds(ctx: ErrorContext): Array<'bearer' | 'apiKey'> {
  const kinds = new Set<'bearer' | 'apiKey'>();
  for (const scheme of ctx.agent?.auth?.schemes ?? []) {
    if (scheme.type === 'apiKey') kinds.add('apiKey');
    else if (scheme.type === 'bearer' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect')
      kinds.add('bearer');
  }
  return [...kinds];
}

function advice(kind: ErrorClass, details: AgentErrorDetails, ctx: ErrorContext): string {
  switch (kind) {
    case 'auth': {
      const instructions = ctx.agent?.auth?.instructions;
      return ` Pass credentials with the auth option ({ bearer } or { apiKey }).${instructions ? ` The agent says: ${instructions}` : ''}`;
    }
    case 'forbidden':
      return ' The credentials given do not allow this call.';
    case 'rate':
      return details.retryAfterMs === undefined
        ? ' Wait before trying again.'
        : ` Try again in ${Math.ceil(details.retryAfterMs / 1000)} s.`;
    case 'operation': {
      const names = ctx.agent?.operations.map((op) => op.name) ?? [];
      return names.length > 0 ? ` The agent describes: ${names.join(', ')}.` : '';
    }
    default:
      return '';
  }
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'TimeoutError' || (error as { code?: unknown }).code === 'ETIMEDOUT')
  );
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A system error's code (ECONNRESET) helps; an Agentry error's says what its message already does.
  const code = error instanceof AgentryError ? undefined : (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${typeof code === 'string' && !error.message.includes(code) ? ` [${code}]` : ''}${cause}`;
}
