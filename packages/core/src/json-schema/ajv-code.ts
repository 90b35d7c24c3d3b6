/**
 * The `code` options every Ajv instance in Agentry compiles with, so that validating an untrusted document costs
 * time linear in its size:
 *
 * - `regExp`: patterns are matched by RE2 in linear time (linear-regexp.ts).
 * - `process`: with `allErrors`, Ajv's generated code gathers the errors of a referenced schema with
 *   `vErrors = vErrors.concat(validateN.errors)`, which copies every error found so far at each call: quadratic in
 *   the number of errors (a TD with 10,000 bad security schemes, 150,000 errors, took 11 s; 20,000 a minute). The
 *   rewrite appends the callee's errors in place instead. The callee's array is never read again once appended
 *   (each call of a validator makes a new one), so sharing it is safe. Code of another shape is left as it is.
 */
import { linearRegExp } from './linear-regexp.js';

const CONCAT_ERRORS = /vErrors = vErrors === null \? ([\w$.]+) : vErrors\.concat\(\1\);/g;

/** Ajv's generated code with each `vErrors.concat(…)` of a callee's errors turned into an in-place append. */
export function appendErrorsInPlace(code: string): string {
  return code.replace(
    CONCAT_ERRORS,
    (_match, callee: string) =>
      `if (vErrors === null) vErrors = ${callee}; else for (const e of ${callee}) vErrors.push(e);`,
  );
}

export const AJV_CODE_OPTIONS = { regExp: linearRegExp, process: appendErrorsInPlace };
