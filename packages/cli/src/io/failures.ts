/** Turns the client's typed errors into messages a person can act on, with the exit status to use. */
import { AgentError, FetchRefusedError, InvalidTargetError } from '@agentry/client';
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

export function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof InvalidTargetError) throw new UsageError(error.message);
  const refused = findCause(error, FetchRefusedError);
  if (refused) {
    const hint = refused.allowedBy ? ` ${refused.allowedBy} allows it, for local development.` : '';
    return { message: `Refused: ${refused.message}.${hint}`.replace('..', '.'), exitCode: EXIT.invalid };
  }
  if (error instanceof AgentError) {
    const lines = [`${error.name}: ${error.message}`];
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
