/**
 * What a gateway call carries: the body (the WoA envelope's shape, `{operation?, input}`) and the caller's headers,
 * of which only call metadata crosses to the agent. The caller's `Authorization` is its registry token and never
 * leaves the registry; credentials meant for the agent travel in headers of their own.
 */

import type { InvokeOptions } from '@agentry/client';
import { compileSchema, type JsonObject, type JsonValue } from '@agentry/core';
import { type ProblemDetails, problemDetails } from './problem.js';

/** Sent to the agent as its `Authorization` header (e.g. `Bearer …` for the agent's own OAuth token). */
export const AGENT_AUTHORIZATION_HEADER = 'x-agent-authorization';
/** Sent where the agent's API-key scheme says (header, query or cookie), else as `X-API-Key`. */
export const AGENT_API_KEY_HEADER = 'x-agent-api-key';
/** `true` confirms a destructive, irreversible or confirmation-requiring operation (also `confirm` in the body). */
export const AGENT_CONFIRMATION_HEADER = 'x-agent-confirmation';

/** Call metadata passed through as it is (agent:// §8: sessions, tasks, versions, delegation; tracing). */
const PASSED_THROUGH = ['x-delegation-chain', 'x-request-id', 'traceparent', 'tracestate', 'accept-language'];

export const INVOKE_BODY_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Gateway invocation',
  description:
    'The WoA invocation envelope: the operation to run (optional when the agent has one) and its input.',
  type: 'object',
  required: ['input'],
  properties: {
    agent: { type: 'string', description: "The agent's id; when given it must be the one in the URL." },
    operation: { type: 'string', minLength: 1 },
    input: { description: "The operation's input, as its input schema describes." },
    confirm: { type: 'boolean', description: 'Run an operation that needs confirmation.' },
    idempotency_key: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

const validate = compileSchema(INVOKE_BODY_SCHEMA);

export interface GatewayCall {
  operation?: string;
  input: JsonValue;
  options: InvokeOptions;
}

/** The call the body and headers ask for, or a 400 problem. */
export function readGatewayCall(
  body: unknown,
  headers: Headers,
  agentIds: readonly string[],
): { call: GatewayCall; problem?: never } | { problem: ProblemDetails; call?: never } {
  const failures = validate(body);
  if (failures.length > 0) {
    const errors = failures.map((failure) => ({ pointer: failure.pointer, detail: failure.reason }));
    return {
      problem: problemDetails({
        status: 400,
        code: 'InvalidInput',
        title: 'Invalid invocation',
        detail: `Send {"operation": "<name>", "input": <the operation's input>}: ${errors.map((e) => `${e.pointer || '(body)'}: ${e.detail}`).join('; ')}.`,
        pointer: errors[0]!.pointer,
        errors,
      }),
    };
  }
  const envelope = body as {
    agent?: string;
    operation?: string;
    input: JsonValue;
    confirm?: boolean;
    idempotency_key?: string;
  };
  if (envelope.agent !== undefined && !agentIds.includes(envelope.agent)) {
    return {
      problem: problemDetails({
        status: 400,
        code: 'InvalidInput',
        detail: `The envelope names agent "${envelope.agent}", but this endpoint invokes "${agentIds[0]}".`,
        pointer: '/agent',
      }),
    };
  }

  const options: InvokeOptions = {};
  const extra: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = headers.get(name);
    if (value !== null) extra[name] = value;
  }
  const authorization = headers.get(AGENT_AUTHORIZATION_HEADER);
  if (authorization !== null) extra['authorization'] = authorization;
  if (Object.keys(extra).length > 0) options.headers = extra;

  const apiKey = headers.get(AGENT_API_KEY_HEADER);
  if (apiKey !== null) options.auth = { apiKey };
  const session = headers.get('x-session-id');
  if (session !== null) options.sessionId = session;
  const task = headers.get('x-task-id');
  if (task !== null) options.taskId = task;
  const version = headers.get('x-agent-version');
  if (version !== null) options.version = version;
  const idempotencyKey = envelope.idempotency_key ?? headers.get('idempotency-key') ?? undefined;
  if (idempotencyKey !== undefined) options.idempotencyKey = idempotencyKey;
  if (envelope.confirm === true || headers.get(AGENT_CONFIRMATION_HEADER)?.toLowerCase() === 'true') {
    options.confirm = true;
  }

  const call: GatewayCall = { input: envelope.input, options };
  if (envelope.operation !== undefined) call.operation = envelope.operation;
  return { call };
}
