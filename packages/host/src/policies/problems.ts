/**
 * The problem details (RFC 9457) the policies answer with. Each carries a `type` URI under Agentry's namespace
 * whose last segment spells its `code` with hyphens, so clients that classify by either (ours does) agree.
 */

import type { Problem } from '../errors.js';
import { problem } from '../errors.js';

export interface PolicyProblemInit {
  status: number;
  title: string;
  /** Stable, machine-readable: snake_case, also the last segment of `type`. */
  code: string;
  detail: string;
  extensions?: Record<string, unknown>;
}

export function policyProblem(init: PolicyProblemInit): Problem {
  const { status, title, code, detail } = init;
  return problem({ ...init.extensions, status, title, code, detail });
}
