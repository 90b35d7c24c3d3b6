/**
 * Which operation an A2A message calls, and with what input. A2A messages name no operation, so the skill (an
 * operation: the card lists one skill per operation, `id` = its name) comes from `skillId` (or `operation`) in the
 * message's metadata, then in the request's; an agent with exactly one operation needs none. The input is the one
 * DataPart's `data`; without one, the text of the TextParts (joined by line breaks) is the input of an operation
 * whose input is a single string: a string schema, or an object schema with exactly one property, a string.
 * Anything else is ambiguous and refused with a problem that says what to send.
 */
import type { JsonObject, JsonSchema, JsonValue, Operation } from '@agentry/core';
import { problem, problems } from '../../errors.js';
import type { InboundMessage } from './dialect.js';
import { type A2aError, a2aError, JSON_RPC, problemError } from './errors.js';

export interface MessageCall {
  operation: string;
  /** Absent when the message has no parts (the operation's absent input applies). */
  input?: JsonValue;
}

const SKILL_KEYS = ['skillId', 'operation'] as const;

export function messageCall(
  agentId: string,
  operations: readonly Operation[],
  message: InboundMessage,
  requestMetadata: JsonObject,
): MessageCall | A2aError {
  const named = skillNamed(message.metadata) ?? skillNamed(requestMetadata);
  const names = operations.map((op) => op.name);
  let operation: Operation | undefined;
  if (named !== undefined) {
    operation = operations.find((op) => op.name === named);
    if (operation === undefined) return invalid(problems.operationNotFound(agentId, named, names));
  } else if (operations.length === 1) {
    operation = operations[0]!;
  } else {
    return invalid(
      problem({
        status: 400,
        code: 'SkillRequired',
        title: 'Bad request',
        detail: `Agent "${agentId}" has ${names.length} skills; name one in the message's metadata as "skillId" (${names.join(', ')}).`,
        available: names,
      }),
    );
  }

  const { parts } = message;
  if (parts.some((part) => part.kind === 'file')) {
    return a2aError(
      JSON_RPC.contentTypeNotSupported,
      415,
      'UnsupportedMediaType',
      `Skill "${operation.name}" takes JSON: send a DataPart (or text), not a file.`,
    );
  }
  if (parts.length === 0) return { operation: operation.name };
  const data = parts.flatMap((part) => (part.kind === 'data' ? [part.data] : []));
  if (data.length === 1) return { operation: operation.name, input: data[0]! };
  if (data.length > 1) {
    return invalid(
      problems.badRequest(
        'AmbiguousInput',
        `The message has ${data.length} DataParts; skill "${operation.name}" takes its input from one.`,
      ),
    );
  }
  const text = parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');
  const target = stringInput(operation.input);
  if (target === undefined) {
    return invalid(
      problems.badRequest(
        'StructuredInputRequired',
        `Skill "${operation.name}" takes structured input: send it as a DataPart whose data is the input.`,
      ),
    );
  }
  return {
    operation: operation.name,
    input: target.property === undefined ? text : { [target.property]: text },
  };
}

function skillNamed(metadata: JsonObject): string | undefined {
  for (const key of SKILL_KEYS) {
    const value = metadata[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * Where a text goes when it is the whole input: the input itself (a string schema, or no schema at all), or the
 * one property of an object schema whose only property is a string. Undefined when that is not clear.
 */
function stringInput(schema: JsonSchema | undefined): { property?: string } | undefined {
  if (schema === undefined || schema === true) return {};
  if (typeof schema !== 'object') return undefined;
  if (typeMentions(schema, 'string') && !typeMentions(schema, 'object')) return {};
  const properties = schema['properties'];
  if (!typeMentions(schema, 'object') || typeof properties !== 'object' || properties === null)
    return undefined;
  const names = Object.keys(properties);
  if (names.length !== 1) return undefined;
  const only = (properties as Record<string, JsonSchema>)[names[0]!];
  return typeof only === 'object' && only !== null && typeMentions(only, 'string')
    ? { property: names[0]! }
    : undefined;
}

function typeMentions(schema: Exclude<JsonSchema, boolean>, type: string): boolean {
  const declared = (schema as JsonObject)['type'];
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function invalid(details: ReturnType<typeof problem>): A2aError {
  return { ...problemError(details), code: JSON_RPC.invalidParams, httpStatus: 200 };
}
