/** Choosing what to run: the operation (by name, or the only one) and a binding Agentry can call it through. */
import type { Agent, Binding, Operation } from '@agentry/core';
import { chooseBinding } from '../resolve/bindings.js';
import { isSupported, unsupportedTransport } from './bindings/registry.js';
import { contextDetails } from './error-mapping.js';
import { NoBindingError, OperationNotFoundError } from './errors.js';

/** WoA §5: the operation implied when an agent defines none is named `default`. */
export const DEFAULT_OPERATION = 'default';

export interface SelectedOperation {
  name: string;
  /** The operation's description; absent for agents that describe no operations (fallback resolution). */
  spec?: Operation;
}

export function selectOperation(agent: Agent, requested: string | undefined): SelectedOperation {
  const operations = agent.operations;
  const names = operations.map((op) => op.name);
  if (requested !== undefined) {
    const spec = operations.find((op) => op.name === requested);
    if (spec !== undefined) return { name: requested, spec };
    if (operations.length === 0) return { name: requested };
    throw new OperationNotFoundError(
      `Agent "${agent.id}" has no operation "${requested}". It has: ${names.join(', ')}.`,
      { agent: agent.id, operation: requested },
      names,
    );
  }
  if (operations.length === 1) return { name: operations[0]!.name, spec: operations[0]! };
  const fallback = operations.find((op) => op.name === DEFAULT_OPERATION);
  if (fallback !== undefined) return { name: DEFAULT_OPERATION, spec: fallback };
  if (operations.length === 0) return { name: DEFAULT_OPERATION };
  throw new OperationNotFoundError(
    `Agent "${agent.id}" has ${operations.length} operations; say which to run with the operation option (CLI: --operation): ${names.join(', ')}.`,
    { agent: agent.id },
    names,
  );
}

function serves(binding: Binding, operation: string): boolean {
  return binding.operations === undefined || binding.operations.includes(operation);
}

/**
 * The binding to call `operation` through: the preferred one (the caller's, or resolution's choice) when it serves
 * the operation and Agentry speaks it, else the agent's best (in resolution's order) that does.
 */
export function selectBinding(agent: Agent, operation: string, preferred: Binding | undefined): Binding {
  if (preferred !== undefined && serves(preferred, operation)) {
    if (isSupported(preferred)) return preferred;
  }
  // One binding that serves the operation and is spoken: it is the choice (every kind spoken is ranked).
  const only = agent.bindings.length === 1 ? agent.bindings[0]! : undefined;
  if (only !== undefined && serves(only, operation) && isSupported(only)) return only;
  const candidates = agent.bindings.filter((binding) => serves(binding, operation));
  // Among those Agentry speaks, resolution's order of preference (WoA REST, HTTP, MCP over HTTP, … stdio last).
  const usable = chooseBinding({ ...agent, bindings: candidates.filter(isSupported) }, operation);
  if (usable !== undefined) return usable;
  const ctx = { agent, operation };
  const unusable =
    preferred !== undefined && serves(preferred, operation) ? [preferred, ...candidates] : candidates;
  if (unusable.length > 0) throw unsupportedTransport(unusable, ctx);
  throw new NoBindingError(
    `Agent "${agent.id}" describes no way to call operation "${operation}": it has no binding${agent.bindings.length > 0 ? ' serving that operation' : ''}.`,
    contextDetails(ctx),
  );
}
