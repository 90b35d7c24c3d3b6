/**
 * A failed gateway call as problem details (AIDIP §5.2, RFC 9457). What the agent itself answered with a 4xx is
 * passed on with its status, code and detail (it concerns the caller's request); the agent's 5xx and anything that
 * kept the call from getting an answer become 502 (no answer worth relaying), 503 (the agent asks to come back) or
 * 504 (no answer in time). Transport failures get fixed wording: the underlying message could tell a caller what
 * an internal name resolves to, which is exactly what the address checks keep to themselves.
 */

import {
  AgentError,
  AgentNotFoundError,
  AuthRequiredError,
  ConfirmationRequiredError,
  ForbiddenError,
  InvalidInputError,
  InvalidOutputError,
  NoBindingError,
  OperationNotFoundError,
  RateLimitedError,
  RemoteError,
  TransportError,
  UnsupportedTransportError,
} from '@agentry/client';
import type { JsonValue } from '@agentry/core';
import { type ProblemDetails, type ProblemInit, problemDetails } from './problem.js';
import { AGENT_API_KEY_HEADER, AGENT_AUTHORIZATION_HEADER } from './request.js';

/**
 * Whose failure it was, for the agent's quality record: `agent` (it failed or could not be reached), `caller` (the
 * request was wrong or not allowed), `gateway` (the registry will not or cannot make the call).
 */
export type FailureParty = 'agent' | 'caller' | 'gateway';

export interface MappedFailure {
  problem: ProblemDetails;
  headers: Record<string, string>;
  party: FailureParty;
}

interface Context {
  agentId: string;
  operation?: string;
  /** Where the input sits in the request body: `/input` in the envelope, the whole body (``) in AIDIP §5.1's form. */
  inputAt?: string;
}

