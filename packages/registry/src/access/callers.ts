/**
 * Who is calling: the bearer token of a request, looked up in the token store. No token is the anonymous
 * caller; a token that is not live (unknown, revoked, malformed) is refused rather than treated as anonymous, so
 * a publisher with a revoked token learns why instead of seeing fewer agents.
 */
import type { Caller } from '../records/types.js';
import type { TokenInfo, TokenStore } from '../store/tokens.js';

export const ANONYMOUS: Caller = Object.freeze({ kind: 'anonymous', groups: [] }) as Caller;

export type Authentication = { ok: true; caller: Caller } | { ok: false; detail: string };

export async function authenticate(
  authorization: string | undefined,
  tokens: TokenStore,
): Promise<Authentication> {
  if (authorization === undefined || authorization.trim() === '') return { ok: true, caller: ANONYMOUS };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  if (match === null) {
    return { ok: false, detail: 'The Authorization header must be "Bearer <token>".' };
  }
  const info = await tokens.authenticate(match[1]!);
  if (info === undefined) return { ok: false, detail: 'The bearer token is not valid: unknown or revoked.' };
  return { ok: true, caller: callerOf(info) };
}

export function callerOf(info: TokenInfo): Caller {
  const caller: Caller = { kind: info.role, tokenId: info.id, groups: [...info.groups] };
  // A publisher token always owns under some name: its publisher, or else its own id.
  const publisher =
    info.role === 'admin'
      ? 'admin'
      : info.role === 'publisher'
        ? (info.publisher ?? info.id)
        : info.publisher;
  if (publisher !== undefined) caller.publisher = publisher;
  return caller;
}

/** The actor recorded in history and audit entries. */
export function actorOf(caller: Caller): string {
  return caller.tokenId ?? 'anonymous';
}
