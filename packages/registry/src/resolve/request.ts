/**
 * The `POST /resolve` request: its JSON Schema (also published in the OpenAPI document) and reading a body into a
 * `ResolveRequest` or a 400 problem naming every offending member by pointer. Unknown policy members are errors:
 * a misspelt `exclude_flaged` silently ignored would return the very agents the caller meant to keep out.
 */
import { compileSchema, type JsonObject } from '@agentry/core';
import { type ProblemDetails, problemDetails } from '../gateway/problem.js';
import { MAX_STATUS_LENGTH, statusWord } from '../records/status.js';
import { AUTH_TYPES, type ResolvePolicy, type ResolveRequest, TRANSPORTS } from './types.js';

export const DEFAULT_TOP = 5;
export const MAX_TOP = 50;
export const MAX_INTENT_LENGTH = 2000;

const stringList = (maxItems: number, extra: JsonObject = {}): JsonObject => ({
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 100, ...extra },
  maxItems,
  uniqueItems: true,
});

export const RESOLVE_REQUEST_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Resolve request',
  type: 'object',
  required: ['intent'],
  additionalProperties: false,
  properties: {
    intent: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_INTENT_LENGTH,
      pattern: '\\S',
      description: 'The task to find an agent for, in plain language.',
    },
    context: {
      type: 'object',
      description: 'What is known about the task: language (BCP 47), region, and any other members.',
      properties: {
        language: { type: 'string', minLength: 1, maxLength: 35 },
        region: { type: 'string', minLength: 1, maxLength: 100 },
      },
    },
    policy: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: {
          ...stringList(20, { maxLength: MAX_STATUS_LENGTH, pattern: '\\S' }),
          description:
            'Lifecycle statuses allowed: any AIDIP status word (active, inactive, deprecated, retired, maintenance …), compared without case; default every status but retired.',
        },
        languages: stringList(50),
        auth_types: stringList(AUTH_TYPES.length, { enum: [...AUTH_TYPES] }),
        min_trust: { type: 'number', minimum: 0, maximum: 1 },
        min_quality: { type: 'number', minimum: 0, maximum: 1 },
        require_verified: { type: 'boolean' },
        exclude_flagged: { type: 'boolean' },
        transports: stringList(TRANSPORTS.length, { enum: [...TRANSPORTS] }),
      },
    },
    top: { type: 'integer', minimum: 1, maximum: MAX_TOP, default: DEFAULT_TOP },
  },
};

// Compiled on first use: the first compile creates the process's Ajv instance (see gateway/request.ts).
let validate: ReturnType<typeof compileSchema> | undefined;

export function readResolveRequest(
  body: unknown,
): { request: ResolveRequest; problem?: never } | { problem: ProblemDetails; request?: never } {
  validate ??= compileSchema(RESOLVE_REQUEST_SCHEMA);
  const failures = validate(body);
  if (failures.length > 0) {
    const errors = failures.map((failure) => ({ pointer: failure.pointer, detail: failure.reason }));
    const problem = problemDetails({
      status: 400,
      code: 'InvalidInput',
      title: 'Invalid resolve request',
      detail: `The resolve request is not valid: ${errors
        .slice(0, 3)
        .map((e) => `${e.pointer || '(body)'}: ${e.detail}`)
        .join('; ')}${errors.length > 3 ? ` (and ${errors.length - 3} more: see "errors")` : ''}.`,
      pointer: errors[0]!.pointer,
      errors,
    });
    return { problem };
  }
  const valid = body as Partial<ResolveRequest> & { intent: string };
  return {
    request: {
      intent: valid.intent.trim(),
      context: valid.context ?? {},
      policy: policyOf(valid.policy ?? {}),
      top: valid.top ?? DEFAULT_TOP,
    },
  };
}

/** The policy with its status words in their stored form (lower-cased), as records hold them. */
function policyOf(policy: ResolvePolicy): ResolvePolicy {
  if (policy.status === undefined) return policy;
  return { ...policy, status: policy.status.flatMap((word) => statusWord(word) ?? []) };
}
