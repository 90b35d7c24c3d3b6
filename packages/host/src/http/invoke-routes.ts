/**
 * The invocation routes. `POST /agents/{id}/invoke` and `POST /invoke` take the WoA envelope
 * `{agent, operation, input}` (WoA §5; `/invoke` is what unix and local socket clients call, so `agent` is
 * required there); `/agents/{id}/operations/{name}` takes the raw input (or, for safe operations, a `GET` with the
 * input as query parameters). Each turns the request into a `CallRequest` for the runtime and renders the outcome.
 */
import { type JsonObject, parseJsonText } from '@agentry/core';
import { problem, problems } from '../errors.js';
import { CONFIRMATION_HEADER } from '../policies/confirmation.js';
import { IDEMPOTENCY_HEADER } from '../policies/idempotency.js';
import { type Runtime, SESSION_HEADER, TASK_HEADER } from '../runtime/runtime.js';
import type { CallTransport } from '../runtime/types.js';
import { CALLBACK_HEADER } from '../tasks/callbacks.js';
import { negotiate } from './accept.js';
import { isJsonMediaType, mediaTypeOf, readBodyText } from './body.js';
import { type AnswerType, INVOCATION_TYPES, JSON_TYPE, outcomeResponse } from './outcome-response.js';
import { problemResponse } from './problem-response.js';
import { inputFromQuery } from './query-input.js';

export interface InvocationSettings {
  runtime: Runtime;
  baseUrl: string;
  bodyLimit: number;
}

export interface CallerInfo {
  clientAddress?: string;
}

/** Envelope members that carry what HTTP callers send as headers (WebSocket and socket clients use them). */
const ENVELOPE_HEADERS: ReadonlyArray<[string, string]> = [
  ['sessionId', SESSION_HEADER],
  ['taskId', TASK_HEADER],
  ['idempotencyKey', IDEMPOTENCY_HEADER],
  ['callbackUrl', CALLBACK_HEADER],
  ['version', 'X-Agent-Version'],
  ['delegationChain', 'X-Delegation-Chain'],
];

export async function envelopeRoute(
  request: Request,
  pathAgentId: string | undefined,
  settings: InvocationSettings,
  caller: CallerInfo,
): Promise<Response> {
  if (pathAgentId !== undefined && settings.runtime.agent(pathAgentId) === undefined) {
    return problemResponse(problems.agentNotFound(pathAgentId, agentIds(settings.runtime)));
  }
  const answerType = answerTypeFor(request);
  if (answerType === undefined) return notAcceptable();
  const type = mediaTypeOf(request.headers.get('content-type'));
  if (type !== '' && !isJsonMediaType(type)) return unsupportedMediaType(type, ['application/json']);
  const body = await readBodyText(request, settings.bodyLimit);
  if (!body.ok) return problemResponse(body.problem);
  const parsed = parseJsonText(body.text);
  if (!parsed.ok) return problemResponse(problems.badRequest('invalid_json', parsed.issue.message, ''));
  const envelope = parsed.value;
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    return problemResponse(
      problems.badRequest(
        'invalid_envelope',
        'The body must be an invocation envelope: {"agent", "operation", "input"}.',
        '',
      ),
    );
  }
  const named = envelope['agent'];
  if (named !== undefined && typeof named !== 'string') {
    return problemResponse(problems.badRequest('invalid_envelope', '"agent" must be a string.', '/agent'));
  }
  if (pathAgentId !== undefined && named !== undefined && named !== pathAgentId) {
    return problemResponse(
      problems.badRequest(
        'agent_mismatch',
        `The envelope names agent "${named}", but this URL invokes agent "${pathAgentId}" (WoA §5).`,
        '/agent',
      ),
    );
  }
  const agentId = pathAgentId ?? named;
  if (agentId === undefined) {
    return problemResponse(
      problems.badRequest('invalid_envelope', 'The envelope must name the "agent" to invoke.', '/agent'),
    );
  }
  const entry = settings.runtime.agent(agentId);
  if (entry === undefined)
    return problemResponse(problems.agentNotFound(agentId, agentIds(settings.runtime)));
  const operationField = envelope['operation'];
  if (operationField !== undefined && typeof operationField !== 'string') {
    return problemResponse(
      problems.badRequest('invalid_envelope', '"operation" must be a string.', '/operation'),
    );
  }
  const operation = operationField ?? impliedOperation([...entry.definition.operations.keys()]);
  const headers = headersWithEnvelope(request.headers, envelope);
  return callAndAnswer(request, settings, caller, answerType, {
    agentId,
    operation,
    input: envelope['input'],
    headers,
    transport: 'envelope',
  });
}

