/**
 * What a handler is told about its call. One is made per call, so its cost shows: the context of a call answered
 * now is a class whose `signal` is a getter on the prototype, made only if the handler reads it (an own accessor,
 * as an object literal would carry, costs more than the rest of the context together). The one difference a
 * handler can see: a copy made with `{ ...context }` has no `signal`; hand the context on as it is.
 */
import type { CallTransport, HandlerContext } from '../define/types.js';
import type { Principal } from '../policies/auth.js';
import type { CallSignal } from './signals.js';

/** The members every context of a call has, whether it is answered now or deferred. */
export interface ContextFields {
  agentId: string;
  operation: string;
  headers: Headers;
  transport: CallTransport;
  sessionId?: string;
  principal?: Principal;
  idempotencyKey?: string;
}

/** Optional members are left out rather than set to `undefined`, as a literal built with care would. */
export function contextFields(
  agentId: string,
  operation: string,
  headers: Headers,
  transport: CallTransport,
  optional: {
    sessionId: string | null;
    principal: Principal | undefined;
    idempotencyKey: string | undefined;
  },
): ContextFields {
  const fields: ContextFields = { agentId, operation, headers, transport };
  if (optional.sessionId !== null) fields.sessionId = optional.sessionId;
  if (optional.principal !== undefined) fields.principal = optional.principal;
  if (optional.idempotencyKey !== undefined) fields.idempotencyKey = optional.idempotencyKey;
  return fields;
}

export class CallContext implements HandlerContext {
  readonly agentId: string;
  readonly operation: string;
  readonly headers: Headers;
  readonly transport: CallTransport;
  declare readonly sessionId?: string;
  declare readonly principal?: Principal;
  declare readonly idempotencyKey?: string;
  declare readonly taskId?: string;
  readonly progress: HandlerContext['progress'] = ignoreProgress;
  readonly #calling: CallSignal;

  constructor(fields: ContextFields, taskId: string | null, calling: CallSignal) {
    this.agentId = fields.agentId;
    this.operation = fields.operation;
    this.headers = fields.headers;
    this.transport = fields.transport;
    const optional = this as {
      sessionId?: string;
      principal?: Principal;
      idempotencyKey?: string;
      taskId?: string;
    };
    if (fields.sessionId !== undefined) optional.sessionId = fields.sessionId;
    if (fields.principal !== undefined) optional.principal = fields.principal;
    if (fields.idempotencyKey !== undefined) optional.idempotencyKey = fields.idempotencyKey;
    if (taskId !== null) optional.taskId = taskId;
    this.#calling = calling;
  }

  get signal(): AbortSignal {
    return this.#calling.signal;
  }
}

/** Progress belongs to deferred tasks; a call answered now has no one to report it to. */
function ignoreProgress(): void {}
