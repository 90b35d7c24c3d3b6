/**
 * Where a JSON Schema holds subschemas: the keywords whose value is one schema, an array of schemas or an object of
 * schemas. One table for every walk over a schema's subschemas (the linear-time pattern check, the meta-schema fast
 * path), so that a keyword added to one walk is not missed by the other.
 */

/** 2020-12 keywords whose value is one schema. */
export const SCHEMA_KEYWORDS: readonly string[] = [
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];

/** 2020-12 keywords whose value is a non-empty array of schemas. */
export const SCHEMA_ARRAY_KEYWORDS: readonly string[] = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];

/** 2020-12 keywords whose value is an object of schemas (`definitions` is draft-07's `$defs`, still read). */
export const SCHEMA_MAP_KEYWORDS: readonly string[] = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
];

/**
 * Draft-07 forms that documents still carry: `additionalItems` (one schema), `items` as an array (a tuple) and
 * `dependencies` (an object whose members are schemas or lists of property names).
 */
export const DRAFT_07_SCHEMA_KEYWORDS: readonly string[] = ['additionalItems'];
export const DRAFT_07_SCHEMA_ARRAY_KEYWORDS: readonly string[] = ['items'];
export const DRAFT_07_SCHEMA_MAP_KEYWORDS: readonly string[] = ['dependencies'];
