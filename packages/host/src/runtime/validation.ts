/**
 * Checking inputs before a handler runs and outputs after: a Standard Schema validator where the operation was
 * defined with one (its parsed value is what the handler gets), else the operation's JSON Schema (core's ajv).
 * Every failure carries the JSON pointer of the offending value.
 */
import { compileSchema, type JsonSchema, type JsonValue } from '@agentry/core';
import type { StandardIssue, StandardSchemaV1 } from '../define/schema.js';
import type { DefinedOperation } from '../define/types.js';
import type { ProblemFailure } from '../errors.js';

export type Checked = { ok: true; value: unknown } | { ok: false; failures: ProblemFailure[] };

/**
 * What a call without a body means: `{}` when the schema takes an empty object (an operation whose parameters are
 * all optional), else `null` (an operation that takes nothing).
 */
export function absentInput(schema: JsonSchema | undefined): JsonValue {
  if (schema === undefined) return null;
  return compileSchema(schema)({}).length === 0 ? {} : null;
}

/** Synchronous for a JSON Schema (the call need not wait a turn); a Standard Schema validator may be async. */
export function checkInput(op: DefinedOperation, input: unknown): Checked | Promise<Checked> {
  const validator = op.inputValidator;
  if (validator !== undefined) return checkStandard(validator, input);
  return checkJson(op.spec.input, input);
}

async function checkStandard(validator: StandardSchemaV1, input: unknown): Promise<Checked> {
  const result = await validator['~standard'].validate(input);
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, failures: result.issues.map(failureOf) };
}

export function checkJson(schema: JsonSchema | undefined, value: unknown): Checked {
  if (schema === undefined) return { ok: true, value };
  const errors = compileSchema(schema)(value);
  if (errors.length === 0) return { ok: true, value };
  return {
    ok: false,
    // The problem's detail puts each pointer before its reason.
    failures: errors.map((error) => ({
      pointer: error.pointer,
      detail: error.reason,
      keyword: error.keyword,
    })),
  };
}

function failureOf(issue: StandardIssue): ProblemFailure {
  const segments = (issue.path ?? []).map((segment) =>
    typeof segment === 'object' && segment !== null ? segment.key : segment,
  );
  const pointer = segments
    .map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
  return { pointer, detail: issue.message };
}
