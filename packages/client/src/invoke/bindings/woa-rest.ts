/**
 * WoA `rest` transport (WoA §4.3.1, §5): POST the envelope `{agent, operation, input}` as JSON to `base` +
 * `invoke_path`, with `{agent_id}` replaced by the agent's id. The answer is the output itself.
 */
import type { WoaRestBinding } from '@agentry/core';
import { fetcherSend, httpExchange } from '../http/exchange.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';

/** The invocation URL of a WoA REST binding for `agentId`. */
export function woaInvokeUrl(binding: WoaRestBinding, agentId: string): string {
  const path = binding.invokePath.replaceAll('{agent_id}', encodeURIComponent(agentId));
  // "Concatenates": a base ending in "/" must not double the path's leading slash.
  return binding.base.replace(/\/+$/, '') + path;
}

export const woaRestTransport: BindingTransport<WoaRestBinding> = {
  kind: 'woa-rest',
  call(ctx: CallContext<WoaRestBinding>): Promise<RawResult> {
    const url = woaInvokeUrl(ctx.binding, ctx.agent.id);
    const envelope = { agent: ctx.agent.id, operation: ctx.operation, input: ctx.input };
    return httpExchange(
      fetcherSend(ctx.fetcher, ctx),
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope),
      },
      ctx,
    );
  },
};
