/**
 * The invocation routes. `POST /agents/{id}/invoke` and `POST /invoke` take the WoA envelope
 * `{agent, operation, input}` (WoA §5; `/invoke` is what unix and local socket clients call, so `agent` is
 * required there); `/agents/{id}/operations/{name}` takes the raw input (or, for safe operations, a `GET` with the
 * input as query parameters). Each turns the request into a `CallRequest` for the runtime and renders the outcome.
 */
import { type JsonObject, parseJsonText } from '@agentry/core';
import type { CallTransport } from '../define/types.js';
import { problem, problems } from '../errors.js';
import { negotiate } from '../http/accept.js';
import type { Answer } from '../http/answer.js';
import { isJsonMediaType, mediaTypeOf } from '../http/body.js';
import type { CallerInfo, HostRequest } from '../http/host-request.js';
import { memoized } from '../http/memo.js';
import { problemAnswer } from '../http/problem-response.js';
import { CONFIRMATION_HEADER } from '../policies/confirmation.js';
import { IDEMPOTENCY_HEADER } from '../policies/idempotency.js';
import { type Runtime, SESSION_HEADER, TASK_HEADER } from '../runtime/runtime.js';
import { CALLBACK_HEADER } from '../runtime/tasks/callbacks.js';
import type { CallRequest } from '../runtime/types.js';
import { type AnswerType, INVOCATION_TYPES, JSON_TYPE, outcomeAnswer } from './outcome-response.js';
import { inputFromQuery } from './query-input.js';

export interface InvocationSettings {
  runtime: Runtime;
  baseUrl: string;
  bodyLimit: number;
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
  request: HostRequest,
  pathAgentId: string | undefined,
  settings: InvocationSettings,
  caller: CallerInfo,
): Promise<Answer> {
  if (pathAgentId !== undefined && settings.runtime.agent(pathAgentId) === undefined) {
    return problemAnswer(problems.agentNotFound(pathAgentId, agentIds(settings.runtime)));
  }
  const answerType = answerTypeFor(request);
  if (answerType === undefined) return notAcceptable();
  const { type, json } = bodyTypeOf(request.headers.get('content-type'));
  if (type !== '' && !json) return unsupportedMediaType(type, ['application/json']);
  const body = await request.text(settings.bodyLimit);
  if (!body.ok) return problemAnswer(body.problem);
  const parsed = parseJsonText(body.text);
  if (!parsed.ok) return problemAnswer(problems.badRequest('InvalidJson', parsed.issue.message, ''));
  const envelope = parsed.value;
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    return problemAnswer(
      problems.badRequest(
        'InvalidEnvelope',
        'The body must be an invocation envelope: {"agent", "operation", "input"}.',
        '',
      ),
    );
  }
  const named = envelope['agent'];
  if (named !== undefined && typeof named !== 'string') {
    return problemAnswer(problems.badRequest('InvalidEnvelope', '"agent" must be a string.', '/agent'));
  }
  if (pathAgentId !== undefined && named !== undefined && named !== pathAgentId) {
    return problemAnswer(
      problems.badRequest(
        'AgentMismatch',
        `The envelope names agent "${named}", but this URL invokes agent "${pathAgentId}" (WoA §5).`,
        '/agent',
      ),
    );
  }
  const agentId = pathAgentId ?? named;
  if (agentId === undefined) {
    return problemAnswer(
      problems.badRequest('InvalidEnvelope', 'The envelope must name the "agent" to invoke.', '/agent'),
    );
  }
  const entry = settings.runtime.agent(agentId);
  if (entry === undefined) return problemAnswer(problems.agentNotFound(agentId, agentIds(settings.runtime)));
  const operationField = envelope['operation'];
  if (operationField !== undefined && typeof operationField !== 'string') {
    return problemAnswer(
      problems.badRequest('InvalidEnvelope', '"operation" must be a string.', '/operation'),
    );
  }
  const operation = operationField ?? impliedOperation([...entry.definition.operations.keys()]);
  const headers = headersWithEnvelope(request.ownHeaders(), envelope);
  return callAndAnswer(request, settings, caller, answerType, {
    agentId,
    operation,
    input: envelope['input'],
    headers,
    transport: 'envelope',
  });
}

