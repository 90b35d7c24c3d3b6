/** Who may call what: each returns the refusal to send, or undefined to go on. */
import type { Caller } from '../records/types.js';
import { problem } from './problems.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="agentry-registry"' };

export function unauthorized(detail: string): Response {
  return problem({ status: 401, code: 'Unauthorized', title: 'Unauthorized', detail, headers: CHALLENGE });
}

export function forbidden(detail: string): Response {
  return problem({ status: 403, code: 'Forbidden', title: 'Forbidden', detail });
}

/** Registering, updating and deleting agents: a publisher or the admin. */
export function requirePublisher(caller: Caller): Response | undefined {
  if (caller.kind === 'anonymous') {
    return unauthorized(
      'Registering and changing agents needs a publisher token: send "Authorization: Bearer <token>".',
    );
  }
  if (caller.kind === 'client')
    return forbidden('A client token cannot register or change agents; use a publisher token.');
  return undefined;
}

/** Feedback and invocation through the gateway: any token. */
export function requireToken(caller: Caller, what: string): Response | undefined {
  if (caller.kind !== 'anonymous') return undefined;
  return unauthorized(`${what} needs a token: send "Authorization: Bearer <token>".`);
}

export function requireAdmin(caller: Caller): Response | undefined {
  if (caller.kind === 'admin') return undefined;
  if (caller.kind === 'anonymous') return unauthorized('This endpoint needs the admin token.');
  return forbidden('This endpoint needs the admin token.');
}
