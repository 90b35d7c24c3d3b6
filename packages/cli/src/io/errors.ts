/** Errors the CLI reports without a stack trace. */
import { AgentryError, type AgentryErrorCode } from '@agentry/core';

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** A problem with how the command was called or with reading its input (exit 2). */
export class UsageError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
  override readonly name = 'UsageError';
}
