/**
 * Problem details (RFC 9457) as the host answers them, and `HostError`, which handlers throw to answer a 4xx (or a
 * deliberate 5xx) on purpose. Any other error a handler throws becomes a 500 whose body says nothing about it.
 */
import { STATUS_CODES } from 'node:http';
import { AgentryError, type AgentryErrorCode, errorCodeForStatus, problemDetails } from '@agentry/core';

export { MAX_LISTED_FAILURES, PROBLEM_TYPE_BASE } from '@agentry/core';

/** RFC 9457 problem details, with the members Agentry adds. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** Stable machine-readable code (also sent as the AIDIP `error.code`). */
  code?: string;
  /** One entry per input failure, each with the JSON pointer of the offending value. */
  errors?: ProblemFailure[];
  [extension: string]: unknown;
}

export interface ProblemFailure {
  pointer: string;
  detail: string;
  keyword?: string;
}

export interface ProblemInit {
  status: number;
  /** Stable machine-readable code, e.g. `OutOfStock`; also (hyphenated) the last segment of the default `type`. */
  code?: string;
  title?: string;
  detail?: string;
  type?: string;
  instance?: string;
  errors?: ProblemFailure[];
  [extension: string]: unknown;
}

/** A problem with `type` and `title` filled in from the code and status when not given (core's one builder). */
export function problem(init: ProblemInit): Problem {
  const { status, code, title, type, detail, instance, errors, ...extensions } = init;
  return problemDetails({
    status,
    title: title ?? STATUS_CODES[status] ?? 'Error',
    code,
    detail,
    type,
    instance,
    errors,
    extensions,
  }) as Problem;
}

/**
 * Thrown by a handler to answer with this problem: `throw new HostError({ status: 409, code: 'OutOfStock',
 * detail: 'Only 2 left.' })`. The detail is sent as written, so it must not carry secrets.
 */
export class HostError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'AgentError';
  override readonly name = 'HostError';
  readonly problem: Problem;
  readonly headers: Headers;

  constructor(
    init: ProblemInit,
    options: { headers?: ConstructorParameters<typeof Headers>[0]; cause?: unknown } = {},
  ) {
    const built = problem(init);
    super(built.detail ?? built.title, {
      code: built.code ?? errorCodeForStatus(built.status),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.problem = built;
    this.headers = new Headers(options.headers);
  }
}

/**
 * The problem a thrown value deliberately carries: a `HostError`, or any error with a `problem` object or a
 * numeric HTTP `status` (as many HTTP libraries' errors have). Undefined for everything else, which is a bug.
 */
export function deliberateProblem(error: unknown): { problem: Problem; headers: Headers } | undefined {
  if (error instanceof HostError) return { problem: error.problem, headers: error.headers };
  if (typeof error !== 'object' || error === null) return undefined;
  const carried = (error as { problem?: unknown }).problem;
  if (isProblemLike(carried)) return { problem: problem(carried), headers: new Headers() };
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
    const message = (error as { message?: unknown }).message;
    const init: ProblemInit = { status };
    if (typeof message === 'string' && message !== '') init.detail = message;
    return { problem: problem(init), headers: new Headers() };
  }
  return undefined;
}

function isProblemLike(value: unknown): value is ProblemInit {
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as { status?: unknown }).status;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599;
}

/** The problems the host itself answers, in one place so that codes and titles stay consistent. */
export const problems = {
  agentNotFound: (agentId: string, known: readonly string[]): Problem =>
    problem({
      status: 404,
      code: 'AgentNotFound',
      title: 'Agent not found',
      detail: `No agent "${agentId}" is hosted here (agents: ${known.join(', ') || 'none'}).`,
    }),
  operationNotFound: (agentId: string, operation: string, available: readonly string[]): Problem =>
    problem({
      status: 404,
      code: 'OperationNotFound',
      title: 'Operation not found',
      detail: `Agent "${agentId}" has no operation "${operation}" (operations: ${available.join(', ') || 'none'}).`,
      available: [...available],
    }),
  invalidInput: (errors: ProblemFailure[]): Problem =>
    problem({
      status: 400,
      code: 'InvalidInput',
      title: 'Invalid input',
      detail: errors.map((failure) => `${failure.pointer || '(root)'}: ${failure.detail}`).join('; '),
      errors,
    }),
  badRequest: (code: string, detail: string, pointer?: string): Problem =>
    problem({
      status: 400,
      code,
      title: 'Bad request',
      detail,
      ...(pointer === undefined ? {} : { errors: [{ pointer, detail }] }),
    }),
  internal: (): Problem =>
    problem({
      status: 500,
      code: 'InternalError',
      title: 'Internal error',
      detail: 'The operation failed. The error was logged by the host.',
    }),
} as const;
