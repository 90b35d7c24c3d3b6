/**
 * A plain HTTP endpoint taking the raw input: AWP actions (`endpoint` + `method`), AIDIP endpoints (POST), TD
 * action forms (method from `htv:methodName`, POST by default for `invokeaction`, as node-wot calls them — the TD
 * codec has already worked the method out), and agent:// §6.2's fallback. GET sends the input as query
 * parameters; every other method sends it as the body, in the form's `contentType` (JSON by default).
 */
import type { HttpBinding } from '@agentry/core';
import { contextDetails } from '../error-mapping.js';
import { InvalidInputError } from '../errors.js';
import { encodeBody, InputEncodingError, queryFromInput } from '../http/encode.js';
import { fetcherSend, type HttpRequest, httpExchange, withQuery } from '../http/exchange.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';

/** The request an HTTP binding makes for `ctx.input`. */
export function httpRequestFor(ctx: CallContext<HttpBinding>): HttpRequest {
  const { binding, input } = ctx;
  try {
    if (binding.method === 'GET') {
      return { url: withQuery(binding.url, queryFromInput(input)), method: 'GET' };
    }
    const { body, contentType } = encodeBody(input, binding.contentType);
    return { url: binding.url, method: binding.method, headers: { 'content-type': contentType }, body };
  } catch (error) {
    if (!(error instanceof InputEncodingError)) throw error;
    throw new InvalidInputError(`${error.message}`, {
      ...contextDetails(ctx.errors),
      pointer: '',
      cause: error,
    });
  }
}

export const httpTransport: BindingTransport<HttpBinding> = {
  kind: 'http',
  call(ctx: CallContext<HttpBinding>): Promise<RawResult> {
    return httpExchange(fetcherSend(ctx.fetcher, ctx), httpRequestFor(ctx), ctx);
  },
};
