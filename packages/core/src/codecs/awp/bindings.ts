/**
 * How an action is called: its `endpoint` and `method` (§9), resolved against `https://{domain}`, or the protocol
 * a 0.2 action delegates to with `via` (an entry of the top-level `protocols` object).
 */
import { isObject } from '../../json/values.js';
import type {
  A2aBinding,
  Binding,
  HttpBinding,
  HttpMethod,
  JsonObject,
  McpBinding,
} from '../../model/agent.js';
import { resolveUrl } from '../urls.js';

/*
 * Fast paths: most domains are plain lower-case host names and most endpoints plain paths, for which the URL
 * parser's answer is known without running it (parse speed is a product requirement). Anything unusual (upper
 * case, ports, IDNs, numeric hosts the URL standard reads as IPv4, queries, dot segments) takes the parser.
 */
const PLAIN_HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;
const NUMERIC_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/;
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/** The base relative endpoints resolve against: the origin of `https://{domain}`. */
export function domainBase(domain: string | undefined): string | undefined {
  if (domain === undefined || domain.trim() === '') return undefined;
  if (PLAIN_HOST.test(domain) && !NUMERIC_LABEL.test(domain) && !domain.includes('xn--')) {
    return `https://${domain}`;
  }
  const candidate = domain.includes('://') ? domain : `https://${domain}`;
  return URL.canParse(candidate) ? new URL(candidate).origin : undefined;
}

/** The HTTP binding of an action, or undefined when its endpoint resolves to no absolute URL. */
export function httpBinding(
  action: string,
  endpoint: string,
  method: HttpMethod,
  base: string | undefined,
): HttpBinding | undefined {
  let url: string;
  if (base !== undefined && PLAIN_PATH.test(endpoint) && !DOT_SEGMENT.test(endpoint)) url = base + endpoint;
  else {
    url = resolveUrl(endpoint, base);
    if (!URL.canParse(url)) return undefined;
  }
  return { kind: 'http', url, method, operations: [action] };
}

/** An endpoint as AWP writes it: a path when it is on the file's own domain, else the absolute URL. */
export function endpointFor(url: string, base: string | undefined): string {
  if (base === undefined || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.origin !== base) return url;
  const path = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  // Written as a path only when reading it back gives the very same URL.
  return new URL(path, base).href === url ? path : url;
}

export type ProtocolBinding = { binding: Binding } | { problem: string };

/** The binding of an action delegated with `via` to `protocols[via]` (which the caller checked exists). */
export function protocolBinding(
  action: string,
  via: string,
  protocols: JsonObject,
  base: string | undefined,
): ProtocolBinding {
  const entry = Object.hasOwn(protocols, via) ? protocols[via] : undefined;
  if (!isObject(entry)) return { problem: `protocols.${via} is not an object describing the protocol` };
  if (via !== 'mcp' && via !== 'a2a') {
    return {
      binding: { kind: 'other', protocol: via, config: structuredClone(entry), operations: [action] },
    };
  }
  const endpoint = entry['endpoint'];
  if (typeof endpoint !== 'string' || endpoint.trim() === '') {
    return {
      problem: `protocols.${via} has no "endpoint", so action "${action}" cannot be called through it`,
    };
  }
  const url = resolveUrl(endpoint, base);
  if (via === 'mcp') {
    const binding: McpBinding = { kind: 'mcp', server: url };
    if (typeof entry['transport'] === 'string') binding.transport = entry['transport'];
    binding.operations = [action];
    return { binding };
  }
  const binding: A2aBinding = { kind: 'a2a', url, protocolBinding: 'JSONRPC' };
  if (typeof entry['version'] === 'string') binding.protocolVersion = entry['version'];
  binding.operations = [action];
  return { binding };
}

/** True when `protocols` has an entry named `via`. */
export function declaresProtocol(protocols: JsonObject | undefined, via: string): boolean {
  return protocols !== undefined && Object.hasOwn(protocols, via) && isObject(protocols[via]);
}
