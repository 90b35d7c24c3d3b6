/**
 * The governance rule for human confirmation (AWP §9: `destructive` — the agent SHOULD confirm; `irreversible` — it
 * MUST confirm; `requires_human_confirmation`), shared by the client, which refuses to send such a call without
 * `confirm: true`, and the host, which answers 428 to a call without `X-Agent-Confirmation: true`.
 */
import type { Operation } from '../model/agent.js';

export type ConfirmationReason =
  | 'sensitivity: destructive'
  | 'sensitivity: irreversible'
  | 'requiresConfirmation';

/** Why the operation needs a person's confirmation; empty when it needs none (or is not known). */
export function confirmationReasons(op: Operation | undefined): ConfirmationReason[] {
  const reasons: ConfirmationReason[] = [];
  if (op?.sensitivity === 'destructive') reasons.push('sensitivity: destructive');
  if (op?.sensitivity === 'irreversible') reasons.push('sensitivity: irreversible');
  if (op?.requiresConfirmation === true) reasons.push('requiresConfirmation');
  return reasons;
}

/** Whether running the operation cannot be undone (`sensitivity: irreversible` or `reversible: false`). */
export function isIrreversible(op: Operation | undefined): boolean {
  return op?.sensitivity === 'irreversible' || op?.reversible === false;
}

/**
 * Whether a confirmation header's value confirms. Only `true` (any case, surrounding space ignored) does: a
 * confirmation gates consequential actions, so it is one unambiguous token, and `1`, `yes` or an empty value are not.
 */
export function isConfirmationValue(value: string | null | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
