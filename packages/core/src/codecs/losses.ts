/**
 * Loss reports from a declaration of what a format carries. Each codec lists the canonical paths it can represent;
 * every field an agent sets outside that list is reported, in the same paths `lostFields` uses, so that the
 * round-trip tests can check a report is exact.
 */
import type { Agent, Binding, Operation } from '../model/agent.js';
import type { Loss } from './codec.js';

export interface CarrySpec {
  /**
   * Agent-level paths carried: a top-level key (`version`) carries the whole field; `surface.entities`,
   * `auth.schemes`, `status.state`, `extensions.woa` carry one part of a nested field.
   */
  agent: readonly string[];
  /** Operation fields carried (`description`, `input`, `extensions.td`, ...). */
  operation: readonly string[];
  /** Binding kinds carried verbatim. */
  bindings: readonly Binding['kind'][];
}

export interface CompiledCarrySpec {
  agent: ReadonlySet<string>;
  operation: ReadonlySet<string>;
  bindings: ReadonlySet<string>;
}

export function compileCarrySpec(spec: CarrySpec): CompiledCarrySpec {
  return { agent: new Set(spec.agent), operation: new Set(spec.operation), bindings: new Set(spec.bindings) };
}

const NESTED = new Set(['surface', 'auth', 'status', 'extensions']);
const ALWAYS_CARRIED = new Set(['operations', 'bindings', 'provenance']);

/** The losses of converting `agent` to a format that carries `spec`, with `formatTitle` in messages. */
export function lossesFor(agent: Agent, spec: CompiledCarrySpec, formatTitle: string): Loss[] {
  const losses: Loss[] = [];
  const lose = (field: string): void => {
    losses.push({ agent: agent.id, field, message: `${formatTitle} cannot carry ${field}.` });
  };
  for (const [key, value] of Object.entries(agent)) {
    if (value === undefined || ALWAYS_CARRIED.has(key) || spec.agent.has(key)) continue;
    if (NESTED.has(key) && typeof value === 'object' && value !== null) {
      for (const [sub, subValue] of Object.entries(value)) {
        if (subValue !== undefined && !spec.agent.has(`${key}.${sub}`)) lose(`${key}.${sub}`);
      }
    } else {
      lose(key);
    }
  }
  for (const op of agent.operations) {
    for (const field of operationLosses(op, spec)) lose(`operations[${op.name}].${field}`);
  }
  const lostKinds = new Set(agent.bindings.map((b) => b.kind).filter((kind) => !spec.bindings.has(kind)));
  for (const kind of lostKinds) lose(`bindings.${kind}`);
  return losses;
}

function operationLosses(op: Operation, spec: CompiledCarrySpec): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(op)) {
    if (value === undefined || key === 'name' || spec.operation.has(key)) continue;
    if (key === 'extensions' && typeof value === 'object' && value !== null) {
      for (const ns of Object.keys(value))
        if (!spec.operation.has(`extensions.${ns}`)) out.push(`extensions.${ns}`);
    } else {
      out.push(key);
    }
  }
  return out;
}
