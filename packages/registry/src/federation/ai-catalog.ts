/**
 * This registry's public agents as an AI Catalog, served at `/.well-known/ai-catalog.json`
 * (`application/ai-catalog+json`): `{specVersion: "1.0", host: {displayName, identifier}, entries: [...]}`, one
 * entry per public agent (no access groups, not retired) linking to its A2A card (`GET /agents/{id}?format=a2a`),
 * the most widely read agent format, with the fields a catalog reader can filter on without fetching it. The
 * crawler reads the same shape (crawl/index-documents.ts).
 */
import type { JsonObject } from '@agentry/core';
import type { RegistryRecord } from '../records/types.js';

export const AI_CATALOG_CONTENT_TYPE = 'application/ai-catalog+json';
export const A2A_CARD_MEDIA_TYPE = 'application/a2a-agent-card+json';

export interface AiCatalogOptions {
  /** The registry's public base URL, e.g. `https://registry.example.com`. */
  baseUrl: string;
  /** The catalog host's name (default: the base URL's host). */
  displayName?: string;
}

export function aiCatalog(records: readonly RegistryRecord[], options: AiCatalogOptions): JsonObject {
  const base = options.baseUrl.replace(/\/+$/, '');
  const host = new URL(base).host;
  const entries = records
    .filter((record) => record.access === undefined && record.status !== 'retired')
    .map((record) => entryFor(record, base, host));
  return {
    specVersion: '1.0',
    host: { displayName: options.displayName ?? host, identifier: base },
    entries,
  };
}

function entryFor(record: RegistryRecord, base: string, host: string): JsonObject {
  const { agent } = record;
  const entry: JsonObject = {
    identifier: `urn:agentry:${host}:agent:${record.id}`,
    displayName: agent.name,
    type: A2A_CARD_MEDIA_TYPE,
    url: `${base}/agents/${encodeURIComponent(record.id)}?format=a2a`,
    updatedAt: record.updatedAt,
  };
  if (agent.description !== '') entry['description'] = agent.description;
  if (agent.version !== undefined) entry['version'] = agent.version;
  if (agent.tags !== undefined && agent.tags.length > 0) entry['tags'] = agent.tags;
  const capabilities = agent.capabilities ?? agent.operations.map((operation) => operation.name);
  if (capabilities.length > 0) entry['capabilities'] = capabilities;
  return entry;
}
