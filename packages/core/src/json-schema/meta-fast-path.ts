/**
 * A fast first check that a schema is a valid JSON Schema 2020-12 document, for the schemas real agent documents
 * carry (`type`, `properties`, `required`, `items`, `enum`, `description`...). Checking those against the
 * meta-schema with Ajv walks every vocabulary's meta-schema at every node and costs several times more than
 * reading the document; a direct walk of the keywords answers the same question for them.
 *
 * The answer is one-sided: true means the meta-schema accepts the schema; false only means "not evidently valid",
 * and the caller then asks Ajv (which also says what is wrong). So the walk gives up on anything unusual: values
 * that are not plain JSON data (class instances, hidden members, undefined, NaN), very deep schemas, and any
 * keyword the meta-schema constrains that has no rule here. Members are read as Ajv reads them (`value[key]`).
 *
 * Which keywords are constrained is read from the meta-schemas Ajv validates against, so a keyword a newer
 * meta-schema adds is never taken for an unconstrained one; the rules for the handled keywords are the
 * meta-schema's own, and the tests hold them to Ajv's verdict on generated schemas.
 */

import type { Ajv2020 } from 'ajv/dist/2020.js';
import {
  everyItem,
  everyMember,
  isPlainArray,
  isPlainJson,
  isPlainRecord,
  plainKeys,
} from '../json/plain-data.js';
import { patternProblem } from './pattern-check.js';
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './subschema-keywords.js';

const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';
const SIMPLE_TYPES: ReadonlySet<string> = new Set([
  'array',
  'boolean',
  'integer',
  'null',
  'number',
  'object',
  'string',
]);
/** Deeper schemas are left to Ajv (and must not overflow the stack). */
const MAX_DEPTH = 48;

/** Checks one keyword's value; `depth` is the depth of the schema holding the keyword. */
type KeywordRule = (value: unknown, depth: number) => boolean;

export type MetaFastPath = (schema: unknown) => boolean;

/** Builds the fast path for the 2020-12 meta-schema loaded in `ajv`. */
export function createMetaFastPath(ajv: Ajv2020): MetaFastPath {
  const constrained = constrainedKeywords(ajv);
  if (constrained === undefined) return () => false;
  const rules = new Map<string, KeywordRule>();
  for (const [keyword, rule] of handledRules()) {
    if (constrained.has(keyword)) rules.set(keyword, rule);
  }
  const unhandled = new Set([...constrained].filter((keyword) => !rules.has(keyword)));

  const isSchema = (value: unknown, depth: number): boolean => {
    if (typeof value === 'boolean') return true;
    const keys = depth > MAX_DEPTH ? undefined : plainKeys(value);
    if (keys === undefined) return false;
    const schema = value as Record<string, unknown>;
    for (const key of keys) {
      const member = schema[key];
      const rule = rules.get(key);
      if (rule !== undefined) {
        if (!rule(member, depth)) return false;
      } else if (unhandled.has(key) || !isPlainJson(member, depth + 1, MAX_DEPTH)) {
        return false;
      }
    }
    return true;
  };

  const schemaRule: KeywordRule = (value, depth) => isSchema(value, depth + 1);
  const schemaArrayRule: KeywordRule = (value, depth) =>
    isPlainArray(value) && value.length >= 1 && everyItem(value, (item) => isSchema(item, depth + 1));
  const schemaMapRule: KeywordRule = (value, depth) =>
    everyMember(value, (member) => isSchema(member, depth + 1));
  for (const keyword of SCHEMA_KEYWORDS) if (rules.has(keyword)) rules.set(keyword, schemaRule);
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) if (rules.has(keyword)) rules.set(keyword, schemaArrayRule);
  for (const keyword of SCHEMA_MAP_KEYWORDS) if (rules.has(keyword)) rules.set(keyword, schemaMapRule);
  // A pattern the linear-time engine cannot run is valid to the meta-schema but needs an issue: the slow path.
  if (rules.has('patternProperties'))
    rules.set(
      'patternProperties',
      (value, depth) =>
        schemaMapRule(value, depth) &&
        Object.keys(value as object).every((key) => patternProblem(key) === undefined),
    );
  // The deprecated `dependencies`: each member a schema or a list of property names.
  if (rules.has('dependencies'))
    rules.set('dependencies', (value, depth) =>
      everyMember(
        value,
        (member) => isSchema(member, depth + 1) || (isPlainArray(member) && isUniqueStrings(member)),
      ),
    );

  return (schema) => isSchema(schema, 0);
}