export async function operationRoute(
  request: HostRequest,
  agentId: string,
  operation: string,
  settings: InvocationSettings,
  caller: CallerInfo,
): Promise<Answer> {
  const entry = settings.runtime.agent(agentId);
  if (entry === undefined) return problemAnswer(problems.agentNotFound(agentId, agentIds(settings.runtime)));
  const op = entry.definition.operations.get(operation);
  if (op === undefined) {
    return problemAnswer(
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
    input = inputFromQuery(request.url.searchParams, op.spec.input);
  } else {
    const { type, json } = bodyTypeOf(request.headers.get('content-type'));
    const text = type === 'text/plain';
    if (type !== '' && !text && !json) {
      return unsupportedMediaType(type, ['application/json', 'text/plain']);
    }
    const body = await request.text(settings.bodyLimit);
    if (!body.ok) return problemAnswer(body.problem);
    if (text) input = body.text;
    else if (body.text.trim() !== '') {
      const parsed = parseJsonText(body.text);
      if (!parsed.ok) return problemAnswer(problems.badRequest('InvalidJson', parsed.issue.message, ''));
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
  request: HostRequest,
  settings: InvocationSettings,
  caller: CallerInfo,
  answerType: AnswerType,
  call: { agentId: string; operation: string; input: unknown; headers: Headers; transport: CallTransport },
): Promise<Answer> {
  const outcome = await settings.runtime.call(
    new RoutedCall(call, answerType !== JSON_TYPE, request, caller),
  );
  return outcomeAnswer(outcome, answerType, settings.baseUrl);
}

/**
 * A call as the invocation routes hand it to the runtime. The caller's signal and address are read through when
 * the runtime asks for them: the Node adapter makes the signal on demand, and most handlers never read it.
 */
class RoutedCall implements CallRequest {
  readonly agentId: string;
  readonly operation: string;
  readonly input: unknown;
  readonly headers: Headers;
  readonly transport: CallTransport;
  readonly #request: HostRequest;
  readonly #caller: CallerInfo;

  constructor(
    call: { agentId: string; operation: string; input: unknown; headers: Headers; transport: CallTransport },
    readonly stream: boolean,
    request: HostRequest,
    caller: CallerInfo,
  ) {
    this.agentId = call.agentId;
    this.operation = call.operation;
    this.input = call.input;
    this.headers = call.headers;
    this.transport = call.transport;
    this.#request = request;
    this.#caller = caller;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get clientAddress(): string | undefined {
    return this.#caller.clientAddress;
  }
}

/** WoA §5: no operation means `default`; an agent with one operation and no `default` means that one. */
function impliedOperation(names: readonly string[]): string {
  if (names.includes('default') || names.length !== 1) return 'default';
  return names[0]!;
}

/** The request's headers, plus what the envelope carries instead of headers (where the request has none). */
function headersWithEnvelope(headers: Headers, envelope: JsonObject): Headers {
  for (const [member, header] of ENVELOPE_HEADERS) {
    const value = envelope[member];
    if (typeof value === 'string' && value !== '' && !headers.has(header)) headers.set(header, value);
  }
  if (envelope['confirm'] === true && !headers.has(CONFIRMATION_HEADER))
    headers.set(CONFIRMATION_HEADER, 'true');
  return headers;
}

const answerTypeOf = memoized((accept) => negotiate(accept, INVOCATION_TYPES) as AnswerType | undefined);

function answerTypeFor(request: HostRequest): AnswerType | undefined {
  return answerTypeOf(request.headers.get('accept'));
}

/** The body's media type (`''` when none is declared), and whether it is JSON. */
const bodyTypeOf = memoized((header) => {
  const type = mediaTypeOf(header);
  return { type, json: isJsonMediaType(type) };
});

function agentIds(runtime: Runtime): string[] {
  return runtime.agents().map((hosted) => hosted.agent.id);
}

function notAcceptable(): Answer {
  return problemAnswer(
    problem({
      status: 406,
      code: 'NotAcceptable',
      title: 'Not acceptable',
      detail: `Invocations answer ${INVOCATION_TYPES.join(', ')} (errors as application/problem+json); the Accept header allows none of them.`,
      supported: [...INVOCATION_TYPES],
    }),
  );
}

function unsupportedMediaType(type: string, supported: string[]): Answer {
  return problemAnswer(
    problem({
      status: 415,
      code: 'UnsupportedMediaType',
      title: 'Unsupported media type',
      detail: `The body is ${type}; this endpoint reads ${supported.join(' or ')}.`,
      supported,
    }),
    { 'accept-post': supported.join(', ') },
  );
}

export function methodNotAllowed(allow: string): Answer {
  return problemAnswer(
    problem({
      status: 405,
      code: 'MethodNotAllowed',
      title: 'Method not allowed',
      detail: `This resource answers ${allow}.`,
    }),
    { allow },
  );
}
