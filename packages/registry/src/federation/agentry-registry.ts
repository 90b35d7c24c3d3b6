/**
 * Mirroring another Agentry registry through @agentry/client's registry client, with the import's secure fetcher:
 * `GET /agents?updated_since=&cursor=&limit=` pages through every public agent changed since the last sync,
 * deletions included as tombstones `{id, deleted: true, deleted_at}`. Items that carry full AIDIP metadata
 * (`operations`, or top-level `inputs`) are read as they are; summaries are completed with `GET /agents/{id}`.
 * Agents are identified by (registry origin, agent id).
 *
 * The page shapes the client reads: a JSON array, or an object with the items in `agents` (or `items`, `data`,
 * `results`) and the next cursor in `next_cursor` (or `nextCursor`, `cursor`, `metadata.nextCursor`), or a
 * `Link: <…>; rel="next"` header. Each item's `updated_at` (or `updatedAt`, `deleted_at`) advances
 * `latestUpdatedAt`.
 */
import {
  type AgentListItem,
  type AgentPage,
  createRegistryClient,
  type RegistryClient,
  type SecureFetcher,
} from '@agentry/client';
import { readDocument } from '@agentry/core';
import type { CrawledAgent } from '../crawl/types.js';
import type { FederationSink, ImportSummary } from './mcp-registry.js';
import { FederationError, federationFailure, isObject, later, MAX_PAGES, pageUrl } from './paging.js';

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

/** core's AIDIP issue for an endpoint that is not https. */
const INSECURE_ENDPOINT = 'aidip.endpoint.insecure';

export async function importAgentryRegistry(options: AgentryRegistryImport): Promise<ImportSummary> {
  const origin = new URL(options.baseUrl).origin;
  const now = options.now ?? Date.now;
  const summary: ImportSummary = { origin, pages: 0, imported: 0, tombstoned: 0, skipped: 0, problems: [] };
  const registry = createRegistryClient({ baseUrl: options.baseUrl, fetch: options.fetcher });
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const seen = new Set<string>();
  let read: (() => Promise<AgentPage<AgentListItem> | undefined>) | undefined = () =>
    registry.listAgents({ updatedSince: options.updatedSince, limit: options.limit ?? 100 }, call);
  while (read !== undefined && summary.pages < MAX_PAGES) {
    const page: AgentPage<AgentListItem> | undefined = await federated(read());
    if (page === undefined) break;
    seen.add(page.url);
    summary.pages++;
    const fetchedAt = new Date(now()).toISOString();
    const upserts: CrawledAgent[] = [];
    const tombstones: string[] = [];
    for (const item of page.items as unknown[]) {
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
      const agent = await readAgent(registry, options, id, item, fetchedAt);
      if ('message' in agent) summary.problems.push({ id, message: agent.message });
      else upserts.push(agent);
    }
    if (upserts.length > 0) await options.sink.upsertCrawled(origin, upserts);
    if (tombstones.length > 0) await options.sink.tombstone(origin, tombstones);
    summary.imported += upserts.length;
    summary.tombstoned += tombstones.length;
    options.onPage?.(summary);
    const next: string | undefined = page.next;
    if (next !== undefined && seen.has(next)) {
      throw new FederationError(`${page.url} points to ${next} again as its next page; stopping.`, page.url);
    }
    read =
      next === undefined
        ? undefined
        : (): Promise<AgentPage<AgentListItem> | undefined> => registry.nextPage(page, call);
  }
  return summary;
}

/** What the registry client answers, its failures as `FederationError`s. */
async function federated<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    throw federationFailure(error);
  }
}

/** The item as a crawled agent: its own metadata when full, else the registry's `GET /agents/{id}`. */
async function readAgent(
  registry: RegistryClient,
  options: AgentryRegistryImport,
  id: string,
  item: Record<string, unknown>,
  fetchedAt: string,
): Promise<CrawledAgent | { message: string }> {
  const sourceUrl = pageUrl(options.baseUrl, `/agents/${encodeURIComponent(id)}`, {});
  let metadata: unknown = item;
  if (!('operations' in item) && !('inputs' in item)) {
    try {
      metadata = await registry.getAgent(id, options.signal === undefined ? {} : { signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure = federationFailure(error);
      return { message: failure instanceof Error ? failure.message : String(failure) };
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

function updatedAtOf(item: Record<string, unknown>): string | undefined {
  for (const key of ['updated_at', 'updatedAt', 'deleted_at', 'deletedAt']) {
    const value = item[key];
    if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
  }
  return undefined;
}
