/** Errors `resolve` throws. Everything it finds wrong along the way (missing documents, bad JSON) is an issue instead. */
import { AgentryError, type AgentryErrorCode, type AgentUriError, type AgentUriPart } from '@agentry/core';

/** The target is neither an agent URI, nor an http(s) URL or origin. */
export class InvalidTargetError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
  override readonly name = 'InvalidTargetError';
  /** For an agent URI that does not parse: the part that is wrong (the cause is the `AgentUriError`). */
  readonly part?: AgentUriPart;

  constructor(
    message: string,
    readonly target: string,
    cause?: AgentUriError,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    if (cause !== undefined) this.part = cause.part;
  }
}

/** A static resolution map file that cannot be used. */
export class StaticMapError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
  override readonly name = 'StaticMapError';

  constructor(
    message: string,
    readonly file: string,
    /** The key of the offending entry, when one entry is at fault. */
    readonly key?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
