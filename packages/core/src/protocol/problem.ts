/**
 * Problem details (RFC 9457) as every Agentry server writes them — host, registry API and gateway — and the one
 * error-code style they all use.
 *
 * Codes are PascalCase, AIDIP's style (§5.2 names `InvalidInput`, `Unauthorized`, `NotFound`, `AgentError`), and
 * AIDIP's own code wherever AIDIP names one; the others follow its pattern (`RateLimited`,
 * `ConfirmationRequired`, `OperationNotFound`). The `type` URI's last segment is the code hyphenated in lower case
 * (`RateLimited` → `…/problems/rate-limited`). Agentry hosts before this rule wrote snake_case codes
 * (`rate_limited`); the type URIs are unchanged, and the client reads both spellings. Codes an agent's own
 * handler chooses are its own and are sent as written.
 */
/** Where the problem types of Agentry's servers live; the last segment names the problem (agent:// §9 style). */
export const PROBLEM_TYPE_BASE = 'https://w3id.org/agentry/problems/';
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * Failures listed in one problem at most: the first ones, and `errors_truncated` counting the rest, so that a small
 * hostile input cannot make a large answer (one failure per item of a huge list).
 */
export const MAX_LISTED_FAILURES = 100;

/** One failure of a problem, with the JSON pointer of the offending input (and any members of its own). */
export interface ProblemFailure {
  pointer: string;
  detail: string;
}

export interface ProblemDetailsInit {
  status: number;
  title: string;
  /** Machine-readable code (see the module header); also, hyphenated, the last segment of the default `type`. */
  code?: string;
  detail?: string;
  /** Defaults to the code's URI under `PROBLEM_TYPE_BASE`, else `about:blank`. */
  type?: string;
  instance?: string;
  /** The JSON pointer of the offending input when there is one place to point at. */
  pointer?: string;
  errors?: readonly ProblemFailure[];
  /** Also write AIDIP's error object (§5.2), `error: {code, message}`, so clients of either convention read it. */
  aidipError?: boolean;
  /** Further members; undefined ones are left out, and none replaces a member above. */
  extensions?: Readonly<Record<string, unknown>>;
}

export interface ProblemDetailsBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  [member: string]: unknown;
}

/** The problem type URI a code names: `RateLimited` (or an older host's `rate_limited`) → `…/rate-limited`. */
export function problemTypeFor(code: string): string {
  return PROBLEM_TYPE_BASE + hyphenated(code);
}

/**
 * A code as readers compare it: without case, `_`, `-`, `.` or spaces, so `RateLimited`, an older host's
 * `rate_limited` and a type URI's `rate-limited` are one code.
 */
export function errorCodeKey(code: string): string {
  return code.toLowerCase().replace(/[-_.\s]/g, '');
}

/** A problem's body, every server's one way. */
export function problemDetails(init: ProblemDetailsInit): ProblemDetailsBody {
  const { code, detail } = init;
  const body: ProblemDetailsBody = {
    type: init.type ?? (code === undefined ? 'about:blank' : problemTypeFor(code)),
    title: init.title,
    status: init.status,
  };
  if (detail !== undefined) body.detail = detail;
  if (code !== undefined) body.code = code;
  if (init.instance !== undefined) body['instance'] = init.instance;
  if (init.pointer !== undefined) body['pointer'] = init.pointer;
  if (init.errors !== undefined && init.errors.length > 0) {
    body['errors'] = init.errors.slice(0, MAX_LISTED_FAILURES);
    if (init.errors.length > MAX_LISTED_FAILURES)
      body['errors_truncated'] = init.errors.length - MAX_LISTED_FAILURES;
  }
  for (const [key, value] of Object.entries(init.extensions ?? {})) {
    if (value !== undefined && !Object.hasOwn(body, key)) body[key] = value;
  }
  if (init.aidipError === true) body['error'] = aidipErrorOf(body);
  return body;
}

/**
 * AIDIP's error object (§5.2) for a problem: its code (else the type's last segment) and its detail (else its
 * title). Servers write it beside the RFC 9457 members so that clients of either convention read one failure.
 */
export function aidipErrorOf(problem: ProblemDetailsBody): { code: string; message: string } {
  const code = problem.code ?? problem.type.split('/').pop() ?? 'error';
  return { code, message: problem.detail ?? problem.title };
}

/** `OperationNotFound` or `operation_not_found` → `operation-not-found`. */
function hyphenated(code: string): string {
  return code
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
}
