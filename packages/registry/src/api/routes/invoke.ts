/**
 * POST /agents/{id}/invoke: the gateway path of AIDIP §3.1. The registry calls the agent for the caller (through
 * the client's secure fetcher, so its SSRF rules hold) and records the latency and outcome in the agent's
 * quality signals. It needs a token: an open gateway would let anyone use the registry as a proxy.
 */
import { readJsonBody } from '../body.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { agentNotFound } from './agents.js';

export function invokeHandlers(services: RegistryServices): RouteHandlers<'invokeAgent'> {
  const { store, gateway, metrics, settings, logger } = services;

  return {
    invokeAgent: async (c) => {
      const caller = c.get('caller');
      const id = c.req.param('id');
      const found = await store.agents.getVisible(id, caller);
      if (found === undefined) return agentNotFound(id);
      const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const operation = c.req.query('operation');
      const result = await gateway.invoke(found.record, body.value, c.req.raw.headers, {
        signal: c.req.raw.signal,
        ...(operation === undefined || operation === '' ? {} : { operation }),
      });
      metrics.observeInvocation(id, result.ok, result.latencyMs);
      // A caller's own mistake (bad input, a refused credential) says nothing about the agent.
      const counts = result.ok || result.failure === undefined || result.failure === 'agent';
      if (counts) {
        try {
          await store.quality.addInvocation(id, result.latencyMs, result.ok);
        } catch (error) {
          // The caller's answer does not depend on the bookkeeping.
          logger.warn({ err: error, agent: id }, 'could not record an invocation');
        }
      }
      return result.response;
    },
  };
}
