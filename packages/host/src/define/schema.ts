/**
 * Operation schemas come as JSON Schema objects or as Standard Schema validators (zod 4, valibot, arktype…). The
 * documents need JSON Schema, so validators are converted once, at definition time, by the first converter that
 * knows them: the Standard JSON Schema interface (`~standard.jsonSchema`, zod ≥ 4.2), then a `toJSONSchema()`
 * method. A validator none of them can convert is an error that says what to do.
 */
import { AgentryError, type AgentryErrorCode, type JsonObject, type JsonSchema } from '@agentry/core';

/** The Standard Schema v1 interface (https://standardschema.dev), declared here to need no dependency. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  /** Standard JSON Schema: a validator that can describe itself. */
  readonly jsonSchema?: {
    readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    readonly output: (options: { readonly target: string }) => Record<string, unknown>;
  };
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What an operation's `input` or `output` may be. */
export type SchemaSource = JsonSchema | StandardSchemaV1;

/** The value a handler receives for an input schema: a validator's parsed output, else whatever JSON was sent. */
export type InputOf<S> = S extends { readonly '~standard': { readonly types?: infer Types } }
  ? NonNullable<Types> extends { readonly output: infer Output }
    ? Output
    : unknown
  : unknown;

/** Which side of a validator a document describes: what callers send (`input`) or what handlers return. */
export type SchemaSide = 'input' | 'output';

/** Turns a validator into JSON Schema 2020-12, or returns undefined when it does not know the validator. */
export interface SchemaConverter {
  readonly name: string;
  convert(schema: object, side: SchemaSide): JsonSchema | undefined;
}

export class SchemaConversionError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidDefinition';
  override readonly name = 'SchemaConversionError';
}

const TARGET = 'draft-2020-12';

/** `~standard.jsonSchema.input/output` (Standard JSON Schema). */
export const standardJsonSchemaConverter: SchemaConverter = {
  name: 'Standard JSON Schema (~standard.jsonSchema)',
  convert(schema, side) {
    const props = (schema as Partial<StandardSchemaV1>)['~standard'];
    const describe = props?.jsonSchema?.[side];
    if (typeof describe !== 'function') return undefined;
    return asJsonSchema(describe({ target: TARGET }));
  },
};

/** A `toJSONSchema()` method on the validator (zod 4 schemas have one). */
export const toJsonSchemaMethodConverter: SchemaConverter = {
  name: 'toJSONSchema() method',
  convert(schema, side) {
    const method = (schema as { toJSONSchema?: unknown }).toJSONSchema;
    if (typeof method !== 'function') return undefined;
    return asJsonSchema(method.call(schema, { target: TARGET, io: side }));
  },
};

export const DEFAULT_CONVERTERS: readonly SchemaConverter[] = [
  standardJsonSchemaConverter,
  toJsonSchemaMethodConverter,
];

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  if (value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/**
 * The JSON Schema of `source`. `where` names it in errors (`operation "summarize" input`). Throws a
 * `SchemaConversionError` when a validator cannot be described in JSON Schema.
 */
export function toJsonSchema(
  source: SchemaSource,
  side: SchemaSide,
  where: string,
  converters: readonly SchemaConverter[] = DEFAULT_CONVERTERS,
): JsonSchema {
  if (typeof source === 'boolean') return source;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new SchemaConversionError(
      `The ${where} schema must be a JSON Schema object or a Standard Schema validator.`,
    );
  }
  const validator =
    isStandardSchema(source) || typeof (source as { toJSONSchema?: unknown }).toJSONSchema === 'function';
  if (!validator) return cloneJson(source as JsonObject, where);
  const failures: string[] = [];
  for (const converter of converters) {
    try {
      const converted = converter.convert(source, side);
      if (converted !== undefined) return converted;
    } catch (error) {
      failures.push(`${converter.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const vendor = isStandardSchema(source) ? ` (${source['~standard'].vendor})` : '';
  const why =
    failures.length > 0
      ? ` ${failures.join('; ')}.`
      : ` It offers neither ~standard.jsonSchema nor a toJSONSchema() method.`;
  throw new SchemaConversionError(
    `The ${where} validator${vendor} cannot be converted to JSON Schema, which every document needs.${why} Give a JSON Schema object instead, or a validator that can describe itself (zod ≥ 4.2).`,
  );
}

function asJsonSchema(value: unknown): JsonSchema {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SchemaConversionError('the converter did not return a JSON Schema object');
  }
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

/** A JSON Schema given as an object is copied, so that later changes to it do not change published documents. */
function cloneJson(schema: JsonObject, where: string): JsonObject {
  try {
    return JSON.parse(JSON.stringify(schema)) as JsonObject;
  } catch (error) {
    throw new SchemaConversionError(
      `The ${where} schema is not JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
}
