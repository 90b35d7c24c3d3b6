/**
 * A plain HTTP endpoint taking the raw input: AWP actions (`endpoint` + `method`), AIDIP endpoints (POST), TD
 * action forms (method from `htv:methodName`, POST by default for `invokeaction`, as node-wot calls them — the TD
 * codec has already worked the method out), and agent:// §6.2's fallback. GET sends the input as query
 * parameters; every other method sends it as the body, in the form's `contentType` (JSON by default), with the
 * operation named beside the input's fields when the endpoint serves several (AIDIP §5.1).
 */
import type { HttpBinding, JsonValue } from '@agentry/core';
import { contextDetails } from '../error-mapping.js';
import { InvalidInputError } from '../errors.js';
import { encodeBody, InputEncodingError, queryFromInput } from '../http/encode.js';
import { fetcherSend, type HttpRequest, httpExchange, withQuery } from '../http/exchange.js';
import { isObject } from '../json.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';

/** The request an HTTP binding makes for `ctx.input`. */
export function httpRequestFor(ctx: CallContext<HttpBinding>): HttpRequest {
  const { binding, input } = ctx;
  try {
    if (binding.method === 'GET') {
      return { url: withQuery(binding.url, queryFromInput(input)), method: 'GET' };
    }
    const { body, contentType } = encodeBody(withOperationNamed(ctx), binding.contentType);
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

/**
 * AIDIP §5.1: one endpoint serving several operations learns which is called from an `operation` member beside the
 * input's fields. Added to an object input that has no such member, when an AIDIP description's own binding serves
 * every operation. Other formats' endpoints take the raw input as their specs say (an agent:// descriptor's endpoint
 * would see an unknown member), and an endpoint resolution made up, such as an `agent+https://` URL, is called as
 * it is.
 */
function withOperationNamed(ctx: CallContext<HttpBinding>): JsonValue {
  const { binding, input, agent, operation } = ctx;
  const servesSeveral =
    agent.provenance?.sourceFormat === 'aidip' &&
    binding.operations === undefined &&
    agent.operations.length > 1 &&
    agent.bindings.includes(binding);
  if (!servesSeveral || !isObject(input) || Object.hasOwn(input, 'operation')) return input;
  return { ...input, operation };
}

export const httpTransport: BindingTransport<HttpBinding> = {
  kind: 'http',
  call(ctx: CallContext<HttpBinding>): Promise<RawResult> {
    return httpExchange(fetcherSend(ctx.fetcher, ctx), httpRequestFor(ctx), ctx);
  },
};
