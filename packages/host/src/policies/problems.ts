/**
 * The problem details (RFC 9457) the policies answer with. Each carries a `type` URI under Agentry's namespace
 * whose last segment spells its `code` with hyphens, so clients that classify by either (ours does) agree.
 */
import type { Problem } from '../runtime/types.js';

export const PROBLEM_TYPE_BASE = 'https://w3id.org/agentry/problems/';

export interface PolicyProblemInit {
  status: number;
  title: string;
  /** Stable, machine-readable: snake_case, also the last segment of `type`. */
  code: string;
  detail: string;
  extensions?: Record<string, unknown>;
}

export function policyProblem(init: PolicyProblemInit): Problem {
  return {
    ...init.extensions,
    type: `${PROBLEM_TYPE_BASE}${init.code.replaceAll('_', '-')}`,
    title: init.title,
    status: init.status,
    detail: init.detail,
    code: init.code,
  };
}
