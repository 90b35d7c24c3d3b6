/**
 * POST /agents/{id}/invoke: the gateway path of AIDIP §3.1. The registry calls the agent for the caller (through
 * the client's secure fetcher, so its SSRF rules hold) and records the latency and outcome in the agent's
 * quality signals: of a relayed stream, once it has ended (a stream that breaks off or ends with an error is a
 * failure, however well it started). It needs a token: an open gateway would let anyone use the registry as a
 * proxy.
 */
import { readJsonBody } from '../body.js';
import type { InvocationOutcome, RegistryServices, RouteHandlers } from '../context.js';
import { agentNotFound } from './agents.js';

export function invokeHandlers(services: RegistryServices): RouteHandlers<'invokeAgent'> {
  const { store, gateway, metrics, settings, logger } = services;

  /** Counts the call in the metrics and, unless the caller was at fault, in the agent's quality. Never throws. */
  const record = async (id: string, outcome: InvocationOutcome): Promise<void> => {
    metrics.observeInvocation(id, outcome.ok, outcome.latencyMs);
    // A caller's own mistake (bad input, a refused credential) says nothing about the agent.
    const counts = outcome.ok || outcome.failure === undefined || outcome.failure === 'agent';
    if (!counts) return;
    try {
      await store.quality.addInvocation(id, outcome.latencyMs, outcome.ok);
    } catch (error) {
      // The caller's answer does not depend on the bookkeeping.
      logger.warn({ err: error, agent: id }, 'could not record an invocation');
    }
  };

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
      if (result.ended === undefined) {
        await record(id, result);
        return result.response;
      }
      return closedAfter(
        result.response,
        result.ended.then((outcome) => record(id, outcome)),
      );
    },
  };
}

/**
 * The relayed stream with its close held until `recorded` settles, so a caller that has read a stream to its end
 * finds the call counted. The recording runs whether the stream is read to the end or cancelled.
 */
function closedAfter(response: Response, recorded: Promise<void>): Response {
  if (response.body === null) return response;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({ flush: () => recorded }),
  );
  return new Response(body, { status: response.status, headers: response.headers });
}
