/**
 * Problem details (RFC 9457) as the registry answers them: the RFC members, Agentry's `code`, `pointer` and
 * `errors`, and — because AIDIP §5.2 defines its own error object — `error: {code, message}` in the same body, so
 * clients of either convention read it.
 */
import { STATUS_CODES } from 'node:http';
import {
  problemDetails as buildProblem,
  type JsonObject,
  type JsonValue,
  PROBLEM_MEDIA_TYPE,
} from '@agentry/core';

export { PROBLEM_MEDIA_TYPE as PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from '@agentry/core';

export interface ProblemFailure {
  pointer: string;
  detail: string;
}

export interface ProblemDetails extends JsonObject {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** AIDIP-style code, e.g. `InvalidInput`. */
  code: string;
  error: { code: string; message: string };
}

export interface ProblemInit {
  status: number;
  code: string;
  detail: string;
  title?: string;
  pointer?: string;
  errors?: ProblemFailure[];
  /** Further members (`recovery`, `available`, `agent_status`, …); undefined ones are left out. */
  extra?: Record<string, JsonValue | undefined>;
}

/** The gateway's problem: core's one builder, with the AIDIP error object; failures carry pointer and detail only. */
export function problemDetails(init: ProblemInit): ProblemDetails {
  return buildProblem({
    status: init.status,
    title: init.title ?? STATUS_CODES[init.status] ?? 'Error',
    code: init.code,
    detail: init.detail,
    pointer: init.pointer,
    errors: init.errors?.map((failure) => ({ pointer: failure.pointer, detail: failure.detail })),
    aidipError: true,
    extensions: init.extra,
  }) as ProblemDetails;
}

/** A problem as an HTTP response. */
export function problemResponse(
  problem: ProblemDetails,
  headers: Headers | Record<string, string> = {},
): Response {
  const out = new Headers(headers);
  out.set('content-type', PROBLEM_MEDIA_TYPE);
  return new Response(JSON.stringify(problem), { status: problem.status, headers: out });
}
