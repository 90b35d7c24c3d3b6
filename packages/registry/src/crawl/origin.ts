/**
 * Crawling one origin (docs/crawler.md): fetch every discovery document of DESIGN.md §3 it serves, follow the
 * documents its indexes link to on the same origin, read each by its keys, generate a synthetic AWP surface from
 * its OpenAPI document when nothing else describes an agent, and merge what the documents say into one agent per
 * agent. An origin whose documents are all as they were last time is reported `unchanged` without being read again.
 */
import type { SecureFetcher } from '@agentry/client';
import { readDocument } from '@agentry/core';
import { openApiToAwp } from '../synthetic/openapi-to-awp.js';
import { documentRecord } from './document-record.js';
import type { FetchedDocument } from './fetch-document.js';
import { isoTime } from './iso-time.js';
import { type Description, mergeDescriptions } from './merge.js';
import { normalizeOrigin, originOf } from './origins.js';
import { DISCOVERY_PATHS, MAX_CATALOG_DEPTH, MAX_LINKED_DOCUMENTS, OPENAPI_PATH } from './paths.js';
import { type DocumentRole, readFetched } from './read-document.js';
import { CrawlSession, contentOf, previousContentOf } from './session.js';
import type { DocumentRecord, OriginCrawl, PreviousDocuments } from './types.js';

export interface CrawlOriginOptions {
  fetcher: SecureFetcher;
  /** The last crawl's documents, for conditional requests and to tell whether anything changed. */
  previous?: PreviousDocuments;
  signal?: AbortSignal;
  /** Requests in flight to the origin at once (default 2). */
  perOrigin?: number;
  /** Fetch only documents whose stored copy is no longer fresh (default false: fetch every one). */
  onlyDue?: boolean;
  /** Per request (default: the fetcher's). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  now?: () => number;
  /**
   * Reads the stored bodies of the documents `previous` has only digests of (by URL). Called only when the origin
   * changed and its documents are read again.
   */
  loadBodies?: () => Promise<ReadonlyMap<string, string>>;
  /** Agents kept per origin (default 1,000; `null` for no limit): past it, the rest are dropped and counted. */
  maxAgents?: number | null;
  /** Linked documents followed per origin (default 64; `null` for no limit): past it, the rest are skipped. */
  maxDocuments?: number | null;
}

/** Agents one origin may hold, as one publisher may (the registry's `quotaPerPublisher`). */
export const DEFAULT_MAX_AGENTS_PER_ORIGIN = 1000;

export async function crawlOrigin(originInput: string, options: CrawlOriginOptions): Promise<OriginCrawl> {
  const origin = normalizeOrigin(originInput);
  const now = options.now ?? Date.now;
  const startedAt = new Date(now()).toISOString();
  const previous = options.previous ?? new Map();
  const session = new CrawlSession(origin, {
    fetcher: options.fetcher,
    previous,
    perOrigin: options.perOrigin ?? 2,
    onlyDue: options.onlyDue ?? false,
    now,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
    ...(options.loadBodies === undefined ? {} : { loadBodies: options.loadBodies }),
  });
  const top = await Promise.all(DISCOVERY_PATHS.map(({ path }) => session.get(origin + path)));

  const finish = (documents: DocumentRecord[], rest: Partial<OriginCrawl>): OriginCrawl => ({
    origin,
    startedAt,
    finishedAt: new Date(now()).toISOString(),
    documents,
    agents: [],
    unchanged: false,
    unreachable: isUnreachable(documents),
    discovered: [],
    ...rest,
  });

  if (previous.size > 0 && top.every((fetched) => sameAsBefore(fetched, previous))) {
    const unchanged = await unchangedDocuments(session, previous);
    if (unchanged !== undefined) return finish(unchanged, { unchanged: true });
  }

  await session.loadStoredBodies();
  const maxDocuments =
    options.maxDocuments === undefined
      ? MAX_LINKED_DOCUMENTS
      : (options.maxDocuments ?? Number.POSITIVE_INFINITY);
  const reader = new OriginReader(session, maxDocuments);
  DISCOVERY_PATHS.forEach(({ index }, i) => {
    reader.add(top[i]!, index ?? 'document');
  });
  await reader.followLinks();
  if (reader.descriptions.length === 0) await reader.synthesize();
  const merged = mergeDescriptions(origin, reader.descriptions);
  const maxAgents =
    options.maxAgents === undefined
      ? DEFAULT_MAX_AGENTS_PER_ORIGIN
      : (options.maxAgents ?? Number.POSITIVE_INFINITY);
  // The first agents in the merge's order are kept: the same ones at every crawl of the same documents.
  const agents = merged.agents.slice(0, maxAgents);
  const kept = new Set(agents.map((agent) => agent.id));
  for (const record of reader.records) {
    const ids = merged.agentIdsByDocument.get(record.url);
    if (ids !== undefined) record.agentIds = [...ids].filter((id) => kept.has(id)).sort();
  }
  const dropped = {
    agents: merged.agents.length - agents.length,
    documents: reader.overLimit,
  };
  return finish(reader.records, {
    agents,
    discovered: [...reader.discovered].sort(),
    ...(dropped.agents > 0 || dropped.documents > 0 ? { dropped } : {}),
  });
}

