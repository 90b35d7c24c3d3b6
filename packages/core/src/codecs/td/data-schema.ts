/**
 * TD DataSchemas ↔ canonical JSON Schema 2020-12.
 *
 * A TD DataSchema is a JSON Schema subset with a few extra terms (`unit`, `@type`, `titles`, `readOnly`...), which
 * JSON Schema validators ignore, so both directions keep schemas as they are except where the two disagree:
 * - tuples: TD (like draft-07) writes `items: [...]` (+ `additionalItems`); 2020-12 writes `prefixItems` (+ `items`);
 * - TD has no `$ref`, so emitted schemas have local references inlined;
 * - TD types are single names, and TD's own subschema slots (`properties`, `items`, `oneOf`) hold objects only, so
 *   `type: [a, b]` becomes a `oneOf` and boolean subschemas become their object equivalents.
 */

import { isObject, setOwn } from '../../json/values.js';
import type { JsonObject, JsonSchema, JsonValue } from '../../model/agent.js';
import { AgentryError } from '../../protocol/errors.js';

/** How each subschema-holding keyword holds its subschemas. */
const SUBSCHEMA_KEYWORDS: ReadonlyMap<string, 'single' | 'list' | 'map' | 'items'> = new Map([
  ['items', 'items'],
  ['additionalItems', 'single'],
  ['additionalProperties', 'single'],
  ['contains', 'single'],
  ['not', 'single'],
  ['if', 'single'],
  ['then', 'single'],
  ['else', 'single'],
  ['propertyNames', 'single'],
  ['unevaluatedItems', 'single'],
  ['unevaluatedProperties', 'single'],
  ['prefixItems', 'list'],
  ['oneOf', 'list'],
  ['anyOf', 'list'],
  ['allOf', 'list'],
  ['properties', 'map'],
  ['patternProperties', 'map'],
  ['$defs', 'map'],
  ['definitions', 'map'],
  ['dependentSchemas', 'map'],
]);

/** Applies `fn` to every direct subschema of `schema`; returns `schema` itself when nothing changed. */
function mapSubschemas(schema: JsonObject, fn: (sub: JsonValue, keyword: string) => JsonValue): JsonObject {
  let out: JsonObject | undefined;
  for (const keyword of Object.keys(schema)) {
    const holds = SUBSCHEMA_KEYWORDS.get(keyword);
    if (holds === undefined) continue;
    const value = schema[keyword]!;
    let mapped: JsonValue = value;
    if (Array.isArray(value)) {
      if (holds === 'list' || holds === 'items') mapped = mapList(value, keyword, fn);
    } else if (holds === 'map') {
      if (isObject(value)) mapped = mapMembers(value, keyword, fn);
    } else if (holds !== 'list') {
      mapped = fn(value, keyword);
    }
    if (mapped !== value) {
      out ??= { ...schema };
      out[keyword] = mapped;
    }
  }
  return out ?? schema;
}

function mapList(
  subs: JsonValue[],
  keyword: string,
  fn: (sub: JsonValue, keyword: string) => JsonValue,
): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < subs.length; i++) {
    const next = fn(subs[i]!, keyword);
    if (next !== subs[i]) {
      out ??= [...subs];
      out[i] = next;
    }
  }
  return out ?? subs;
}

function mapMembers(
  subs: JsonObject,
  keyword: string,
  fn: (sub: JsonValue, keyword: string) => JsonValue,
): JsonObject {
  let out: JsonObject | undefined;
  for (const name of Object.keys(subs)) {
    const sub = subs[name]!;
    const next = fn(sub, keyword);
    if (next !== sub) {
      out ??= { ...subs };
      setOwn(out, name, next);
    }
  }
  return out ?? subs;
}

/** True when a tuple-form `items` (an array) occurs anywhere in `schema`: the only thing reading must rewrite. */
function hasTupleItems(schema: JsonObject): boolean {
  for (const keyword of Object.keys(schema)) {
    const holds = SUBSCHEMA_KEYWORDS.get(keyword);
    if (holds === undefined) continue;
    const value = schema[keyword];
    if (Array.isArray(value)) {
      if (holds === 'items') return true;
      for (const sub of value) if (isObject(sub) && hasTupleItems(sub)) return true;
    } else if (isObject(value)) {
      if (holds === 'map') {
        for (const sub of Object.values(value)) if (isObject(sub) && hasTupleItems(sub)) return true;
      } else if (hasTupleItems(value)) return true;
    }
  }
  return false;
}

/** A TD DataSchema read as canonical JSON Schema 2020-12 (tuples rewritten; everything else kept). */
export function fromDataSchema(value: JsonObject): JsonSchema {
  return hasTupleItems(value) ? tuplesTo202012(value) : value;
}

function tuplesTo202012(schema: JsonObject): JsonObject {
  let out = mapSubschemas(schema, (sub) => (isObject(sub) ? tuplesTo202012(sub) : sub));
  const items = out['items'];
  if (Array.isArray(items) && out['prefixItems'] === undefined) {
    const { items: _items, additionalItems, ...rest } = out;
    out = { ...rest, prefixItems: items };
    if (additionalItems !== undefined) out['items'] = additionalItems;
  }
  return out;
}

