/**
 * What a gateway call carries: the body and the caller's headers, of which only call metadata crosses to the
 * agent. The caller's `Authorization` is its registry token and never leaves the registry; credentials meant for
 * the agent travel in headers of their own.
 *
 * The body is one of two forms (docs/registry.md, "The gateway"):
 * - the envelope `{operation?, input, confirm?, idempotency_key?, agent?}`: an object with `input` and no member
 *   outside those;
 * - AIDIP §5.1's: the operation's input itself, which may carry `operation` beside the input's own fields to name
 *   the operation (when it names one of the agent's operations it is taken out of the input, unless that
 *   operation's input schema has an `operation` property of its own).
 * `X-Agent-Body: envelope` or `input` says which, for an input that looks like an envelope; the `operation`
 * query parameter names the operation without touching the body.
 */

import type { InvokeOptions } from '@agentry/client';
import {
  type Agent,
  CONFIRMATION_HEADER,
  compileSchema,
  IDEMPOTENCY_HEADER,
  isConfirmationValue,
  isObject,
  type JsonObject,
  type JsonValue,
} from '@agentry/core';
import { type ProblemDetails, problemDetails } from './problem.js';

/** Sent to the agent as its `Authorization` header (e.g. `Bearer …` for the agent's own OAuth token). */
export const AGENT_AUTHORIZATION_HEADER = 'x-agent-authorization';
/** Sent where the agent's API-key scheme says (header, query or cookie), else as `X-API-Key`. */
export const AGENT_API_KEY_HEADER = 'x-agent-api-key';
/** `true` confirms a destructive, irreversible or confirmation-requiring operation (also `confirm` in the body). */
export const AGENT_CONFIRMATION_HEADER = CONFIRMATION_HEADER.toLowerCase();
/** `envelope` or `input`: which form the body is, when its shape alone would say otherwise. */
export const BODY_FORM_HEADER = 'x-agent-body';

/** The envelope's members: a body with `input` and none but these is an envelope unless said otherwise. */
const ENVELOPE_MEMBERS = new Set(['agent', 'operation', 'input', 'confirm', 'idempotency_key']);

/** Call metadata passed through as it is (agent:// §8: sessions, tasks, versions, delegation; tracing). */
const PASSED_THROUGH = ['x-delegation-chain', 'x-request-id', 'traceparent', 'tracestate', 'accept-language'];

/** The envelope form of the body. */
export const INVOKE_ENVELOPE_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Gateway invocation envelope',
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

/** What the gateway accepts: the envelope, or (AIDIP §5.1) the operation's input itself. */
export const INVOKE_BODY_SCHEMA: JsonObject = {
  title: 'Gateway invocation',
  description:
    "Either the envelope {operation?, input, confirm?, idempotency_key?} (an object with `input` and no other members), or AIDIP §5.1's body: the operation's input itself, optionally with `operation` beside its fields naming the operation. `X-Agent-Body: envelope|input` settles an input that looks like an envelope; the `operation` query parameter names the operation without touching the body.",
  anyOf: [INVOKE_ENVELOPE_SCHEMA, { description: "The operation's input (AIDIP §5.1)." }],
};

// Compiled on first use, not at import: the first compile creates the process's Ajv instance, about a second of CPU
// that every process importing the registry paid even when it never invokes through the gateway.
let validateEnvelope: ReturnType<typeof compileSchema> | undefined;

export interface GatewayCall {
  operation?: string;
  /** Where the input sits in the body (for error pointers): `/input` in the envelope, `` when it is the body. */
  inputAt: '' | '/input';
  input: JsonValue;
  options: InvokeOptions;
}

/** Who is called: the ids the envelope's `agent` may name, and the operations a §5.1 `operation` may name. */
export interface GatewayTarget {
  ids: readonly string[];
  agent: Agent;
  /** The `operation` query parameter. */
  operation?: string;
}

type ReadCall = { call: GatewayCall; problem?: never } | { problem: ProblemDetails; call?: never };

/** The call the body and headers ask for, or a 400 problem. */
export function readGatewayCall(body: unknown, headers: Headers, target: GatewayTarget): ReadCall {
  const form = headers.get(BODY_FORM_HEADER)?.trim().toLowerCase();
  if (form !== undefined && form !== 'envelope' && form !== 'input') {
    return {
      problem: problemDetails({
        status: 400,
        code: 'InvalidInput',
        detail: `${BODY_FORM_HEADER} is "envelope" or "input", not "${form}".`,
      }),
    };
  }
  const envelope = form === 'envelope' || (form === undefined && looksLikeEnvelope(body));
  const read = envelope ? readEnvelope(body, target.ids) : readInputBody(body as JsonValue, target);
  if (read.problem !== undefined) return read;
  if (target.operation !== undefined) read.call.operation = target.operation;
  addHeaderOptions(read.call.options, headers);
  return read;
}

function looksLikeEnvelope(body: unknown): boolean {
  if (!isObject(body) || !Object.hasOwn(body, 'input')) return false;
  return Object.keys(body).every((key) => ENVELOPE_MEMBERS.has(key));
}

/**
 * AIDIP §5.1: the body is the input. A string `operation` naming one of the agent's operations names the call's
 * operation and leaves the input, unless that operation's input schema has an `operation` property itself.
 */
function readInputBody(body: JsonValue, target: GatewayTarget): ReadCall {
  const call: GatewayCall = { input: body, inputAt: '', options: {} };
  if (target.operation !== undefined || !isObject(body)) return { call };
  const named = body['operation'];
  if (typeof named !== 'string') return { call };
  const operation = target.agent.operations.find((candidate) => candidate.name === named);
  if (operation === undefined) return { call };
  call.operation = named;
  if (!declaresOperationProperty(operation.input)) {
    const { operation: _named, ...rest } = body;
    call.input = rest;
  }
  return { call };
}

function declaresOperationProperty(schema: JsonValue | undefined): boolean {
  if (!isObject(schema)) return false;
  const properties = schema['properties'];
  return isObject(properties) && Object.hasOwn(properties, 'operation');
}

function readEnvelope(body: unknown, agentIds: readonly string[]): ReadCall {
  validateEnvelope ??= compileSchema(INVOKE_ENVELOPE_SCHEMA);
  const failures = validateEnvelope(body);
  if (failures.length > 0) {
    const errors = failures.map((failure) => ({ pointer: failure.pointer, detail: failure.reason }));
    return {
      problem: problemDetails({
        status: 400,
        code: 'InvalidInput',
        title: 'Invalid invocation',
        detail: `Send the operation's input itself, or {"operation": "<name>", "input": <the operation's input>}: ${errors.map((e) => `${e.pointer || '(body)'}: ${e.detail}`).join('; ')}.`,
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

  const call: GatewayCall = { input: envelope.input, inputAt: '/input', options: {} };
  if (envelope.operation !== undefined) call.operation = envelope.operation;
  if (envelope.idempotency_key !== undefined) call.options.idempotencyKey = envelope.idempotency_key;
  if (envelope.confirm === true) call.options.confirm = true;
  return { call };
}

/** Call metadata from the headers: the agent's credentials, sessions, tasks, versions, tracing. */
function addHeaderOptions(options: InvokeOptions, headers: Headers): void {
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
  const idempotencyKey = headers.get(IDEMPOTENCY_HEADER);
  if (options.idempotencyKey === undefined && idempotencyKey !== null)
    options.idempotencyKey = idempotencyKey;
  if (isConfirmationValue(headers.get(AGENT_CONFIRMATION_HEADER))) options.confirm = true;
}