/** The previous crawl's other documents (linked, OpenAPI), fetched again; undefined as soon as one changed. */
async function unchangedDocuments(
  session: CrawlSession,
  previous: PreviousDocuments,
): Promise<DocumentRecord[] | undefined> {
  const results = await Promise.all(
    [...previous.entries()].map(async ([url, stored]): Promise<DocumentRecord | undefined> => {
      if (stored.status === 'skipped') {
        return documentRecord({
          url,
          status: 'skipped',
          reason: stored.reason,
          fetched: false,
          fetchedAt: stored.fetchedAt ?? new Date(0).toISOString(),
          origin: stored.origin ?? 'native',
          linkedFrom: stored.linkedFrom,
        });
      }
      const fetched = await session.get(url);
      if (!sameAsBefore(fetched, previous)) return undefined;
      // A copy: the session's record may yet be read again, as fetched, if another document changed.
      const record = { ...fetched.record };
      if (stored.kind !== undefined) record.kind = stored.kind;
      if (stored.linkedFrom !== undefined) record.linkedFrom = stored.linkedFrom;
      if (stored.agentIds !== undefined) record.agentIds = stored.agentIds;
      if (stored.origin !== undefined) record.origin = stored.origin;
      return record;
    }),
  );
  if (results.some((record) => record === undefined)) return undefined;
  return results as DocumentRecord[];
}

/**
 * Every request sent failed: no answer, or only errors (documents still fresh were not asked for, so they say
 * nothing either way). A 404 is an answer.
 */
function isUnreachable(documents: readonly DocumentRecord[]): boolean {
  const sent = documents.filter((record) => record.fetched);
  return sent.length > 0 && sent.every((record) => record.status === 'failed');
}

function sameAsBefore(fetched: FetchedDocument, previous: PreviousDocuments): boolean {
  const stored = previous.get(fetched.record.url);
  return stored !== undefined && contentOf(fetched.record) === previousContentOf(stored);
}

/** Reads documents as they arrive and follows their links, breadth first, bounded per origin. */
class OriginReader {
  readonly records: DocumentRecord[] = [];
  readonly descriptions: Description[] = [];
  readonly discovered = new Set<string>();
  readonly #seen = new Set<string>();
  #queue: Array<{ url: string; role: DocumentRole; from: string; depth: number }> = [];
  #linked = 0;
  /** Linked documents skipped for being over `maxDocuments`. */
  overLimit = 0;

  constructor(
    private readonly session: CrawlSession,
    private readonly maxDocuments: number,
  ) {}

  add(fetched: FetchedDocument, role: DocumentRole, from?: string, depth = 0): void {
    // Reading the JSON first brings a stored copy's body into the record, which this crawl then stores again.
    const json = fetched.json;
    const record = { ...fetched.record };
    this.#seen.add(record.url);
    if (from !== undefined) record.linkedFrom = from;
    this.records.push(record);
    if (json === undefined) return;
    const read = readFetched(this.session.origin, record, json, role);
    if (read.kind !== undefined) record.kind = read.kind;
    if (read.issues.length > 0) record.issues = read.issues;
    if (read.problem !== undefined) {
      record.status = 'failed';
      // The body is kept so that the next crawl can ask whether it changed.
      record.reason = `Not an agent description: ${read.problem}`;
      return;
    }
    this.descriptions.push(...read.descriptions);
    for (const url of read.links) this.#link(url, 'document', record.url, depth + 1);
    if (depth < MAX_CATALOG_DEPTH) {
      const nested = role === 'document' ? 'ai-catalog' : role;
      for (const url of read.indexes) this.#link(url, nested, record.url, depth + 1);
    }
  }

  async followLinks(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      const fetched = await Promise.all(batch.map((item) => this.session.get(item.url)));
      batch.forEach((item, i) => {
        this.add(fetched[i]!, item.role, item.from, item.depth);
      });
    }
  }

  async synthesize(): Promise<void> {
    const url = this.session.origin + OPENAPI_PATH;
    const fetched = await this.session.get(url);
    const json = fetched.json;
    const record: DocumentRecord = { ...fetched.record, origin: 'synthetic' };
    this.records.push(record);
    if (json === undefined) return;
    const surface = openApiToAwp(json, {
      origin: this.session.origin,
      sourceUrl: url,
      verifiedAt: record.fetchedAt,
    });
    if (surface === undefined) {
      record.status = 'failed';
      record.reason = 'Not an OpenAPI 3.x document with operations.';
      return;
    }
    record.kind = 'openapi';
    const read = readDocument(surface.document, {
      format: 'awp',
      sourceUrl: url,
      fetchedAt: record.fetchedAt,
    });
    const errors = read.issues.filter((issue) => issue.severity === 'error');
    if (errors.length > 0)
      record.issues = errors.slice(0, 5).map((issue) => `${issue.pointer}: ${issue.message}`);
    for (const agent of read.agents) {
      this.descriptions.push({
        agent,
        format: 'awp',
        documentUrl: url,
        source: { url, format: 'awp', origin: 'synthetic', fetchedAt: record.fetchedAt, primary: false },
      });
    }
  }

  #link(url: string, role: DocumentRole, from: string, depth: number): void {
    if (this.#seen.has(url)) return;
    this.#seen.add(url);
    const skip = (reason: string): void => {
      this.records.push(
        documentRecord({
          url,
          status: 'skipped',
          fetched: false,
          reason,
          fetchedAt: isoTime(this.session.options.now()),
          origin: 'native',
          linkedFrom: from,
        }),
      );
    };
    const target = originOf(url);
    if (target !== this.session.origin) {
      if (target !== undefined) this.discovered.add(target);
      skip('On another origin: not followed (crawl that origin to index it).');
      return;
    }
    if (this.#linked >= this.maxDocuments) {
      this.overLimit++;
      skip(`More than ${this.maxDocuments} linked documents on one origin.`);
      return;
    }
    this.#linked++;
    this.#queue.push({ url, role, from, depth });
  }
}
