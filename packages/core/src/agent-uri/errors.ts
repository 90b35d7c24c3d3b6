/** The error `parseAgentUri` and `formatAgentUri` throw: which part of the URI is wrong, where, and why. */
import { AgentryError, type AgentryErrorCode } from '../protocol/errors.js';

/** The part of an agent URI an error is about (RFC 3986 component names, plus the draft's `+protocol`). */
export type AgentUriPart =
  | 'scheme'
  | 'protocol'
  | 'authority'
  | 'userinfo'
  | 'host'
  | 'port'
  | 'path'
  | 'query'
  | 'fragment';

export class AgentUriError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
  override readonly name = 'AgentUriError';

  constructor(
    /** A sentence for a person: what is wrong, at which offset, and how to fix it when that is clear. */
    message: string,
    readonly part: AgentUriPart,
    /** Zero-based offset into `input` of the first offending character. */
    readonly offset: number,
    /** The text that was parsed. */
    readonly input: string,
  ) {
    super(message);
  }
}

/** Describes a character for an error message: `' ' (U+0020)`. */
export function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  const printable = code > 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f);
  return printable ? `'${char}' (U+${hex})` : `U+${hex}`;
}
