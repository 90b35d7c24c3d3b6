/**
 * Whether a description may send us to a local endpoint (a unix socket). A description fetched over the network
 * is someone else's text: left unchecked, it could point the caller at a socket such as a container engine's API
 * (the socket form of SSRF). Such descriptions reach sockets only when private-network access is allowed; agents
 * the caller built or named itself (no network provenance) always may.
 */
import type { Agent } from '@agentry/core';
import { contextDetails } from '../error-mapping.js';
import { TransportError } from '../errors.js';
import type { CallContext } from './types.js';

export function assertSocketAllowed(ctx: CallContext, socketPath: string): void {
  if (ctx.fetcher.policy.allowPrivateNetwork === true || !fromNetwork(ctx.agent)) return;
  throw new TransportError(
    `Refused to call unix socket ${socketPath}: agent "${ctx.agent.id}" was described by ${ctx.agent.provenance?.sourceUrl}, and a description fetched from the network may only direct calls to local sockets when private-network access is allowed (allowPrivateNetwork: true, --allow-private-network).`,
    { ...contextDetails(ctx.errors), endpoint: `unix:${socketPath}` },
    'refused',
  );
}

function fromNetwork(agent: Agent): boolean {
  const source = agent.provenance?.sourceUrl;
  return source !== undefined && /^(?:https?|wss?):/i.test(source);
}
