/**
 * Problems as HTTP answers: `application/problem+json` (RFC 9457) whose body also carries AIDIP's
 * `{"error": {"code", "message"}}`, so that clients of either convention read the same failure.
 */
import type { Problem } from '../runtime/types.js';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export function problemBody(problem: Problem): Record<string, unknown> {
  const code = problem.code ?? problem.type.split('/').pop() ?? 'error';
  return { ...problem, error: { code, message: problem.detail ?? problem.title } };
}

export function problemResponse(
  problem: Problem,
  headers?: ConstructorParameters<typeof Headers>[0],
): Response {
  const out = new Headers(headers);
  out.set('content-type', PROBLEM_MEDIA_TYPE);
  out.set('cache-control', 'no-store');
  return new Response(JSON.stringify(problemBody(problem)), { status: problem.status, headers: out });
}
