/**
 * Mirroring another Agentry registry: `GET /agents?updated_since=&cursor=&limit=` pages through every public agent
 * changed since the last sync, deletions included as tombstones `{id, deleted: true, deleted_at}`. Items that carry
 * full AIDIP metadata (`operations`, or top-level `inputs`) are read as they are; summaries are completed with
 * `GET /agents/{id}`. Agents are identified by (registry origin, agent id).
 *
 * The page shape read: a JSON array, or an object with the items in `agents` (or `items`, `data`, `results`) and
 * the next cursor in `next_cursor` (or `nextCursor`, `cursor`, `metadata.nextCursor`), or a `Link: <…>; rel="next"`
 * header. Each item's `updated_at` (or `updatedAt`, `deleted_at`) advances `latestUpdatedAt`.
 */
import type { SecureFetcher } from '@agentry/client';
import { readDocument } from '@agentry/core';
import type { CrawledAgent } from '../crawl/types.js';
import type { FederationSink, ImportSummary } from './mcp-registry.js';
import { FederationError, fetchJsonPage, isObject, later, MAX_PAGES, pageUrl } from './paging.js';

export interface AgentryRegistryImport {
  baseUrl: string;
  fetcher: SecureFetcher;
  /** Only agents changed since (ISO 8601); absent for a full sync. */
  updatedSince?: string;
  sink: FederationSink;
  /** Page size asked for (default 100). */
  limit?: number;
  signal?: AbortSignal;
  now?: () => number;
  /** Told after each page, with the summary so far (for progress). */
  onPage?: (summary: Readonly<ImportSummary>) => void;
}

const ITEM_KEYS = ['agents', 'items', 'data', 'results'];

/** core's AIDIP issue for an endpoint that is not https. */
const INSECURE_ENDPOINT = 'aidip.endpoint.insecure';

export async function importAgentryRegistry(options: AgentryRegistryImport): Promise<ImportSummary> {
  const origin = new URL(options.baseUrl).origin;
  const now = options.now ?? Date.now;
  const summary: ImportSummary = { origin, pages: 0, imported: 0, tombstoned: 0, skipped: 0, problems: [] };
  const seen = new Set<string>();
  let url: string | undefined = pageUrl(options.baseUrl, '/agents', {
    updated_since: options.updatedSince,
    limit: options.limit ?? 100,
  });
  while (url !== undefined && summary.pages < MAX_PAGES) {
    seen.add(url);
    const { json, headers } = await fetchJsonPage(options.fetcher, url, options.signal);
    const items = itemsOf(json);
    if (items === undefined) throw new FederationError(`${url} is not an agent list.`, url);
    summary.pages++;
    const fetchedAt = new Date(now()).toISOString();
    const upserts: CrawledAgent[] = [];
    const tombstones: string[] = [];
    for (const item of items) {
      if (!isObject(item) || typeof item['id'] !== 'string') {
        summary.problems.push({ message: 'A list item has no string "id".' });
        continue;
      }
      const id = item['id'];
      summary.latestUpdatedAt = later(summary.latestUpdatedAt, updatedAtOf(item));
      if (item['deleted'] === true) {
        tombstones.push(id);
        continue;
      }
      const agent = await readAgent(options, id, item, fetchedAt);
      if ('message' in agent) summary.problems.push({ id, message: agent.message });
      else upserts.push(agent);
    }
    if (upserts.length > 0) await options.sink.upsertCrawled(origin, upserts);
    if (tombstones.length > 0) await options.sink.tombstone(origin, tombstones);
    summary.imported += upserts.length;
    summary.tombstoned += tombstones.length;
    options.onPage?.(summary);
    const next = nextPage(json, headers, url, options);
    if (next !== undefined && seen.has(next)) {
      throw new FederationError(`${url} points to ${next} again as its next page; stopping.`, url);
    }
    url = next;
  }
  return summary;
}

/** The item as a crawled agent: its own metadata when full, else the registry's `GET /agents/{id}`. */
async function readAgent(
  options: AgentryRegistryImport,
  id: string,
  item: Record<string, unknown>,
  fetchedAt: string,
): Promise<CrawledAgent | { message: string }> {
  const sourceUrl = pageUrl(options.baseUrl, `/agents/${encodeURIComponent(id)}`, {});
  let metadata: unknown = item;
  if (!('operations' in item) && !('inputs' in item)) {
    try {
      metadata = (await fetchJsonPage(options.fetcher, sourceUrl, options.signal)).json;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      return { message: error instanceof Error ? error.message : String(error) };
    }
  }
  const read = readDocument(metadata, { format: 'aidip', sourceUrl, fetchedAt });
  const agent = read.agents[0];
  // AIDIP requires https endpoints; an import told to allow plain HTTP (a registry on this machine, whose agents
  // are served over http too) takes them as the crawler takes an http origin's agents.
  const allowHttp = options.fetcher.policy.allowHttp === true;
  const errors = read.issues.filter(
    (issue) => issue.severity === 'error' && !(allowHttp && issue.code === INSECURE_ENDPOINT),
  );
  if (agent === undefined || errors.length > 0) {
    const error = errors[0];
    if (error === undefined) return { message: 'Not AIDIP metadata.' };
    if (error.code === INSECURE_ENDPOINT) {
      return {
        message: `${error.pointer}: its endpoint is plain http, refused unless plain HTTP is allowed (--allow-http, for a registry on this machine).`,
      };
    }
    return { message: `${error.pointer}: ${error.message}` };
  }
  // The source registry's id is the identity, whatever the metadata's own id says.
  agent.id = id;
  return {
    id,
    agent,
    sources: [{ url: sourceUrl, format: 'aidip', origin: 'native', fetchedAt, primary: true }],
    synthetic: false,
    foreignClaims: [],
  };
}

function itemsOf(json: unknown): unknown[] | undefined {
  if (Array.isArray(json)) return json;
  if (!isObject(json)) return undefined;
  for (const key of ITEM_KEYS) {
    const items = json[key];
    if (Array.isArray(items)) return items;
  }
  return undefined;
}

function nextPage(
  json: unknown,
  headers: Headers,
  current: string,
  options: AgentryRegistryImport,
): string | undefined {
  const link = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(headers.get('link') ?? '');
  if (link?.[1] !== undefined && URL.canParse(link[1], current)) return new URL(link[1], current).href;
  if (!isObject(json)) return undefined;
  const metadata = isObject(json['metadata']) ? json['metadata'] : {};
  const cursor = [json['next_cursor'], json['nextCursor'], json['cursor'], metadata['nextCursor']].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  if (cursor === undefined) return undefined;
  return pageUrl(options.baseUrl, '/agents', {
    updated_since: options.updatedSince,
    limit: options.limit ?? 100,
    cursor,
  });
}

function updatedAtOf(item: Record<string, unknown>): string | undefined {
  for (const key of ['updated_at', 'updatedAt', 'deleted_at', 'deletedAt']) {
    const value = item[key];
    if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
  }
  return undefined;
}