export function failureOf(error: unknown, context: Context): MappedFailure {
  if (isTimeout(error)) return timeout(context);
  if (isAbort(error)) {
    return build(context, 'gateway', {
      status: 499,
      code: 'ClientClosedRequest',
      title: 'Client Closed Request',
      detail: 'The caller went away before the agent answered.',
    });
  }
  if (!(error instanceof AgentError)) {
    return build(context, 'gateway', {
      status: 500,
      code: 'InternalError',
      detail: 'The gateway failed to make the call.',
    });
  }
  const operation = error.operation ?? context.operation;
  const ctx = operation === undefined ? context : { ...context, operation };
  const said = agentSaid(error);

  if (error instanceof TransportError) {
    switch (error.reason) {
      case 'timeout':
        return timeout(ctx);
      case 'refused':
        return build(ctx, 'gateway', {
          status: 502,
          code: 'AddressRefused',
          title: 'Agent Address Refused',
          detail:
            "The registry does not call this agent: its endpoint is not a public HTTPS address (private, loopback and link-local addresses, local sockets and processes are refused unless the registry's operator allows them: agentry serve --allow-http --allow-private-network).",
        });
      case 'too-large':
        return build(ctx, 'agent', {
          status: 502,
          code: 'ResponseTooLarge',
          detail: "The agent's answer is larger than the gateway accepts.",
        });
      case 'protocol':
        return build(ctx, 'agent', {
          status: 502,
          code: 'BadAgentResponse',
          detail: "The agent's answer broke its transport's rules (not the JSON or stream it should be).",
        });
      default:
        return build(ctx, 'agent', {
          status: 502,
          code: 'AgentUnreachable',
          detail: 'The agent could not be reached (DNS, connection or TLS failure).',
        });
    }
  }
  if (error instanceof UnsupportedTransportError || error instanceof NoBindingError) {
    return build(ctx, 'gateway', { status: 501, code: 'UnsupportedTransport', detail: error.message });
  }
  if (error instanceof ConfirmationRequiredError) {
    return build(ctx, 'caller', {
      status: 428,
      code: 'ConfirmationRequired',
      title: 'Confirmation Required',
      // The client's own advice names its option (`confirm: true`); a gateway caller sends a header instead.
      detail: `${error.fix?.summary ?? error.message} Through the gateway: send X-Agent-Confirmation: true (or "confirm": true in the envelope).`,
      extra: { reasons: [...error.reasons] },
    });
  }
  if (error instanceof InvalidOutputError) {
    return build(ctx, 'agent', {
      status: 502,
      code: 'InvalidOutput',
      detail: `The agent's output does not match the operation's output schema: ${error.message}`,
      errors: error.failures.map((f) => ({ pointer: f.pointer, detail: f.message })),
    });
  }
  if (error instanceof InvalidInputError) {
    const at = context.inputAt ?? '/input';
    return build(ctx, 'caller', {
      status: said ?? 400,
      code: error.code ?? 'InvalidInput',
      detail: error.detail ?? error.message,
      ...(error.pointer === undefined ? {} : { pointer: `${at}${error.pointer}` }),
      errors: error.failures.map((f) => ({ pointer: `${at}${f.pointer}`, detail: f.message })),
      extra: { recovery: error.recovery },
    });
  }
  if (error instanceof OperationNotFoundError && said === undefined) {
    return build(ctx, 'caller', {
      status: 400,
      code: 'OperationNotFound',
      detail: error.message,
      pointer: '/operation',
      extra: { available: [...error.available] },
    });
  }
  if (error instanceof AuthRequiredError || error instanceof ForbiddenError) {
    const header = `${AGENT_AUTHORIZATION_HEADER} or ${AGENT_API_KEY_HEADER}`;
    return build(ctx, 'caller', {
      status: said ?? (error instanceof AuthRequiredError ? 401 : 403),
      code: error instanceof AuthRequiredError ? 'AgentAuthRequired' : 'AgentForbidden',
      detail: `The agent refused the call: ${error.detail ?? error.message} Credentials for the agent go in ${header}; the registry token is never passed on.`,
      extra: { recovery: error.recovery },
    });
  }
  if (error instanceof RateLimitedError) {
    const failure = build(ctx, 'caller', {
      status: 429,
      code: 'RateLimited',
      detail: `The agent is rate limiting calls: ${error.detail ?? error.message}`,
      extra: { recovery: error.recovery },
    });
    if (error.retryAfterMs !== undefined)
      failure.headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
    return failure;
  }
  if (said !== undefined && said >= 400 && said < 500) {
    // The agent's own answer to this request (404 for an unknown item, 409, 422…): relayed as it was.
    return build(ctx, error instanceof AgentNotFoundError ? 'agent' : 'caller', {
      status: said,
      code: error.code ?? (error instanceof AgentNotFoundError ? 'NotFound' : 'AgentError'),
      detail: error.detail ?? error.message,
      extra: { recovery: error.recovery },
    });
  }
  if (said === 503) {
    const failure = build(ctx, 'agent', {
      status: 503,
      code: error.code ?? 'AgentUnavailable',
      detail: `The agent is unavailable: ${error.detail ?? error.message}`,
      extra: { recovery: error.recovery },
    });
    if (error.retryAfterMs !== undefined)
      failure.headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
    return failure;
  }
  const remote = error instanceof RemoteError || said !== undefined;
  return build(ctx, 'agent', {
    status: 502,
    code: 'AgentError',
    title: 'Bad Gateway',
    detail: remote
      ? `The agent answered with an error${said === undefined ? '' : ` (${said})`}: ${error.detail ?? error.message}`
      : error.message,
    extra: { agent_status: said, agent_code: error.code, recovery: error.recovery },
  });
}

/** The HTTP status the agent answered with, when it answered at all. */
function agentSaid(error: AgentError): number | undefined {
  return typeof error.status === 'number' && error.status >= 100 && error.status <= 599
    ? error.status
    : undefined;
}

function timeout(context: Context): MappedFailure {
  return build(context, 'agent', {
    status: 504,
    code: 'Timeout',
    title: 'Gateway Timeout',
    detail: 'The agent did not answer in time.',
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

function build(context: Context, party: FailureParty, init: ProblemInit): MappedFailure {
  const extra: Record<string, JsonValue | undefined> = {
    agent: context.agentId,
    operation: context.operation,
    ...init.extra,
  };
  return { problem: problemDetails({ ...init, extra }), headers: {}, party };
}
