/**
 * Importing from the official MCP Registry API: `GET /v0.1/servers?cursor=&limit=&updated_since=`, answered with
 * `{servers: [{server: <server.json>, _meta: {"io.modelcontextprotocol.registry/official": {status, updatedAt,
 * isLatest, ...}}}], metadata: {nextCursor?, count}}`. Each record is read with core's mcp codec into an agent with
 * MCP bindings; a record whose status is `deleted` is tombstoned, `deprecated` is kept with that status; records
 * marked `isLatest: false` (older versions) are skipped. Agents are identified by (registry origin, server name).
 */
import type { SecureFetcher } from '@agentry/client';
import { readDocument } from '@agentry/core';
import type { CrawledAgent, CrawlSink } from '../crawl/types.js';
import { FederationError, fetchJsonPage, isObject, later, MAX_PAGES, pageUrl } from './paging.js';

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

export type FederationSink = Pick<CrawlSink, 'upsertCrawled' | 'tombstone'>;

export interface McpRegistryImport {
  /** The registry's base URL, e.g. `https://registry.modelcontextprotocol.io`. */
  baseUrl: string;
  fetcher: SecureFetcher;
  /** Only records updated since (ISO 8601), for incremental imports. */
  updatedSince?: string;
  sink: FederationSink;
  /** Page size asked for (default 100). */
  limit?: number;
  signal?: AbortSignal;
  now?: () => number;
  /** Told after each page, with the summary so far (for progress). */
  onPage?: (summary: Readonly<ImportSummary>) => void;
}

export interface ImportSummary {
  /** The key agents are stored under with the sink: the source registry's origin. */
  origin: string;
  pages: number;
  imported: number;
  tombstoned: number;
  skipped: number;
  /** Records that could not be read, with why. */
  problems: Array<{ id?: string; message: string }>;
  /** The latest update time seen: the next import's `updatedSince`. */
  latestUpdatedAt?: string;
}

export async function importMcpRegistry(options: McpRegistryImport): Promise<ImportSummary> {
  const origin = new URL(options.baseUrl).origin;
  const now = options.now ?? Date.now;
  const summary: ImportSummary = { origin, pages: 0, imported: 0, tombstoned: 0, skipped: 0, problems: [] };
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const url = pageUrl(options.baseUrl, '/v0.1/servers', {
      cursor,
      limit: options.limit ?? 100,
      updated_since: options.updatedSince,
    });
    const { json } = await fetchJsonPage(options.fetcher, url, options.signal);
    if (!isObject(json) || !Array.isArray(json['servers'])) {
      throw new FederationError(`${url} is not an MCP Registry server list (no "servers" array).`, url);
    }
    summary.pages++;
    const fetchedAt = new Date(now()).toISOString();
    const upserts: CrawledAgent[] = [];
    const tombstones: string[] = [];
    for (const entry of json['servers']) {
      const read = readEntry(entry, options.baseUrl, fetchedAt);
      if (read.kind === 'problem') summary.problems.push(read.problem);
      else if (read.kind === 'skip') summary.skipped++;
      else if (read.kind === 'deleted') tombstones.push(read.id);
      else upserts.push(read.agent);
      if (read.kind !== 'problem') summary.latestUpdatedAt = later(summary.latestUpdatedAt, read.updatedAt);
    }
    if (upserts.length > 0) await options.sink.upsertCrawled(origin, upserts);
    if (tombstones.length > 0) await options.sink.tombstone(origin, tombstones);
    summary.imported += upserts.length;
    summary.tombstoned += tombstones.length;
    options.onPage?.(summary);
    const metadata = json['metadata'];
    const next = isObject(metadata) ? (metadata['nextCursor'] ?? metadata['next_cursor']) : undefined;
    cursor = typeof next === 'string' && next !== '' ? next : undefined;
    if (cursor !== undefined && seenCursors.has(cursor)) {
      throw new FederationError(`${url} returned cursor "${cursor}" a second time; stopping.`, url);
    }
    if (cursor !== undefined) seenCursors.add(cursor);
  } while (cursor !== undefined && summary.pages < MAX_PAGES);
  return summary;
}

type EntryRead =
  | { kind: 'agent'; agent: CrawledAgent; updatedAt?: string }
  | { kind: 'deleted'; id: string; updatedAt?: string }
  | { kind: 'skip'; updatedAt?: string }
  | { kind: 'problem'; problem: { id?: string; message: string } };

function readEntry(entry: unknown, baseUrl: string, fetchedAt: string): EntryRead {
  if (!isObject(entry)) return { kind: 'problem', problem: { message: 'A list entry is not an object.' } };
  // Older registry answers listed records directly instead of wrapping them in `server`.
  const record = isObject(entry['server']) ? entry['server'] : entry;
  const meta = isObject(entry['_meta']) ? entry['_meta'][OFFICIAL_META] : undefined;
  const official = isObject(meta) ? meta : {};
  const name = typeof record['name'] === 'string' ? record['name'] : undefined;
  const updatedAt = typeof official['updatedAt'] === 'string' ? official['updatedAt'] : undefined;
  const at = updatedAt === undefined ? {} : { updatedAt };
  if (official['isLatest'] === false) return { kind: 'skip', ...at };
  if (name !== undefined && official['status'] === 'deleted') return { kind: 'deleted', id: name, ...at };
  const sourceUrl = pageUrl(baseUrl, `/v0.1/servers/${encodeURIComponent(name ?? '')}`, {});
  const read = readDocument(record, { format: 'mcp', sourceUrl, fetchedAt });
  const agent = read.agents[0];
  if (agent === undefined || name === undefined || !read.valid) {
    const error = read.issues.find((issue) => issue.severity === 'error');
    const message = error === undefined ? 'Not a server.json record.' : `${error.pointer}: ${error.message}`;
    return { kind: 'problem', problem: name === undefined ? { message } : { id: name, message } };
  }
  if (official['status'] === 'deprecated') agent.status = { ...agent.status, state: 'deprecated' };
  const crawled: CrawledAgent = {
    id: agent.id,
    agent,
    sources: [{ url: sourceUrl, format: 'mcp', origin: 'native', fetchedAt, primary: true }],
    synthetic: false,
    foreignClaims: [],
  };
  return { kind: 'agent', agent: crawled, ...at };
}
