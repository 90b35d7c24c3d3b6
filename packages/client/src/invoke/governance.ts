/**
 * AWP governance (§9–§12): dependencies make a plan (the prerequisite operations, in an order that runs each
 * before those needing it) for the caller to inspect; destructive, irreversible and confirmation-requiring
 * operations refuse to run without `confirm: true`; operations the agent reports degraded (`agent_status`) warn.
 */
import { type Agent, confirmationReasons, isIrreversible, type Operation } from '@agentry/core';
import { contextDetails, type ErrorContext } from './error-mapping.js';
import { ConfirmationRequiredError, OperationNotFoundError } from './errors.js';
import type { InvokeWarning } from './types.js';

export interface InvocationPlan {
  operation: string;
  /** Operations to run first, in order: every operation comes after the ones it depends on. */
  prerequisites: string[];
  /** Dependency cycles found (each a list of names, first repeated at the end); the plan breaks them. */
  cycles: string[][];
  /** Dependencies naming operations the agent does not describe. */
  unknown: string[];
  /** Whether running `operation` needs `confirm: true`, and why. */
  requiresConfirmation: boolean;
  confirmationReasons: string[];
  /** Warnings about the operation's current state (degraded, agent not operational). */
  warnings: InvokeWarning[];
}

export function planInvocation(agent: Agent, operation: string): InvocationPlan {
  const byName = new Map(agent.operations.map((op) => [op.name, op]));
  const spec = byName.get(operation);
  if (spec === undefined) {
    const available = agent.operations.map((op) => op.name);
    throw new OperationNotFoundError(
      `Agent "${agent.id}" has no operation "${operation}" (it has: ${available.join(', ') || 'none'}).`,
      { agent: agent.id, operation },
      available,
    );
  }
  const order: string[] = [];
  const cycles: string[][] = [];
  const unknown = new Set<string>();
  const done = new Set<string>();
  const path: string[] = [];

  // Depth-first, post-order: an operation is listed once all it depends on are. `path` detects cycles.
  const visit = (name: string): void => {
    if (done.has(name)) return;
    const onPath = path.indexOf(name);
    if (onPath !== -1) {
      cycles.push([...path.slice(onPath), name]);
      return;
    }
    const op = byName.get(name);
    if (op === undefined) {
      unknown.add(name);
      return;
    }
    path.push(name);
    for (const dependency of op.dependsOn ?? []) visit(dependency);
    path.pop();
    done.add(name);
    order.push(name);
  };
  visit(operation);

  const reasons = confirmationReasons(spec);
  const warnings = stateWarnings(agent, operation);
  for (const cycle of cycles) {
    warnings.push({
      code: 'plan.cycle',
      message: `The dependencies of "${operation}" form a cycle (${cycle.join(' → ')}); the plan breaks it.`,
    });
  }
  for (const name of unknown) {
    warnings.push({
      code: 'plan.unknown-dependency',
      message: `"${operation}" depends on "${name}", which the agent does not describe.`,
    });
  }
  return {
    operation,
    prerequisites: order.filter((name) => name !== operation),
    cycles,
    unknown: [...unknown],
    requiresConfirmation: reasons.length > 0,
    confirmationReasons: reasons,
    warnings,
  };
}

/** Why an operation needs a person's confirmation: the rule the host applies too (core's protocol/confirmation). */
export { confirmationReasons } from '@agentry/core';

/** Throws `ConfirmationRequiredError` unless the operation needs no confirmation or the caller confirmed. */
export function assertConfirmed(
  spec: Operation | undefined,
  confirm: boolean | undefined,
  ctx: ErrorContext,
): void {
  const reasons = confirmationReasons(spec);
  if (reasons.length === 0 || confirm === true) return;
  const who = ctx.agent === undefined ? '' : ` of agent "${ctx.agent.id}"`;
  const undo = isIrreversible(spec) ? ' It cannot be undone.' : '';
  const summary = `Operation "${ctx.operation}"${who} needs confirmation before it runs (${reasons.join('; ')}).${undo}`;
  throw new ConfirmationRequiredError(
    `${summary} Ask the person on whose behalf you act, then call again with confirm: true (agentry invoke: --yes).`,
    { ...contextDetails(ctx), fix: { option: 'confirm', summary } },
    reasons,
  );
}

/** Warnings from the agent's status: the operation is degraded, or the agent says it is not operational. */
export function stateWarnings(agent: Agent, operation: string): InvokeWarning[] {
  const warnings: InvokeWarning[] = [];
  const status = agent.status;
  if (status?.operational === false) {
    warnings.push({
      code: 'agent.not-operational',
      message: `Agent "${agent.id}" reports that it is not operational${status.statusEndpoint ? ` (status: ${status.statusEndpoint})` : ''}; the call may fail.`,
    });
  }
  if (status?.degradedOperations?.includes(operation)) {
    warnings.push({
      code: 'operation.degraded',
      message: `Agent "${agent.id}" reports operation "${operation}" as degraded; expect slow or failed calls${status.statusEndpoint ? ` (status: ${status.statusEndpoint})` : ''}.`,
    });
  }
  return warnings;
}
