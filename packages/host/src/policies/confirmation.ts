/**
 * Human confirmation (AWP §9: `destructive` — the agent SHOULD confirm; `irreversible` — it MUST confirm;
 * `requires_human_confirmation`). The host refuses such an operation with 428 Precondition Required unless the
 * call says a person confirmed it: the header `X-Agent-Confirmation: true`, which our client sends for
 * `confirm: true` (transports without headers carry the same flag in their envelope, and the host maps it here).
 *
 * Only `true` (any case) confirms. A confirmation gates consequential actions, so it is one unambiguous token:
 * `1`, `yes` or an empty value are refused, with a detail that says what to send.
 */
import type { Operation } from '@agentry/core';
import type { Problem } from '../runtime/types.js';
import { policyProblem } from './problems.js';

export const CONFIRMATION_HEADER = 'X-Agent-Confirmation';

export type ConfirmationReason =
  | 'sensitivity: destructive'
  | 'sensitivity: irreversible'
  | 'requiresConfirmation';

/** Why the operation needs a person's confirmation; empty when it needs none. */
export function confirmationReasons(op: Operation): ConfirmationReason[] {
  const reasons: ConfirmationReason[] = [];
  if (op.sensitivity === 'destructive') reasons.push('sensitivity: destructive');
  if (op.sensitivity === 'irreversible') reasons.push('sensitivity: irreversible');
  if (op.requiresConfirmation === true) reasons.push('requiresConfirmation');
  return reasons;
}

/** Whether the headers carry the confirmation. */
export function isConfirmed(headers: Headers): boolean {
  return headers.get(CONFIRMATION_HEADER)?.trim().toLowerCase() === 'true';
}

/** The 428 problem for an operation that needs confirmation and did not get it; undefined when it may run. */
export function confirmationProblem(op: Operation, headers: Headers): Problem | undefined {
  // Checked on every call; most operations need no confirmation, and are told so without a list being made.
  if (
    op.sensitivity !== 'destructive' &&
    op.sensitivity !== 'irreversible' &&
    op.requiresConfirmation !== true
  ) {
    return undefined;
  }
  const reasons = confirmationReasons(op);
  if (reasons.length === 0 || isConfirmed(headers)) return undefined;
  const given = headers.get(CONFIRMATION_HEADER);
  const irreversible = op.sensitivity === 'irreversible' || op.reversible === false;
  const detail = [
    `Operation "${op.name}" needs a person's confirmation before it runs (${reasons.join('; ')}).`,
    irreversible ? 'It cannot be undone.' : '',
    given === null ? '' : `The ${CONFIRMATION_HEADER} value ${JSON.stringify(given)} does not confirm.`,
    `Ask the person you act for; once they agree, repeat the request with the header "${CONFIRMATION_HEADER}: true"`,
    '(@agentry/client: confirm: true; agentry invoke: --yes).',
  ]
    .filter((part) => part !== '')
    .join(' ');
  return policyProblem({
    status: 428,
    title: 'Confirmation required',
    code: 'confirmation_required',
    detail,
    extensions: { reasons, confirmationHeader: CONFIRMATION_HEADER },
  });
}
