/**
 * What the registry client throws. A failure answer is a `RegistryError` carrying the problem's code, status,
 * title, detail and failures (RFC 9457 with AIDIP's error object); no answer at all is a
 * `RegistryUnreachableError`; an answer the API does not give (not JSON, not the shape asked for, a success
 * status it does not use) is a `BadRegistryResponseError`. The caller's own abort reason is thrown as it is.
 */
import { AgentryError, type AgentryErrorCode, errorCodeForStatus, isObject } from '@agentry/core';

/** A problem's members as a registry writes them (RFC 9457, and AIDIP §5.2's `error` object). */
export interface RegistryProblem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  pointer?: string;
  errors?: Array<{ pointer?: string; detail?: string; message?: string; [member: string]: unknown }>;
  error?: { code?: string; message?: string };
  [member: string]: unknown;
}

export interface RegistryErrorDetails {
  /** The request's URL. */
  url: string;
  /** The answer's status; 0 when there was none. */
  status: number;
  /** The answer's body: its JSON when it parsed, else its text; undefined when empty or absent. */
  body?: unknown;
  /** The answer's body as text ('' when empty or absent). */
  text?: string;
  code?: string;
  cause?: unknown;
}

/** The registry answered with a failure status; `code` is the problem's (else the status's, see core). */
export class RegistryError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidRequest';
  override readonly name: string = 'RegistryError';
  readonly url: string;
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
  /** The problem details of the answer, when it carried them. */
  readonly problem?: RegistryProblem;
  readonly title?: string;
  readonly detail?: string;

  constructor(message: string, details: RegistryErrorDetails) {
    const problem = problemOf(details.body);
    const said = [problem?.code, problem?.error?.code].find(
      (value) => typeof value === 'string' && value !== '',
    );
    const code = details.code ?? said ?? errorCodeForStatus(details.status);
    super(message, { code, ...(details.cause === undefined ? {} : { cause: details.cause }) });
    this.url = details.url;
    this.status = details.status;
    this.body = details.body;
    this.text = details.text ?? '';
    if (problem !== undefined) {
      this.problem = problem;
      if (typeof problem.title === 'string') this.title = problem.title;
      const detail = problem.detail ?? problem.error?.message;
      if (typeof detail === 'string') this.detail = detail;
    }
  }
}

/** No answer: the registry could not be reached (refused, unresolvable, timed out, or refused by the fetch policy). */
export class RegistryUnreachableError extends RegistryError {
  static override readonly code: AgentryErrorCode = 'RegistryUnreachable';
  override readonly name: string = 'RegistryUnreachableError';

  constructor(message: string, url: string, cause: unknown) {
    super(message, { url, status: 0, code: 'RegistryUnreachable', cause });
  }
}

/** Why an answer is not one the API gives. */
export type BadResponseReason = 'status' | 'not-json' | 'shape';

/** The registry answered, but not as its API does: another success status, a body that is not JSON, another shape. */
export class BadRegistryResponseError extends RegistryError {
  static override readonly code: AgentryErrorCode = 'BadRegistryResponse';
  override readonly name: string = 'BadRegistryResponseError';

  constructor(
    message: string,
    details: Omit<RegistryErrorDetails, 'code'>,
    readonly reason: BadResponseReason,
  ) {
    super(message, { ...details, code: 'BadRegistryResponse' });
  }
}

function problemOf(body: unknown): RegistryProblem | undefined {
  return isObject(body) ? (body as RegistryProblem) : undefined;
}
