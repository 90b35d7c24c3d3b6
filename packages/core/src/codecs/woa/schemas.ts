/** WoA `inputs`/`outputs`: JSON Schema 2020-12 documents whose root is an object (§4.2). */
import { IssueCollector } from '../../issues.js';
import { describeType } from '../../json/reader.js';
import { isObject } from '../../json/values.js';
import { checkSchemaDocument, JSON_SCHEMA_2020_12 } from '../../json-schema/validator.js';
import type { JsonObject, JsonSchema, JsonValue } from '../../model/agent.js';
import { SECTION } from './fields.js';

/**
 * Checks one `inputs`/`outputs` value. Returns the schema when it can be used (even with errors inside, so that a
 * partial agent keeps it), undefined when it is not a schema object at all.
 */
export function readSchema(
  value: JsonValue,
  pointer: string,
  what: string,
  issues: IssueCollector,
): JsonSchema | undefined {
  if (!isObject(value)) {
    issues.error(
      pointer,
      'woa.type',
      `${what} must be a JSON Schema object, got ${describeType(value)}.`,
      SECTION.schema,
    );
    return undefined;
  }
  const valid = checkSchemaDocument(value, pointer, issues, {
    codePrefix: 'woa',
    require202012: true,
    section: SECTION.schema,
    what,
  });
  if (valid && !describesObject(value)) {
    issues.warning(
      pointer,
      'woa.schema.not-object',
      `${what} should describe a JSON object (root "type": "object"): the invocation envelope's "input" is always an object.`,
      SECTION.schema,
    );
  }
  return value;
}

function describesObject(schema: JsonObject): boolean {
  const type = schema['type'];
  if (typeof type === 'string') return type === 'object';
  if (Array.isArray(type)) return type.includes('object');
  return true;
}

export interface EmittableSchema {
  schema: JsonObject;
  /** True when the schema had to change to be a WoA schema (so the canonical value does not survive). */
  changed: boolean;
  /** Why it is still not a valid WoA schema, if it is not. */
  problem?: string;
}

/**
 * Turns a canonical schema into one WoA accepts: boolean schemas become their object equivalents, and a `$schema`
 * naming an older dialect is dropped (WoA allows only 2020-12; most draft-07 schemas mean the same under it).
 */
export function toWoaSchema(schema: JsonSchema): EmittableSchema {
  if (schema === true) return { schema: {}, changed: true };
  if (schema === false) return { schema: { not: {} }, changed: true };
  let out = schema;
  let changed = false;
  const declared = schema['$schema'];
  if (
    declared !== undefined &&
    (typeof declared !== 'string' || declared.replace(/#$/, '') !== JSON_SCHEMA_2020_12)
  ) {
    const { $schema: _dropped, ...rest } = schema;
    out = rest;
    changed = true;
  }
  const check = new IssueCollector('WoA');
  checkSchemaDocument(out, '', check, { codePrefix: 'woa', require202012: true, what: 'The schema' });
  const problem = check.issues.find((issue) => issue.severity === 'error')?.message;
  return problem === undefined ? { schema: out, changed } : { schema: out, changed, problem };
}
