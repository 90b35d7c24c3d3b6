/**
 * Where unknown fields live. AWP says unknown fields are ignored, not fatal (its design principles and its
 * conformance rules); Agentry keeps them. The extensions of an agent (or of an operation) mirror the document's
 * shape but hold only the fields the canonical model has no place for:
 * `{ "x_rating": 4, "capabilities": { "x_beta": true } }`. Writing a document merges the mirror back in, so a
 * document read and written again keeps every field where it was.
 */
import { isObject, setOwn } from '../../json/values.js';
import type { JsonObject } from '../../model/agent.js';
import {
  ACTION_FIELDS,
  AUTH_FIELDS,
  CAPABILITY_FIELDS,
  ENTITY_FIELDS,
  IDEMPOTENCY_FIELDS,
  INPUT_FIELDS,
  STATUS_FIELDS,
  SYNTHETIC_FIELDS,
  TOP_FIELDS,
} from './rules.js';

export interface Layout {
  /** Fields this object defines; every other field is an extension. */
  known: ReadonlySet<string>;
  /** Known fields whose object values may hold extensions of their own. */
  nested?: ReadonlyMap<string, Layout>;
  /** Every field names a child object laid out so (entity names, input names). */
  each?: Layout;
  /** When writing, create this object to hold extensions if the document has none. */
  creatable?: boolean;
}

const ENTITIES: Layout = { known: new Set(), each: { known: new Set(ENTITY_FIELDS) } };
const SURFACE_NESTED: ReadonlyMap<string, Layout> = new Map([
  ['capabilities', { known: new Set(CAPABILITY_FIELDS), creatable: true }],
  ['auth', { known: new Set(AUTH_FIELDS), creatable: true }],
  ['agent_status', { known: new Set(STATUS_FIELDS), creatable: true }],
  ['entities', ENTITIES],
]);

/** A native document: the synthetic declaration's fields are extensions like any other. */
export const DOCUMENT_LAYOUT: Layout = { known: new Set(TOP_FIELDS), nested: SURFACE_NESTED };
/** A synthetic document (`source: "synthetic"`): its declaration maps to provenance. */
export const SYNTHETIC_DOCUMENT_LAYOUT: Layout = {
  known: new Set([...TOP_FIELDS, ...SYNTHETIC_FIELDS]),
  nested: SURFACE_NESTED,
};

export const ACTION_LAYOUT: Layout = {
  known: new Set(ACTION_FIELDS),
  nested: new Map([
    ['idempotency', { known: new Set(IDEMPOTENCY_FIELDS) }],
    ['inputs', { known: new Set(), each: { known: new Set(INPUT_FIELDS) } }],
  ]),
};

/** The fields of `value` that `layout` does not define, in the mirror shape; undefined when there are none. */
export function unknownFields(value: JsonObject, layout: Layout): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const key of Object.keys(value)) {
    // Most fields are known and hold nothing of their own: one set lookup settles them.
    if (layout.known.has(key) && layout.nested?.has(key) !== true) continue;
    const field = value[key];
    if (field === undefined) continue;
    const child = layout.each ?? layout.nested?.get(key);
    const kept = child === undefined ? field : isObject(field) ? unknownFields(field, child) : undefined;
    if (kept !== undefined) {
      out ??= {};
      setOwn(out, key, kept);
    }
  }
  return out;
}

/**
 * Merges extensions back into a document being written. Returns the paths of the extensions that could not go
 * back where a reader would find them as extensions again (a field the format defines, or an input the operation
 * no longer has): those are lost.
 */
export function placeUnknownFields(target: JsonObject, fields: JsonObject, layout: Layout): string[] {
  const misplaced: string[] = [];
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    if (field === undefined) continue;
    const child = layout.each ?? layout.nested?.get(key);
    if (child === undefined) {
      if (layout.known.has(key) || Object.hasOwn(target, key)) misplaced.push(key);
      else setOwn(target, key, field);
      continue;
    }
    let into = target[key];
    if (into === undefined && child.creatable && isObject(field)) {
      into = {};
      setOwn(target, key, into);
    }
    if (!isObject(field) || !isObject(into)) {
      misplaced.push(key);
      continue;
    }
    for (const path of placeUnknownFields(into, field, child)) misplaced.push(`${key}.${path}`);
  }
  return misplaced;
}
