/**
 * Error responses: RFC 9457 problem details that also carry the AIDIP error object (§5.2), so a client of either
 * convention reads them: `{type, title, status, detail, code, errors?, error: {code, message}}`.
 */
import { PROBLEM_MEDIA_TYPE, problemDetails, type ValidationIssue } from '@agentry/core';

export { MAX_LISTED_FAILURES, PROBLEM_MEDIA_TYPE } from '@agentry/core';

/** AIDIP-style error codes (§5.2 names InvalidInput, Unauthorized, NotFound; the rest follow their pattern). */
export type ErrorCode =
  | 'InvalidInput'
  | 'InvalidJson'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'RateLimited'
  | 'QuotaExceeded'
  | 'Conflict'
  | 'InternalError';

export interface ProblemFailure {
  pointer: string;
  detail: string;
  code?: string;
  severity?: 'error' | 'warning';
}

export interface ProblemInit {
  status: number;
  code: ErrorCode;
  title: string;
  detail: string;
  /** Each failure with the JSON pointer of the offending input. */
  errors?: ProblemFailure[];
  /** The JSON pointer of the offending input when there is one place to point at. */
  pointer?: string;
  headers?: Record<string, string>;
  /** More members (e.g. the agents a document describes). */
  extensions?: Record<string, unknown>;
}

export function problem(init: ProblemInit): Response {
  const body = problemDetails({
    status: init.status,
    title: init.title,
    code: init.code,
    detail: init.detail,
    pointer: init.pointer,
    errors: init.errors,
    aidipError: true,
    extensions: init.extensions,
  });
  return new Response(JSON.stringify(body), {
    status: init.status,
    headers: { 'content-type': PROBLEM_MEDIA_TYPE, 'cache-control': 'no-store', ...init.headers },
  });
}

export function failuresOf(issues: readonly ValidationIssue[]): ProblemFailure[] {
  return issues.map((issue) => ({
    pointer: issue.pointer,
    detail: issue.spec === undefined ? issue.message : `${issue.message} (${issue.spec})`,
    code: issue.code,
    severity: issue.severity,
  }));
}

export function invalidInput(detail: string, pointer?: string, errors?: ProblemFailure[]): Response {
  const init: ProblemInit = { status: 400, code: 'InvalidInput', title: 'Invalid input', detail };
  if (pointer !== undefined) init.pointer = pointer;
  if (errors !== undefined) init.errors = errors;
  return problem(init);
}

export function notFound(detail: string): Response {
  return problem({ status: 404, code: 'NotFound', title: 'Not found', detail });
}
