/**
 * A2A's JSON-RPC errors, and the host's problems (RFC 9457) as them. Every error carries a problem in its `data`
 * (dialect.ts adds A2A v1.0's `google.rpc.ErrorInfo` beside it), so an A2A client sees the same pointers, codes and
 * details an HTTP caller would. The JSON-RPC code says the kind:
 *
 * - the runtime's invalid input (400/422) and a message the host cannot map onto an operation: −32602;
 * - A2A's own errors: task not found −32001, not cancelable −32002, push notifications −32003, unsupported
 *   operation −32004, content type −32005, extended card −32007, version −32009;
 * - a failure of the operation or the host (5xx): −32603;
 * - any other refusal (401, 403, 409, 428, 429, 503…): −32000, the implementation-defined server error JSON-RPC
 *   2.0 reserves, which A2A leaves unassigned.
 *
 * Refusals that HTTP itself has a status for (credentials, rate limits, overload, body size) are also answered with
 * that HTTP status and the runtime's headers (`WWW-Authenticate`, `Retry-After`), as the host's other routes do.
 */

import type { Problem } from '../../errors.js';
import { problem } from '../../errors.js';

export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  refused: -32000,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  extendedCardNotConfigured: -32007,
  versionNotSupported: -32009,
} as const;

/** A2A v1.0 ErrorInfo reasons of the codes that have one. */
const REASONS: Readonly<Record<number, string>> = {
  [JSON_RPC.invalidParams]: 'INVALID_PARAMS',
  [JSON_RPC.taskNotFound]: 'TASK_NOT_FOUND',
  [JSON_RPC.taskNotCancelable]: 'TASK_NOT_CANCELABLE',
  [JSON_RPC.pushNotificationNotSupported]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [JSON_RPC.unsupportedOperation]: 'UNSUPPORTED_OPERATION',
  [JSON_RPC.contentTypeNotSupported]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [JSON_RPC.extendedCardNotConfigured]: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  [JSON_RPC.versionNotSupported]: 'VERSION_NOT_SUPPORTED',
};

/** HTTP statuses a JSON-RPC error is also answered with. */
const HTTP_STATUSES: ReadonlySet<number> = new Set([401, 403, 413, 429, 503]);

export interface A2aError {
  code: number;
  message: string;
  problem: Problem;
  /** The HTTP status of the answer (200 unless HTTP has a status of its own for the refusal). */
  httpStatus: number;
  headers?: Headers;
}

export function reasonOf(code: number): string | undefined {
  return REASONS[code];
}

/** A problem the runtime (or the task routes) answered, as an A2A error. */
export function problemError(details: Problem, headers?: Headers): A2aError {
  const code =
    details.status === 400 || details.status === 422
      ? JSON_RPC.invalidParams
      : details.status >= 500
        ? JSON_RPC.internalError
        : JSON_RPC.refused;
  const error: A2aError = {
    code,
    message: details.detail ?? details.title,
    problem: details,
    httpStatus: HTTP_STATUSES.has(details.status) ? details.status : 200,
  };
  if (headers !== undefined) error.headers = headers;
  return error;
}

/** An error of A2A's own (or of JSON-RPC's), with a problem of the given status saying the same. */
export function a2aError(code: number, status: number, problemCode: string, detail: string): A2aError {
  return {
    code,
    message: detail,
    problem: problem({ status, code: problemCode, detail }),
    httpStatus: status === 413 ? 413 : 200,
  };
}