export async function operationRoute(
  request: Request,
  agentId: string,
  operation: string,
  settings: InvocationSettings,
  caller: CallerInfo,
): Promise<Response> {
  const entry = settings.runtime.agent(agentId);
  if (entry === undefined)
    return problemResponse(problems.agentNotFound(agentId, agentIds(settings.runtime)));
  const op = entry.definition.operations.get(operation);
  if (op === undefined) {
    return problemResponse(
      problems.operationNotFound(agentId, operation, [...entry.definition.operations.keys()]),
    );
  }
  const safe = op.spec.safe === true;
  const allow = safe ? 'GET, POST' : 'POST';
  if (request.method !== 'POST' && !(safe && request.method === 'GET')) return methodNotAllowed(allow);
  const answerType = answerTypeFor(request);
  if (answerType === undefined) return notAcceptable();
  let input: unknown;
  if (request.method === 'GET') {
    input = inputFromQuery(new URL(request.url).searchParams, op.spec.input);
  } else {
    const type = mediaTypeOf(request.headers.get('content-type'));
    const text = type === 'text/plain';
    if (type !== '' && !text && !isJsonMediaType(type)) {
      return unsupportedMediaType(type, ['application/json', 'text/plain']);
    }
    const body = await readBodyText(request, settings.bodyLimit);
    if (!body.ok) return problemResponse(body.problem);
    if (text) input = body.text;
    else if (body.text.trim() !== '') {
      const parsed = parseJsonText(body.text);
      if (!parsed.ok) return problemResponse(problems.badRequest('invalid_json', parsed.issue.message, ''));
      input = parsed.value;
    }
  }
  return callAndAnswer(request, settings, caller, answerType, {
    agentId,
    operation,
    input,
    headers: request.headers,
    transport: 'operation',
  });
}

async function callAndAnswer(
  request: Request,
  settings: InvocationSettings,
  caller: CallerInfo,
  answerType: AnswerType,
  call: { agentId: string; operation: string; input: unknown; headers: Headers; transport: CallTransport },
): Promise<Response> {
  const outcome = await settings.runtime.call({
    ...call,
    stream: answerType !== JSON_TYPE,
    signal: request.signal,
    ...(caller.clientAddress === undefined ? {} : { clientAddress: caller.clientAddress }),
  });
  return outcomeResponse(outcome, answerType, settings.baseUrl);
}

/** WoA §5: no operation means `default`; an agent with one operation and no `default` means that one. */
function impliedOperation(names: readonly string[]): string {
  if (names.includes('default') || names.length !== 1) return 'default';
  return names[0]!;
}

function headersWithEnvelope(given: Headers, envelope: JsonObject): Headers {
  const headers = new Headers(given);
  for (const [member, header] of ENVELOPE_HEADERS) {
    const value = envelope[member];
    if (typeof value === 'string' && value !== '' && !headers.has(header)) headers.set(header, value);
  }
  if (envelope['confirm'] === true && !headers.has(CONFIRMATION_HEADER))
    headers.set(CONFIRMATION_HEADER, 'true');
  return headers;
}

function answerTypeFor(request: Request): AnswerType | undefined {
  return negotiate(request.headers.get('accept'), INVOCATION_TYPES) as AnswerType | undefined;
}

function agentIds(runtime: Runtime): string[] {
  return runtime.agents().map((hosted) => hosted.agent.id);
}

function notAcceptable(): Response {
  return problemResponse(
    problem({
      status: 406,
      code: 'not_acceptable',
      title: 'Not acceptable',
      detail: `Invocations answer ${INVOCATION_TYPES.join(', ')} (errors as application/problem+json); the Accept header allows none of them.`,
      supported: [...INVOCATION_TYPES],
    }),
  );
}

function unsupportedMediaType(type: string, supported: string[]): Response {
  return problemResponse(
    problem({
      status: 415,
      code: 'unsupported_media_type',
      title: 'Unsupported media type',
      detail: `The body is ${type}; this endpoint reads ${supported.join(' or ')}.`,
      supported,
    }),
    { 'accept-post': supported.join(', ') },
  );
}

export function methodNotAllowed(allow: string): Response {
  return problemResponse(
    problem({
      status: 405,
      code: 'method_not_allowed',
      title: 'Method not allowed',
      detail: `This resource answers ${allow}.`,
    }),
    { allow },
  );
}
