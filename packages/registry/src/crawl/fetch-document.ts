/**
 * Fetching one discovery document through the secure fetcher: a conditional GET when a stored copy exists (so an
 * unchanged document costs a 304), the answer classified (ok / not-modified / missing / failed with a reason),
 * its validators and cache lifetime recorded. Never throws, except when the crawl itself is aborted.
 */

import { createHash } from 'node:crypto';
import {
  FetchRefusedError,
  FetchTimeoutError,
  ResponseTooLargeError,
  type SecureFetcher,
} from '@agentry/client';
import { parseJsonText } from '@agentry/core';
import { freshnessLifetime } from './cache-lifetime.js';
import { documentRecord } from './document-record.js';
import { isoTime } from './iso-time.js';
import { isSameSite } from './origins.js';
import type { DocumentRecord, PreviousDocument } from './types.js';

/** The digest a document's content is compared by. */
export function digestOf(body: string): string {
  return createHash('sha256').update(body).digest('base64url');
}

/** True when a stored copy of the document exists (its body, or its digest with the body left in storage). */
export function hasStoredCopy(previous: PreviousDocument): boolean {
  return previous.body !== undefined || previous.digest !== undefined;
}

/** The stored copy's digest. */
export function storedDigest(previous: PreviousDocument): string | undefined {
  return previous.digest ?? (previous.body === undefined ? undefined : digestOf(previous.body));
}

export interface FetchDocumentOptions {
  fetcher: SecureFetcher;
  /** The origin being crawled: a redirect off it makes the document fail. */
  origin: string;
  previous?: PreviousDocument;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxResponseBytes?: number;
  now: () => number;
}

export interface FetchedDocument {
  record: DocumentRecord;
  /** The parsed JSON of an ok or not-modified document. */
  json?: unknown;
}

const ACCEPT =
  'application/json, application/ld+json, application/td+json, application/woa+json, application/ai-catalog+json;q=0.9, */*;q=0.1';

export async function fetchDocument(url: string, options: FetchDocumentOptions): Promise<FetchedDocument> {
  const { previous } = options;
  const stored = previous !== undefined && hasStoredCopy(previous) ? previous : undefined;
  const headers: Record<string, string> = { accept: ACCEPT };
  // Conditional only when the stored copy can stand in for the answer.
  if (stored?.etag !== undefined) headers['if-none-match'] = stored.etag;
  if (stored?.lastModified !== undefined) headers['if-modified-since'] = stored.lastModified;
  const fetchedAt = isoTime(options.now());
  let response: Response;
  let finalUrl: string;
  try {
    const result = await options.fetcher.fetch(url, {
      headers,
      cacheMode: 'no-store',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
    });
    response = result.response;
    finalUrl = result.url;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason = describeFetchError(error);
    return {
      record: documentRecord({ url, status: 'failed', fetched: true, fetchedAt, origin: 'native', reason }),
    };
  }
  // The fetcher buffers bodies (bounded): an answer not read needs no cancelling, and asking for `.body` would build
  // a stream just to drop it.
  const httpStatus = response.status;
  const record = documentRecord({
    url,
    status: 'failed',
    fetched: true,
    fetchedAt,
    origin: 'native',
    httpStatus,
  });
  if (finalUrl !== url && !isSameSite(finalUrl, options.origin)) {
    record.reason = `Redirected to another origin (${finalUrl}); not read.`;
    return { record };
  }
  const lifetime = freshnessLifetime(response.headers, options.now());
  const etag = response.headers.get('etag') ?? undefined;
  const lastModified = response.headers.get('last-modified') ?? undefined;
  if (httpStatus === 304 && stored !== undefined) {
    record.status = 'not-modified';
    record.etag = etag ?? stored.etag;
    record.lastModified = lastModified ?? stored.lastModified;
    record.lifetimeSeconds = lifetime ?? stored.lifetimeSeconds;
    return storedDocument(record, stored);
  }
  record.lifetimeSeconds = lifetime;
  if (httpStatus === 404 || httpStatus === 410) {
    record.status = 'missing';
    return { record };
  }
  if (httpStatus !== 200) {
    record.reason = `HTTP ${httpStatus}${statusText(response)}`;
    return { record };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    record.reason = `The body could not be read: ${describeFetchError(error)}`;
    return { record };
  }
  record.status = 'ok';
  record.etag = etag;
  record.lastModified = lastModified;
  record.body = text;
  record.digest = digestOf(text);
  return withJson(record, text);
}

/**
 * A document answered by the stored copy (a 304, still fresh, or failing now). The copy was JSON when it was
 * stored, and is parsed only if something reads it: an origin whose documents are all unchanged is never read
 * again. Its body may still be in storage: it is taken from `previous` when read, by which time the crawl has
 * loaded it (`CrawlSession.loadStoredBodies`).
 */
export function storedDocument(record: DocumentRecord, previous: PreviousDocument): FetchedDocument {
  const digest = storedDigest(previous);
  if (digest !== undefined) record.digest = digest;
  if (previous.body !== undefined) record.body = previous.body;
  return new StoredDocument(record, previous);
}

/** The getter is the class's, not each object's: a re-crawl makes one of these for most documents it asks for. */
class StoredDocument implements FetchedDocument {
  #parsed: { value: unknown } | undefined;

  constructor(
    readonly record: DocumentRecord,
    private readonly previous: PreviousDocument,
  ) {}

  get json(): unknown {
    const body = this.record.body ?? this.previous.body;
    if (body === undefined) return undefined;
    this.record.body = body;
    this.#parsed ??= { value: parseStored(body) };
    return this.#parsed.value;
  }
}

function parseStored(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function withJson(record: DocumentRecord, text: string): FetchedDocument {
  const parsed = parseJsonText(text);
  if (parsed.ok) return { record, json: parsed.value };
  record.status = 'failed';
  record.reason = `Not JSON: ${parsed.issue.message}`;
  record.body = undefined;
  record.digest = undefined;
  return { record };
}

function statusText(response: Response): string {
  return response.statusText === '' ? '' : ` ${response.statusText}`;
}

/** The fetcher's errors already say what happened; others are named by their message. */
export function describeFetchError(error: unknown): string {
  if (error instanceof FetchRefusedError) return `Refused (${error.reason}): ${error.message}`;
  if (error instanceof FetchTimeoutError) return `Timed out: ${error.message}`;
  if (error instanceof ResponseTooLargeError) return `Too large: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
