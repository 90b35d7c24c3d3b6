/**
 * Human confirmation (AWP §9: `destructive` — the agent SHOULD confirm; `irreversible` — it MUST confirm;
 * `requires_human_confirmation`). The host refuses such an operation with 428 Precondition Required unless the
 * call says a person confirmed it: the header `X-Agent-Confirmation: true`, which our client sends for
 * `confirm: true` (transports without headers carry the same flag in their envelope, and the host maps it here).
 *
 * Only `true` (any case) confirms. A confirmation gates consequential actions, so it is one unambiguous token:
 * `1`, `yes` or an empty value are refused, with a detail that says what to send.
 */
import {
  CONFIRMATION_HEADER,
  confirmationReasons,
  isConfirmationValue,
  isIrreversible,
  type Operation,
} from '@agentry/core';
import type { Problem } from '../errors.js';
import { policyProblem } from './problems.js';

export { CONFIRMATION_HEADER, type ConfirmationReason, confirmationReasons } from '@agentry/core';

/** Whether the headers carry the confirmation. */
export function isConfirmed(headers: Headers): boolean {
  return isConfirmationValue(headers.get(CONFIRMATION_HEADER));
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
  const irreversible = isIrreversible(op);
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
    code: 'ConfirmationRequired',
    detail,
    extensions: { reasons, confirmationHeader: CONFIRMATION_HEADER },
  });
}
