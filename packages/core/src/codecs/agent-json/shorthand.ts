/**
 * The draft's capability shorthand (Appendix A: `"input": { "city": "string" }`) — a map from field names to type
 * names — read as the JSON Schema it stands for, so that every canonical operation carries a real schema.
 */
import type { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { isObject, setOwn } from '../../json/values.js';
import type { JsonObject, JsonValue } from '../../model/agent.js';

/** JSON Schema 2020-12 keywords: an object using any of them is a schema, not a shorthand map. */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  '$comment',
  'type',
  'enum',
  'const',
  'properties',
  'patternProperties',
  'additionalProperties',
  'required',
  'items',
  'prefixItems',
  'contains',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'format',
  'title',
  'description',
  'default',
  'examples',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentMediaType',
  'contentEncoding',
  'readOnly',
  'writeOnly',
  'deprecated',
  'definitions',
]);

const JSON_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
]);
const TYPE_ALIASES: Readonly<Record<string, JsonObject>> = {
  int: { type: 'integer' },
  float: { type: 'number' },
  double: { type: 'number' },
  bool: { type: 'boolean' },
  list: { type: 'array' },
  dict: { type: 'object' },
  map: { type: 'object' },
  date: { type: 'string', format: 'date' },
  'date-time': { type: 'string', format: 'date-time' },
  datetime: { type: 'string', format: 'date-time' },
  time: { type: 'string', format: 'time' },
  uri: { type: 'string', format: 'uri' },
  url: { type: 'string', format: 'uri' },
  email: { type: 'string', format: 'email' },
  uuid: { type: 'string', format: 'uuid' },
};

/** A non-empty object whose values are all type names and whose keys are no schema keywords. */
export function isShorthand(value: unknown): value is Record<string, string> {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => !SCHEMA_KEYWORDS.has(key) && typeof value[key] === 'string');
}

/** The schema of one type name; unknown names become an unconstrained schema noting the name. */
export function typeNameSchema(name: string, pointer: string, issues: IssueCollector): JsonObject {
  const lower = name.trim().toLowerCase();
  if (JSON_TYPES.has(lower)) return { type: lower };
  const alias = Object.hasOwn(TYPE_ALIASES, lower) ? TYPE_ALIASES[lower] : undefined;
  if (alias !== undefined) return { ...alias };
  issues.warning(
    pointer,
    'agent-json.shorthand.unknown-type',
    `"${name}" is not a JSON type name (string, number, integer, boolean, object, array, null); any value is accepted for it.`,
    '§7',
  );
  return { $comment: `agent:// type "${name}"` };
}

export function shorthandToSchema(
  map: Record<string, string>,
  pointer: string,
  issues: IssueCollector,
): JsonObject {
  const properties: Record<string, JsonValue> = {};
  for (const [field, typeName] of Object.entries(map)) {
    setOwn(properties, field, typeNameSchema(typeName, joinPointer(pointer, field), issues));
  }
  return { type: 'object', properties };
}