/** The meta-schema's patterns for `$id` (no non-empty fragment) and for anchor names. */
const ID_PATTERN = /^[^#]*#?$/u;
const ANCHOR_PATTERN = /^[A-Za-z_][-A-Za-z0-9._]*$/u;

/** Every handled keyword with its rule; the subschema keywords get theirs once `isSchema` exists. */
function handledRules(): Map<string, KeywordRule> {
  const rules = new Map<string, KeywordRule>();
  const placeholder: KeywordRule = () => false;
  for (const keyword of [
    ...SCHEMA_KEYWORDS,
    ...SCHEMA_ARRAY_KEYWORDS,
    ...SCHEMA_MAP_KEYWORDS,
    'dependencies',
  ])
    rules.set(keyword, placeholder);

  const isString: KeywordRule = (value) => typeof value === 'string';
  const isBoolean: KeywordRule = (value) => typeof value === 'boolean';
  const isNumber: KeywordRule = (value) => typeof value === 'number' && Number.isFinite(value);
  const isCount: KeywordRule = (value) => Number.isInteger(value) && (value as number) >= 0;
  const anyJson: KeywordRule = (value, depth) => isPlainJson(value, depth + 1, MAX_DEPTH);
  for (const keyword of ['title', 'description', '$comment', 'format', 'contentEncoding', 'contentMediaType'])
    rules.set(keyword, isString);
  for (const keyword of ['uniqueItems', 'deprecated', 'readOnly', 'writeOnly']) rules.set(keyword, isBoolean);
  for (const keyword of ['maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'])
    rules.set(keyword, isNumber);
  for (const keyword of [
    'maxLength',
    'minLength',
    'maxItems',
    'minItems',
    'maxContains',
    'minContains',
    'maxProperties',
    'minProperties',
  ])
    rules.set(keyword, isCount);
  rules.set('multipleOf', (value) => isNumber(value, 0) && (value as number) > 0);
  rules.set('const', anyJson);
  rules.set('default', anyJson);
  rules.set('enum', (value, depth) => isPlainArray(value) && isPlainJson(value, depth + 1, MAX_DEPTH));
  rules.set('examples', (value, depth) => isPlainArray(value) && isPlainJson(value, depth + 1, MAX_DEPTH));
  rules.set('type', (value) =>
    typeof value === 'string'
      ? SIMPLE_TYPES.has(value)
      : isPlainArray(value) &&
        value.length >= 1 &&
        isUniqueStrings(value) &&
        everyItem(value, (name) => SIMPLE_TYPES.has(name as string)),
  );
  rules.set('required', (value) => isPlainArray(value) && isUniqueStrings(value));
  rules.set('dependentRequired', (value) =>
    everyMember(value, (member) => isPlainArray(member) && isUniqueStrings(member)),
  );

  // Ajv compiles meta-schemas without format validation (`format: "uri"` and the like are annotations there), so
  // URI-valued keywords need only be strings.
  for (const keyword of ['$schema', '$ref', '$dynamicRef', '$recursiveRef']) rules.set(keyword, isString);
  rules.set('pattern', (value) => typeof value === 'string' && patternProblem(value) === undefined);
  rules.set('$id', (value) => typeof value === 'string' && ID_PATTERN.test(value));
  for (const keyword of ['$anchor', '$dynamicAnchor', '$recursiveAnchor'])
    rules.set(keyword, (value) => typeof value === 'string' && ANCHOR_PATTERN.test(value));
  rules.set('$vocabulary', (value) => everyMember(value, (member) => typeof member === 'boolean'));
  return rules;
}

/**
 * The keywords the 2020-12 meta-schema puts a rule on: the `properties` of the meta-schema and of each vocabulary
 * meta-schema it combines with `allOf`. Undefined when the meta-schema is not laid out that way (then nothing is
 * taken as evidently valid).
 */
function constrainedKeywords(ajv: Ajv2020): Set<string> | undefined {
  const root = metaSchemaObject(ajv, META_SCHEMA_ID);
  if (root === undefined || !Array.isArray(root['allOf'])) return undefined;
  const parts = [root];
  for (const entry of root['allOf']) {
    const ref = isPlainRecord(entry) ? entry['$ref'] : undefined;
    if (typeof ref !== 'string') return undefined;
    const part = metaSchemaObject(ajv, new URL(ref, META_SCHEMA_ID).href);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  const keywords = new Set<string>();
  for (const part of parts) {
    // A vocabulary meta-schema that constrains schemas other than through `properties` is beyond this walk.
    for (const key of Object.keys(part)) if (!META_SCHEMA_MEMBERS.has(key)) return undefined;
    const properties = part['properties'];
    if (properties === undefined) continue;
    if (!isPlainRecord(properties)) return undefined;
    for (const keyword of Object.keys(properties)) keywords.add(keyword);
  }
  return keywords;
}

/** What a (vocabulary) meta-schema may hold besides its keyword rules for the walk to stand for it. */
const META_SCHEMA_MEMBERS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  '$vocabulary',
  '$dynamicAnchor',
  '$comment',
  '$defs',
  'title',
  'type',
  'allOf',
  'properties',
]);

function metaSchemaObject(ajv: Ajv2020, id: string): Record<string, unknown> | undefined {
  const schema = ajv.getSchema(id)?.schema;
  return isPlainRecord(schema) ? schema : undefined;
}

function isUniqueStrings(items: readonly unknown[]): boolean {
  if (!everyItem(items, (item) => typeof item === 'string')) return false;
  // Short lists (the usual `required`) are cheaper to compare pairwise than to hash.
  if (items.length > 8) return new Set(items).size === items.length;
  for (let i = 1; i < items.length; i++) {
    for (let j = 0; j < i; j++) if (items[j] === items[i]) return false;
  }
  return true;
}
