/**
 * Who may call what: the check a route's access (route-table.ts) names, run before its handler. Each check returns
 * the refusal to send, or undefined to go on.
 */
import type { Caller } from '../records/types.js';
import { problem } from './problems.js';
import type { Access } from './route-table.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="agentry-registry"' };

export function unauthorized(detail: string): Response {
  return problem({ status: 401, code: 'Unauthorized', title: 'Unauthorized', detail, headers: CHALLENGE });
}

export function forbidden(detail: string): Response {
  return problem({ status: 403, code: 'Forbidden', title: 'Forbidden', detail });
}

/** The refusal of `caller` by a route's access, or undefined when the caller may go on to its handler. */
export function refusalFor(access: Access, caller: Caller): Response | undefined {
  switch (access.who) {
    case 'anyone':
    case 'owner':
      return undefined;
    case 'token':
      return requireToken(caller, access.doing);
    case 'publisher':
      return requirePublisher(caller);
    case 'operator':
      return requireOperator(caller, access.doing);
    case 'admin':
      return requireAdmin(caller);
  }
}

/** Registering, updating and deleting agents: a publisher or the admin. */
function requirePublisher(caller: Caller): Response | undefined {
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
function requireToken(caller: Caller, what: string): Response | undefined {
  if (caller.kind !== 'anonymous') return undefined;
  return unauthorized(`${what} needs a token: send "Authorization: Bearer <token>".`);
}

/** The crawl queue is for the people who run the registry and publish to it: publishers and the admin. */
function requireOperator(caller: Caller, what: string): Response | undefined {
  if (caller.kind === 'anonymous')
    return unauthorized(`${what} needs a publisher token: send "Authorization: Bearer <token>".`);
  if (caller.kind === 'client') return forbidden(`${what} needs a publisher or admin token.`);
  return undefined;
}

function requireAdmin(caller: Caller): Response | undefined {
  if (caller.kind === 'admin') return undefined;
  if (caller.kind === 'anonymous') return unauthorized('This endpoint needs the admin token.');
  return forbidden('This endpoint needs the admin token.');
}
