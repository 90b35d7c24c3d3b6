/**
 * The invocation envelope `{agent, operation, input}` (WoA §5), which Agentry also uses on transports that carry
 * several agents or operations over one endpoint: unix and local sockets (as an HTTP POST body) and WebSockets
 * (with an id and the metadata HTTP would carry in headers). docs/invocation.md describes each.
 */
import type { JsonObject, JsonValue } from '@agentry/core';
import type { CallContext } from './types.js';

export interface Envelope extends JsonObject {
  agent: string;
  operation: string;
  input: JsonValue;
}

export function envelopeOf(ctx: CallContext, agentName: string = ctx.agent.id): Envelope {
  return { agent: agentName, operation: ctx.operation, input: ctx.input };
}

/** The envelope plus the call's metadata, for transports without headers. */
export function envelopeWithMeta(ctx: CallContext, agentName?: string): JsonObject {
  const out: JsonObject = { ...envelopeOf(ctx, agentName) };
  for (const [key, value] of Object.entries(ctx.meta)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
