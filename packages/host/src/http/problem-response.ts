/**
 * Problems as HTTP answers: `application/problem+json` (RFC 9457) whose body also carries AIDIP's
 * `{"error": {"code", "message"}}`, so that clients of either convention read the same failure.
 */
import { aidipErrorOf, PROBLEM_MEDIA_TYPE } from '@agentry/core';
import type { Problem } from '../errors.js';
import { type Answer, withFields } from './answer.js';

export { PROBLEM_MEDIA_TYPE } from '@agentry/core';

export function problemBody(problem: Problem): Record<string, unknown> {
  return { ...problem, error: aidipErrorOf(problem) };
}

export function problemAnswer(problem: Problem, headers?: Headers | Record<string, string>): Answer {
  const given = headers instanceof Headers ? headers : new Headers(headers);
  return {
    status: problem.status,
    headers: withFields(given, PROBLEM_FIELDS),
    body: JSON.stringify(problemBody(problem)),
  };
}

const PROBLEM_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['content-type', PROBLEM_MEDIA_TYPE],
  ['cache-control', 'no-store'],
];
