/**
 * Which agent a description is about, whatever format it came in: the keys two descriptions of one agent share.
 * A registry keeps one entry per agent by these keys; a resolver counts an agent served in several formats once.
 *
 * - **Strong keys** say "this agent" on their own: the `agent://` URI the description declares (authority and
 *   first path segment), the agent's id at each origin its endpoints are on (`id https://api.example.com
 *   summarizer`), and, for a packaged MCP server, its package. Two publishers never hold the same strong key.
 * - **Weak keys** are the agent's name at each origin its endpoints are on. Formats name one agent differently (a
 *   WoA document says `summarizer`, its A2A card is read as `document-summarizer`), so the name ties them together,
 *   but only where the same party speaks for both descriptions: one publisher, or the origin itself.
 *
 * Origins are the endpoints' scheme, host and port, with WebSocket schemes read as their HTTP counterparts (one
 * host serving `wss://` and `https://` is one origin). Descriptions without any network endpoint and no declared
 * URI have no keys: nothing says where they live, so nothing says two of them are one agent.
 */
import { tryParseAgentUri } from '../agent-uri/parse.js';
import type { Agent } from './agent.js';

export interface IdentityKeys {
  strong: string[];
  weak: string[];
}

export function identityKeys(agent: Agent): IdentityKeys {
  const origins = endpointOrigins(agent);
  const strong: string[] = [];
  const declared = declaredUri(agent.url);
  if (declared !== undefined) strong.push(declared);
  const id = agent.id.trim().toLowerCase();
  if (id !== '') for (const origin of origins) strong.push(`id ${origin} ${id}`);
  for (const binding of agent.bindings) {
    if (binding.kind === 'mcp' && binding.package !== undefined) {
      strong.push(`package ${binding.package.registryType} ${binding.package.identifier}`);
    }
  }
  const name = agent.name.trim().toLowerCase().replace(/\s+/g, ' ');
  const weak = name === '' ? [] : origins.map((origin) => `name ${origin} ${name}`);
  return { strong: [...new Set(strong)], weak };
}

/** Whether two descriptions share a key: the same agent, as far as their keys tell. */
export function sameIdentity(a: IdentityKeys, b: IdentityKeys): boolean {
  const keys = new Set([...a.strong, ...a.weak]);
  return [...b.strong, ...b.weak].some((key) => keys.has(key));
}

/** `agent://authority/first-segment`, lower-cased authority, for a declared plain `agent://` URI. */
function declaredUri(url: string | undefined): string | undefined {
  if (url === undefined || !/^agent:\/\//i.test(url)) return undefined;
  const parsed = tryParseAgentUri(url);
  if (!parsed.ok) return undefined;
  const { authority, pathSegments } = parsed.uri;
  const host = authority.did === undefined ? authority.host.toLowerCase() : authority.host;
  const port = authority.port === undefined ? '' : `:${authority.port}`;
  const first = pathSegments.find((segment) => segment !== '') ?? '';
  return `agent://${host}${port}/${first}`;
}

/** The origins of the agent's own URL and its network bindings, in order, each once. */
export function endpointOrigins(agent: Agent): string[] {
  const urls: Array<string | undefined> = [agent.url];
  for (const binding of agent.bindings) {
    if (binding.kind === 'woa-rest') urls.push(binding.base);
    else if (binding.kind === 'mcp') urls.push(binding.server);
    else if ('url' in binding) urls.push(binding.url);
  }
  // A set, not a search of the list: a crawled description may name thousands of bindings.
  const origins = new Set<string>();
  for (const url of urls) {
    const origin = httpOrigin(url);
    if (origin !== undefined) origins.add(origin);
  }
  return [...origins];
}

function httpOrigin(text: string | undefined): string | undefined {
  if (text === undefined || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  const scheme = { 'https:': 'https:', 'http:': 'http:', 'wss:': 'https:', 'ws:': 'http:' }[url.protocol];
  if (scheme === undefined || url.hostname === '') return undefined;
  const port = url.port === '' || url.port === defaultPort(scheme) ? '' : `:${url.port}`;
  return `${scheme}//${url.hostname.toLowerCase()}${port}`;
}

function defaultPort(scheme: string): string {
  return scheme === 'https:' ? '443' : '80';
}