export interface DataSchemaResult {
  schema: JsonObject;
  /** Why the schema could not be carried as it was, when it could not (it is then `{}`). */
  dropped?: string;
}

/**
 * Inlining copies a definition at each use, so a schema whose definitions use each other twice over grows
 * exponentially; past this many expansions the schema is not inlined (untrusted input must not exhaust memory).
 */
const MAX_EXPANSIONS = 1000;

interface InlineState {
  root: JsonObject;
  expansions: number;
}

class Uninlinable extends AgentryError {}

/** A canonical schema as a TD DataSchema: references inlined, tuples and type lists in TD's forms. */
const DIALECT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/**
 * The schema without a root `$schema` naming JSON Schema 2020-12. Canonical schemas are 2020-12 by definition, so
 * it says nothing; and TD consumers validate DataSchemas with draft-07 validators (node-wot) that refuse an
 * unknown meta-schema.
 */
export function withoutDialect(schema: JsonSchema): JsonSchema {
  if (typeof schema === 'boolean' || typeof schema['$schema'] !== 'string') return schema;
  if (!DIALECT_2020_12.test(schema['$schema'])) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

export function toDataSchema(input: JsonSchema): DataSchemaResult {
  const schema = withoutDialect(input);
  if (typeof schema === 'boolean') return { schema: booleanAsObject(schema) };
  const state: InlineState = { root: schema, expansions: 0 };
  let resolved: JsonObject;
  try {
    resolved = inlineRefs(schema, state, []);
  } catch (error) {
    if (!(error instanceof Uninlinable)) throw error;
    return { schema: {}, dropped: error.message };
  }
  if (state.expansions > 0) {
    // Every use is inlined, so the definitions are no longer needed.
    const { $defs: _defs, definitions: _definitions, ...rest } = resolved;
    resolved = rest;
  }
  return { schema: tdShapes(resolved) };
}

function inlineRefs(schema: JsonObject, state: InlineState, stack: string[]): JsonObject {
  let out = schema;
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith('#')) throw new Uninlinable(`it references "${ref}", which is not inside the schema`);
    if (stack.includes(ref)) throw new Uninlinable(`its reference "${ref}" is recursive`);
    const target = resolveLocalPointer(state.root, ref);
    if (target === undefined) throw new Uninlinable(`its reference "${ref}" points nowhere`);
    if (typeof target !== 'boolean' && !isObject(target))
      throw new Uninlinable(`its reference "${ref}" does not point to a schema`);
    if (++state.expansions > MAX_EXPANSIONS)
      throw new Uninlinable('it is too large once its references are inlined');
    const resolved = isObject(target) ? inlineRefs(target, state, [...stack, ref]) : booleanAsObject(target);
    const { $ref: _ref, ...siblings } = schema;
    out = mergeReferenced(resolved, siblings);
  }
  return mapSubschemas(out, (sub, keyword) =>
    isObject(sub) && keyword !== '$defs' && keyword !== 'definitions' ? inlineRefs(sub, state, stack) : sub,
  );
}

/** `$ref` beside other keywords means both apply: merge when they do not overlap, otherwise keep both via allOf. */
function mergeReferenced(target: JsonObject, siblings: JsonObject): JsonObject {
  if (Object.keys(siblings).length === 0) return target;
  const overlap = Object.keys(siblings).some((key) => Object.hasOwn(target, key));
  return overlap ? { ...siblings, allOf: [target] } : { ...target, ...siblings };
}

function resolveLocalPointer(root: JsonObject, ref: string): JsonValue | undefined {
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: JsonValue | undefined = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = Object.hasOwn(node, token) ? node[token] : undefined;
    else return undefined;
  }
  return node;
}

/** Rewrites what TD spells differently; recursion covers every subschema. */
function tdShapes(schema: JsonObject): JsonObject {
  let out = mapSubschemas(schema, (sub, keyword) => {
    if (typeof sub === 'boolean') return TD_OBJECT_SLOTS.has(keyword) ? booleanAsObject(sub) : sub;
    return isObject(sub) ? tdShapes(sub) : sub;
  });
  const prefixItems = out['prefixItems'];
  if (Array.isArray(prefixItems) && (out['items'] === undefined || isObject(out['items']))) {
    const { prefixItems: _prefix, items, ...rest } = out;
    out = {
      ...rest,
      items: prefixItems.map((sub) => (typeof sub === 'boolean' ? booleanAsObject(sub) : sub)),
    };
    if (items !== undefined) out['additionalItems'] = items;
  }
  const type = out['type'];
  if (Array.isArray(type)) {
    const { type: _type, ...rest } = out;
    const names = type.filter((name) => !(name === 'integer' && type.includes('number')));
    const alternatives = names.map((name) => ({ type: name }));
    if (out['oneOf'] === undefined) out = { ...rest, oneOf: alternatives };
    else if (out['anyOf'] === undefined) out = { ...rest, anyOf: alternatives };
  }
  return out;
}

/** Subschema slots the TD schema validates as DataSchema objects. */
const TD_OBJECT_SLOTS = new Set(['properties', 'items', 'oneOf']);

function booleanAsObject(value: boolean): JsonObject {
  return value ? {} : { not: {} };
}
