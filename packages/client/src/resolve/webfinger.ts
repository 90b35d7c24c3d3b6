/**
 * WebFinger (RFC 7033) as a further resolution step, when `webfinger: true`: `GET
 * <origin>/.well-known/webfinger?resource=<agent URI>` and read the JRD's links with these relations:
 * - `https://w3id.org/agentry/ns#agent-description` (or the registered `describedby`): the URL of a description in
 *   any format Agentry reads;
 * - `https://w3id.org/agentry/ns#agent-endpoint`: an endpoint (https URL, wss URL, or agent+<transport>:// URI).
 * Descriptions are tried first; endpoints make an agent of their own when no description names the agent.
 */
import { AGENTRY_NS, type Binding } from '@agentry/core';
import type { ResolveContext } from './context.js';
import { type Found, findInDescription } from './describe.js';
import { bindingForEndpoint } from './did-web.js';
import { isRecord } from './json.js';

export const WEBFINGER_REL_DESCRIPTION = `${AGENTRY_NS}agent-description`;
export const WEBFINGER_REL_ENDPOINT = `${AGENTRY_NS}agent-endpoint`;
const DESCRIBED_BY = 'describedby';

export function webfingerUrl(origin: string, resource: string): string {
  return `${origin}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
}

export async function findThroughWebfinger(
  ctx: ResolveContext,
  origin: string,
  resource: string,
  names: readonly string[],
  agentId: string,
): Promise<Found | undefined> {
  const url = webfingerUrl(origin, resource);
  // RFC 7033 §4.2: 404 means the server knows nothing about the resource; not a fault.
  const jrd = await ctx.readJson(url, 'webfinger', { speculative: true });
  if (jrd === undefined) return undefined;
  if (!isRecord(jrd) || !Array.isArray(jrd['links'])) {
    ctx.issue(
      'warning',
      'resolve.webfinger.invalid',
      `${url}: a JRD is an object with a "links" array (RFC 7033 §4.4).`,
    );
    return undefined;
  }
  const links = jrd['links'].filter(isRecord).filter((link) => typeof link['href'] === 'string');
  for (const link of links) {
    if (link['rel'] !== WEBFINGER_REL_DESCRIPTION && link['rel'] !== DESCRIBED_BY) continue;
    const found = await findInDescription(ctx, String(link['href']), 'descriptor', names, 'webfinger');
    if (found !== undefined) return found;
  }
  const bindings: Binding[] = [];
  for (const link of links) {
    if (link['rel'] !== WEBFINGER_REL_ENDPOINT) continue;
    const binding = bindingForEndpoint(ctx, String(link['href']), `${url} link`);
    if (binding !== undefined) bindings.push(binding);
  }
  if (bindings.length === 0) return undefined;
  return {
    agent: { id: agentId, name: agentId, description: '', operations: [], bindings, url: resource },
    source: 'webfinger',
    by: 'endpoint',
  };
}
