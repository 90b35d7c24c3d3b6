/**
 * `defineAgent`: one TypeScript description of an agent — identity, operations with schemas and governance
 * fields, handlers — from which the host builds every document and serves every call. Mistakes are caught here,
 * when the module loads, rather than on the first request.
 */
import {
  type Agent,
  AgentryError,
  type AgentryErrorCode,
  compileSchema,
  type JsonSchema,
  type Operation,
  UnsupportedPatternError,
} from '@agentry/core';
import { isStandardSchema, SchemaConversionError, type SchemaSource, toJsonSchema } from './schema.js';
import type {
  AgentDefinition,
  AgentDefinitionInput,
  DefinedOperation,
  OperationDefinition,
} from './types.js';

/** WoA agent ids (and our URL paths) are tokens of ASCII letters, digits, `-` and `_`. */
const AGENT_ID = /^[A-Za-z0-9_-]+$/;
/** Operation names are also MCP tool names and path segments. */
const OPERATION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export class AgentDefinitionError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidDefinition';
  override readonly name = 'AgentDefinitionError';
}

/**
 * Checks an agent definition and makes it what `createHost` serves: its operations' schemas (zod or any Standard
 * Schema, or JSON Schema) turned into JSON Schema, the canonical agent built. Throws `AgentDefinitionError` when the
 * definition is wrong.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@agentry/host';
 * import { z } from 'zod';
 *
 * export default defineAgent({
 *   id: 'greeter',
 *   name: 'Greeter',
 *   description: 'Greets people by name.',
 *   version: '1.0.0',
 *   operations: {
 *     greet: {
 *       description: 'Greet someone.',
 *       input: z.object({ name: z.string() }),
 *       output: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
 *       safe: true,
 *       handler: ({ name }) => ({ greeting: `Hello, ${name}!` }),
 *     },
 *   },
 * });
 * ```
 */
export function defineAgent<Inputs extends Record<string, unknown>>(
  input: AgentDefinitionInput<Inputs>,
): AgentDefinition {
  const { operations: operationInputs, bindings, ...fields } = input;
  if (typeof fields.id !== 'string' || !AGENT_ID.test(fields.id)) {
    throw new AgentDefinitionError(
      `Agent id ${JSON.stringify(fields.id)} must be a non-empty token of ASCII letters, digits, "-" and "_".`,
    );
  }
  if (typeof fields.name !== 'string' || fields.name.trim() === '') {
    throw new AgentDefinitionError(`Agent "${fields.id}" needs a name.`);
  }
  if (typeof fields.description !== 'string') {
    throw new AgentDefinitionError(`Agent "${fields.id}" needs a description.`);
  }
  const operations = new Map<string, DefinedOperation>();
  for (const [name, definition] of Object.entries(operationInputs) as [
    string,
    OperationDefinition<unknown>,
  ][]) {
    operations.set(name, defineOperation(fields.id, name, definition));
  }
  const agent: Agent = {
    ...withoutUndefined(fields),
    operations: [...operations.values()].map((op) => op.spec),
    bindings: [],
  };
  if (bindings !== undefined) agent.bindings = structuredClone(bindings);
  return { id: fields.id, agent: structuredClone(agent), operations, definedAt: new Date() };
}

function defineOperation(
  agentId: string,
  name: string,
  definition: OperationDefinition<unknown>,
): DefinedOperation {
  const where = `agent "${agentId}" operation "${name}"`;
  if (!OPERATION_NAME.test(name)) {
    throw new AgentDefinitionError(
      `The name of ${where} must start with a letter or digit and use only ASCII letters, digits, ".", "_" and "-".`,
    );
  }
  if (typeof definition?.handler !== 'function') {
    throw new AgentDefinitionError(`The ${where} needs a handler function.`);
  }
  const { handler, input, output, ...fields } = definition;
  const spec: Operation = { name, ...withoutUndefined(fields) };
  if (input !== undefined) spec.input = schemaFor(input as SchemaSource, 'input', where);
  if (output !== undefined) spec.output = schemaFor(output, 'output', where);
  const streams = handler.constructor?.name === 'AsyncGeneratorFunction';
  if (streams && spec.streaming === undefined) spec.streaming = true;
  const defined: DefinedOperation = {
    spec,
    handler,
    streams,
    ...(isStandardSchema(input) ? { inputValidator: input } : {}),
  };
  return defined;
}

function schemaFor(source: SchemaSource, side: 'input' | 'output', where: string): JsonSchema {
  let schema: JsonSchema;
  try {
    schema = toJsonSchema(source, side, `${where} ${side}`);
  } catch (error) {
    if (error instanceof SchemaConversionError)
      throw new AgentDefinitionError(error.message, { cause: error });
    throw error;
  }
  try {
    // Compiled now so that a broken schema stops the definition, not the first call.
    compileSchema(schema);
  } catch (error) {
    if (error instanceof UnsupportedPatternError)
      throw new AgentDefinitionError(`The ${side} schema of ${where} cannot be used: its ${error.message}.`, {
        cause: error,
      });
    throw new AgentDefinitionError(
      `The ${side} schema of ${where} is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}.`,
      { cause: error },
    );
  }
  return schema;
}

/** The canonical model has absent fields, never `undefined`-valued ones. */
function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== undefined) out[key] = field;
  return out as T;
}
