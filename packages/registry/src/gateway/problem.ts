/**
 * Problem details (RFC 9457) as the registry answers them: the RFC members, Agentry's `code`, `pointer` and
 * `errors`, and — because AIDIP §5.2 defines its own error object — `error: {code, message}` in the same body, so
 * clients of either convention read it.
 */
import { STATUS_CODES } from 'node:http';
import type { JsonObject, JsonValue } from '@agentry/core';
import { MAX_LISTED_FAILURES } from '../api/problems.js';

/** Where Agentry's problem types live (the same base as `@agentry/host`); the last segment names the problem. */
export const PROBLEM_TYPE_BASE = 'https://w3id.org/agentry/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

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

export function problemDetails(init: ProblemInit): ProblemDetails {
  const out: ProblemDetails = {
    type: PROBLEM_TYPE_BASE + kebab(init.code),
    title: init.title ?? STATUS_CODES[init.status] ?? 'Error',
    status: init.status,
    detail: init.detail,
    code: init.code,
    error: { code: init.code, message: init.detail },
  };
  if (init.pointer !== undefined) out['pointer'] = init.pointer;
  if (init.errors !== undefined && init.errors.length > 0) {
    // The first failures only, and how many more: a small hostile request must not make a large answer.
    out['errors'] = init.errors
      .slice(0, MAX_LISTED_FAILURES)
      .map((failure) => ({ pointer: failure.pointer, detail: failure.detail }));
    if (init.errors.length > MAX_LISTED_FAILURES)
      out['errors_truncated'] = init.errors.length - MAX_LISTED_FAILURES;
  }
  for (const [key, value] of Object.entries(init.extra ?? {})) if (value !== undefined) out[key] = value;
  return out;
}

/** `InvalidInput` → `invalid-input`. */
function kebab(code: string): string {
  return code
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^a-zA-Z0-9]+/g, '-')
    .toLowerCase();
}

/** A problem as an HTTP response. */
export function problemResponse(
  problem: ProblemDetails,
  headers: Headers | Record<string, string> = {},
): Response {
  const out = new Headers(headers);
  out.set('content-type', PROBLEM_CONTENT_TYPE);
  return new Response(JSON.stringify(problem), { status: problem.status, headers: out });
}
