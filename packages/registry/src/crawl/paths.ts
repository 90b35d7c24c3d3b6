/**
 * The discovery documents an origin may serve (DESIGN.md §3), fetched on every crawl. What each one is, is decided
 * by its keys, never by its path: several formats claim the same well-known paths.
 */

export interface DiscoveryPath {
  path: string;
  /** Index documents list other documents (an AI Catalog, a WoT directory) rather than describe agents. */
  index?: 'ai-catalog' | 'wot-directory';
}

export const DISCOVERY_PATHS: readonly DiscoveryPath[] = [
  { path: '/.well-known/woa.json' },
  { path: '/agent.json' },
  { path: '/.well-known/agent-card.json' },
  { path: '/.well-known/agent.json' },
  { path: '/.well-known/agents.json' },
  { path: '/.well-known/ai-catalog.json', index: 'ai-catalog' },
  { path: '/.well-known/wot', index: 'wot-directory' },
  { path: '/capabilities' },
];

/** Fetched only when no other document describes an agent: the input of a synthetic AWP surface. */
export const OPENAPI_PATH = '/openapi.json';

/** Linked documents followed per origin and crawl, so that a hostile index cannot fan a crawl out. */
export const MAX_LINKED_DOCUMENTS = 64;

/** How deep AI Catalogs nest (a catalog entry that is itself a catalog). */
export const MAX_CATALOG_DEPTH = 2;
