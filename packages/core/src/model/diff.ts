/**
 * Structural comparison of canonical agents, field by field. Loss reports, round-trip tests and the registry's
 * change history all speak in these paths: `version`, `surface.entities`, `operations[search].rateLimit`,
 * `bindings.mcp`, `extensions.woa`.
 */
import { JsonValueSet, jsonEqual } from '../json/values.js';
import type { Agent, Binding, Operation } from './agent.js';

/** Agent fields compared one level deeper, because formats carry parts of them. */
const NESTED_AGENT_FIELDS = new Set(['surface', 'auth', 'status', 'extensions']);
const SKIPPED_AGENT_FIELDS = new Set(['operations', 'bindings', 'provenance']);

/**
 * The canonical paths of `before` whose values are absent or different in `after`. Fields only `after` has are not
 * reported: a conversion may add defaults, but must say what it drops or changes.
 */
export function lostFields(before: Agent, after: Agent | undefined): string[] {
  if (after === undefined) return ['*'];
  const lost: string[] = [];
  for (const key of Object.keys(before) as Array<keyof Agent>) {
    if (SKIPPED_AGENT_FIELDS.has(key)) continue;
    const a = before[key];
    const b = after[key];
    if (a === undefined) continue;
    if (NESTED_AGENT_FIELDS.has(key) && typeof a === 'object' && a !== null) {
      const bObject = (typeof b === 'object' && b !== null ? b : {}) as Record<string, unknown>;
      for (const [sub, value] of Object.entries(a)) {
        if (value !== undefined && !jsonEqual(value, bObject[sub])) lost.push(`${key}.${sub}`);
      }
    } else if (!jsonEqual(a, b)) {
      lost.push(key);
    }
  }
  const afterOps = new Map(after.operations.map((op) => [op.name, op]));
  for (const op of before.operations) {
    const other = afterOps.get(op.name);
    if (other === undefined) {
      lost.push(`operations[${op.name}]`);
      continue;
    }
    for (const field of lostOperationFields(op, other)) lost.push(`operations[${op.name}].${field}`);
  }
  for (const kind of lostBindingKinds(before.bindings, after.bindings)) lost.push(`bindings.${kind}`);
  return lost;
}

function lostOperationFields(before: Operation, after: Operation): string[] {
  const lost: string[] = [];
  for (const key of Object.keys(before) as Array<keyof Operation>) {
    const a = before[key];
    if (a === undefined) continue;
    if (key === 'extensions' && typeof a === 'object' && a !== null) {
      for (const [ns, value] of Object.entries(a)) {
        if (!jsonEqual(value, after.extensions?.[ns])) lost.push(`extensions.${ns}`);
      }
    } else if (!jsonEqual(a, after[key])) {
      lost.push(key);
    }
  }
  return lost;
}

/** Kinds of the bindings in `before` that have no structurally equal binding in `after`. */
function lostBindingKinds(before: readonly Binding[], after: readonly Binding[]): string[] {
  const kinds = new Set<string>();
  const kept = new JsonValueSet(after);
  for (const binding of before) {
    if (!kept.has(binding)) kinds.add(binding.kind);
  }
  return [...kinds];
}
