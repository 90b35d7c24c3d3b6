/**
 * WoA `rest` transport (WoA §4.3.1, §5): POST the envelope `{agent, operation, input}` as JSON to `base` +
 * `invoke_path`, with `{agent_id}` replaced by the agent's id. The answer is the output itself.
 */
import type { WoaRestBinding } from '@agentry/core';
import { encodeUriComponentSafe, trimTrailingSlash } from '@agentry/core';
import { fetcherSend, httpExchange } from '../http/exchange.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';

interface UrlMemo {
  base: string;
  invokePath: string;
  urls: Map<string, string>;
}

/** Invocation URLs already built, per binding object and agent id; rebuilt if the binding's base or path change. */
const invokeUrls = new WeakMap<WoaRestBinding, UrlMemo>();

/** The invocation URL of a WoA REST binding for `agentId`. */
export function woaInvokeUrl(binding: WoaRestBinding, agentId: string): string {
  let memo = invokeUrls.get(binding);
  if (memo === undefined || memo.base !== binding.base || memo.invokePath !== binding.invokePath) {
    memo = { base: binding.base, invokePath: binding.invokePath, urls: new Map() };
    invokeUrls.set(binding, memo);
  }
  const known = memo.urls.get(agentId);
  if (known !== undefined) return known;
  const path = binding.invokePath.replaceAll('{agent_id}', encodeUriComponentSafe(agentId));
  // "Concatenates": a base ending in "/" must not double the path's leading slash.
  const url = trimTrailingSlash(binding.base) + path;
  if (memo.urls.size >= 256) memo.urls.clear();
  memo.urls.set(agentId, url);
  return url;
}

const JSON_CONTENT_TYPE: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
});

export const woaRestTransport: BindingTransport<WoaRestBinding> = {
  kind: 'woa-rest',
  call(ctx: CallContext<WoaRestBinding>): Promise<RawResult> {
    const id = ctx.agent.id;
    return httpExchange(
      fetcherSend(ctx.fetcher, ctx),
      {
        url: woaInvokeUrl(ctx.binding, id),
        method: 'POST',
        headers: JSON_CONTENT_TYPE,
        body: JSON.stringify({ agent: id, operation: ctx.operation, input: ctx.input }),
      },
      ctx,
    );
  },
};
