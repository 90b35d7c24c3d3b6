/**
 * The documents of one origin crawl: each URL fetched at most once, at most `perOrigin` requests in flight, and a
 * stored copy that is still fresh used without a request when the crawl asks only for what is due.
 */
import type { SecureFetcher } from '@agentry/client';
import { Limiter } from '../concurrency/limiter.js';
import { documentRecord } from './document-record.js';
import {
  type FetchedDocument,
  fetchDocument,
  hasStoredCopy,
  storedDigest,
  storedDocument,
} from './fetch-document.js';
import { documentDue } from './plan.js';
import type { DocumentRecord, PreviousDocument, PreviousDocuments } from './types.js';

export interface SessionOptions {
  fetcher: SecureFetcher;
  previous: PreviousDocuments;
  perOrigin: number;
  onlyDue: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxResponseBytes?: number;
  now: () => number;
  /** Reads the bodies of the stored copies `previous` has only digests of, by URL. */
  loadBodies?: () => Promise<ReadonlyMap<string, string>>;
}

export class CrawlSession {
  readonly #limiter: Limiter;
  readonly #fetched = new Map<string, Promise<FetchedDocument>>();

  constructor(
    readonly origin: string,
    readonly options: SessionOptions,
  ) {
    this.#limiter = new Limiter(options.perOrigin);
  }

  get(url: string): Promise<FetchedDocument> {
    let pending = this.#fetched.get(url);
    if (pending === undefined) {
      pending = this.#load(url);
      this.#fetched.set(url, pending);
    }
    return pending;
  }

  previous(url: string): PreviousDocument | undefined {
    return this.options.previous.get(url);
  }

  /**
   * Brings the stored copies' bodies in from storage, once the origin turned out to have changed and its documents
   * are to be read again (an unchanged origin never needs them).
   */
  async loadStoredBodies(): Promise<void> {
    const { loadBodies, previous } = this.options;
    if (loadBodies === undefined) return;
    if (![...previous.values()].some((stored) => stored.body === undefined && stored.digest !== undefined))
      return;
    const bodies = await loadBodies();
    for (const [url, stored] of previous) {
      const body = bodies.get(url);
      // The previous documents belong to this crawl: filling them in is how the stored documents find their bodies.
      if (stored.body === undefined && body !== undefined) (stored as PreviousDocument).body = body;
    }
  }

  async #load(url: string): Promise<FetchedDocument> {
    const previous = this.previous(url);
    const now = this.options.now();
    if (previous !== undefined && !documentDue(previous, now, this.options.onlyDue))
      return reuse(url, previous);
    const fetched = await this.#limiter.run(() =>
      fetchDocument(url, {
        fetcher: this.options.fetcher,
        origin: this.origin,
        now: this.options.now,
        ...(previous === undefined ? {} : { previous }),
        ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
        ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
        ...(this.options.maxResponseBytes === undefined
          ? {}
          : { maxResponseBytes: this.options.maxResponseBytes }),
      }),
    );
    // A document that fails keeps describing what it described: its last good body stands until the origin is
    // given up on (the scheduler's failure threshold).
    if (
      fetched.record.status === 'failed' &&
      previous !== undefined &&
      hasStoredCopy(previous) &&
      fetched.json === undefined
    ) {
      return storedDocument({ ...fetched.record }, previous);
    }
    return fetched;
  }
}

/** The stored copy, unfetched. */
function reuse(url: string, previous: PreviousDocument): FetchedDocument {
  const stored = hasStoredCopy(previous);
  const record = documentRecord({
    url,
    kind: previous.kind,
    status: stored ? 'not-modified' : (previous.status ?? 'missing'),
    reason: stored ? undefined : previous.reason,
    fetched: false,
    etag: previous.etag,
    lastModified: previous.lastModified,
    fetchedAt: previous.fetchedAt ?? new Date(0).toISOString(),
    lifetimeSeconds: previous.lifetimeSeconds,
    origin: previous.origin ?? 'native',
  });
  return stored ? storedDocument(record, previous) : { record };
}

/**
 * What a fetched document contributes, for telling whether anything changed since the last crawl: its body's
 * digest, or its status when it has none.
 */
export function contentOf(record: DocumentRecord): string {
  return storedDigest(record) ?? `#${record.status}`;
}

export function previousContentOf(previous: PreviousDocument): string {
  return storedDigest(previous) ?? `#${previous.status ?? 'missing'}`;
}
