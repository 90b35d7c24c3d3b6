/** Turns the client's typed errors into messages a person can act on, with the exit status to use. */
import { AgentError, type ErrorFix, FetchRefusedError, InvalidTargetError } from '@agentry/client';
import { EXIT, UsageError } from './errors.js';

/** The first error in a `cause` chain of the given class. */
function findCause<T extends Error>(
  error: unknown,
  type: abstract new (...args: never[]) => T,
): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * The error's message as a CLI user needs it: where the library names its option as the fix (`auth`, `confirm`),
 * the flag instead.
 */
export function cliMessage(error: AgentError): string {
  const { fix } = error;
  if (fix === undefined) return error.message;
  return `${fix.summary} ${flagAdvice(fix)}`;
}

function flagAdvice(fix: ErrorFix): string {
  if (fix.option === 'confirm') return 'Pass --yes to confirm.';
  const kinds = fix.credentials ?? [];
  const flags =
    kinds.length === 1
      ? kinds[0] === 'apiKey'
        ? "the agent's API key with --api-key <key> (or AGENTRY_API_KEY)"
        : 'a bearer token with --bearer <token> (or AGENTRY_BEARER_TOKEN)'
      : `credentials with --bearer <token> ${kinds.length === 0 ? 'or' : 'and/or'} --api-key <key> (or AGENTRY_BEARER_TOKEN, AGENTRY_API_KEY)`;
  return `Pass ${flags}.${fix.agentSays === undefined ? '' : ` The agent says: ${fix.agentSays}`}`;
}

export function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof InvalidTargetError) throw new UsageError(error.message);
  const refused = findCause(error, FetchRefusedError);
  if (refused) {
    const hint = refused.allowedBy ? ` ${refused.allowedBy} allows it, for local development.` : '';
    return { message: `Refused: ${refused.message}.${hint}`.replace('..', '.'), exitCode: EXIT.invalid };
  }
  if (error instanceof AgentError) {
    const lines = [`${error.name}: ${cliMessage(error)}`];
    if (error.pointer) lines.push(`  at input ${error.pointer}`);
    for (const failure of error.failures ?? [])
      lines.push(`  ${failure.pointer || '(input)'}: ${failure.message}`);
    if (error.recovery) lines.push(`  recovery: ${error.recovery}`);
    if (error.retryAfterMs !== undefined)
      lines.push(`  retry after: ${Math.ceil(error.retryAfterMs / 1000)} s`);
    return { message: lines.join('\n'), exitCode: EXIT.invalid };
  }
  throw error;
}
