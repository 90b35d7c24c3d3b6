/**
 * Quick checks of TD members for the first pass over a TD (official-schema.ts), each standing for one definition
 * of the official TD 1.1 JSON Schema: `dataSchema` (action inputs and outputs), `thing-context` (`@context`) and
 * `type_declaration` (`@type`). Ajv's code for a definition tests every member it names on every node (thirty-odd
 * for a DataSchema) and builds an error for every alternative of a union that does not match; these walk what
 * the value has.
 *
 * One-sided: true means the TD schema accepts the value under that definition; false means "ask Ajv", which then
 * decides (so anything unusual, values that are not plain JSON data included, may simply answer false). The tests
 * hold each to Ajv's verdict on generated values.
 */
import { everyItem, everyMember, isPlainJson, isPlainRecord, plainKeys } from '../../json/plain-data.js';
import { TD_CONTEXT_1_0, TD_CONTEXT_1_1 } from '../../vocabulary.js';

const TYPE_NAMES: ReadonlySet<string> = new Set([
  'boolean',
  'integer',
  'number',
  'string',
  'object',
  'array',
  'null',
]);
/** The one `@type` value a DataSchema (any TD, as opposed to a Thing Model) must not have. */
const THING_MODEL_TYPE = 'tm:ThingModel';
const MAX_DEPTH = 32;

type MemberRule = (value: unknown, depth: number) => boolean;

const isString: MemberRule = (value) => typeof value === 'string';
const isBoolean: MemberRule = (value) => typeof value === 'boolean';
const isNumber: MemberRule = (value) => typeof value === 'number' && Number.isFinite(value);
const isCount: MemberRule = (value) => Number.isInteger(value) && (value as number) >= 0;
const isStringMap: MemberRule = (value) => everyMember(value, (member) => typeof member === 'string');
const isAnyJson: MemberRule = (value, depth) => isPlainJson(value, depth + 1, MAX_DEPTH);

/** The members the definition constrains, with its rule for each; every other member is free. */
const RULES: ReadonlyMap<string, MemberRule> = new Map<string, MemberRule>([
  ['@type', (value) => isTypeDeclaration(value)],
  ['description', isString],
  ['title', isString],
  ['unit', isString],
  ['format', isString],
  ['contentEncoding', isString],
  ['contentMediaType', isString],
  ['descriptions', isStringMap],
  ['titles', isStringMap],
  ['writeOnly', isBoolean],
  ['readOnly', isBoolean],
  ['minimum', isNumber],
  ['maximum', isNumber],
  ['exclusiveMinimum', isNumber],
  ['exclusiveMaximum', isNumber],
  ['multipleOf', (value) => isNumber(value, 0) && (value as number) > 0],
  ['maxItems', isCount],
  ['minItems', isCount],
  ['minLength', isCount],
  ['maxLength', isCount],
  ['const', isAnyJson],
  ['default', isAnyJson],
  ['type', (value) => typeof value === 'string' && TYPE_NAMES.has(value)],
  ['required', (value) => Array.isArray(value) && everyItem(value, (name) => typeof name === 'string')],
  ['enum', (value) => Array.isArray(value) && value.length > 0 && isPrimitiveSet(value)],
  [
    'oneOf',
    (value, depth) => Array.isArray(value) && everyItem(value, (item) => isDataSchema(item, depth + 1)),
  ],
  // An object is one DataSchema, an array a list of them: the two alternatives never both apply.
  [
    'items',
    (value, depth) =>
      Array.isArray(value)
        ? everyItem(value, (item) => isDataSchema(item, depth + 1))
        : isDataSchema(value, depth + 1),
  ],
  ['properties', (value, depth) => everyMember(value, (member) => isDataSchema(member, depth + 1))],
]);

export function isEvidentlyValidDataSchema(value: unknown): boolean {
  return isDataSchema(value, 0);
}

/**
 * `@context`: the TD 1.1 context alone, the TD 1.0 context alone, or an array of the 1.0 context, the 1.1 context
 * and then further entries, each a string or an object of strings (prefix declarations). The definition accepts
 * other shapes too (the 1.1 context first, or 1.0 and no 1.1); those are left to Ajv.
 */
export function isEvidentlyValidContext(value: unknown): boolean {
  if (typeof value === 'string') return value === TD_CONTEXT_1_1 || value === TD_CONTEXT_1_0;
  if (!Array.isArray(value) || value.length < 2) return false;
  if (value[0] !== TD_CONTEXT_1_0 || value[1] !== TD_CONTEXT_1_1) return false;
  for (let i = 2; i < value.length; i++) {
    const entry = value[i];
    // Ajv checks an object's members with for…in: the enumerable ones, which an ordinary prototype adds none to.
    if (typeof entry !== 'string' && !(isPlainRecord(entry) && Object.values(entry).every(isStringValue)))
      return false;
  }
  return true;
}

/** `@type`: a string, or an array of strings, none of them the Thing Model type. */
export function isEvidentlyValidTypeDeclaration(value: unknown): boolean {
  return isTypeDeclaration(value);
}

function isDataSchema(value: unknown, depth: number): boolean {
  const keys = depth > MAX_DEPTH ? undefined : plainKeys(value);
  if (keys === undefined) return false;
  const schema = value as Record<string, unknown>;
  for (const key of keys) {
    const rule = RULES.get(key);
    const member = schema[key];
    if (rule === undefined ? !isPlainJson(member, depth + 1, MAX_DEPTH) : !rule(member, depth)) return false;
  }
  return true;
}

/** `@type`: a string, or an array of strings, none of them the Thing Model type. */
function isTypeDeclaration(value: unknown): boolean {
  if (typeof value === 'string') return value !== THING_MODEL_TYPE;
  return (
    Array.isArray(value) && everyItem(value, (item) => typeof item === 'string' && item !== THING_MODEL_TYPE)
  );
}

/** Distinct primitives (an `enum` with objects in it needs deep comparison: Ajv decides). */
function isPrimitiveSet(items: readonly unknown[]): boolean {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!(item === null || typeof item === 'string' || typeof item === 'boolean' || isNumber(item, 0)))
      return false;
    for (let j = 0; j < i; j++) if (items[j] === item) return false;
  }
  return true;
}

function isStringValue(value: unknown): boolean {
  return typeof value === 'string';
}
