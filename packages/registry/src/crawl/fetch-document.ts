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
  const headers: Record<string, string> = { accept: ACCEPT };
  // Conditional only when the stored copy can stand in for the answer.
  if (previous !== undefined && hasStoredCopy(previous)) {
    if (previous.etag !== undefined) headers['if-none-match'] = previous.etag;
    if (previous.lastModified !== undefined) headers['if-modified-since'] = previous.lastModified;
  }
  const fetchedAt = new Date(options.now()).toISOString();
  const base: DocumentRecord = { url, status: 'failed', fetched: true, fetchedAt, origin: 'native' };
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
    return { record: { ...base, reason: describeFetchError(error) } };
  }
  // The fetcher buffers bodies (bounded): an answer not read needs no cancelling, and asking for `.body` would build
  // a stream just to drop it.
  const record: DocumentRecord = { ...base, httpStatus: response.status };
  if (finalUrl !== url && !isSameSite(finalUrl, options.origin)) {
    return { record: { ...record, reason: `Redirected to another origin (${finalUrl}); not read.` } };
  }
  const lifetime = freshnessLifetime(response.headers, options.now());
  if (lifetime !== undefined) record.lifetimeSeconds = lifetime;
  const etag = response.headers.get('etag');
  const lastModified = response.headers.get('last-modified');
  if (response.status === 304 && previous !== undefined && hasStoredCopy(previous)) {
    record.status = 'not-modified';
    record.etag = etag ?? previous.etag;
    const validator = lastModified ?? previous.lastModified;
    if (validator !== undefined) record.lastModified = validator;
    if (record.etag === undefined) delete record.etag;
    if (lifetime === undefined && previous.lifetimeSeconds !== undefined) {
      record.lifetimeSeconds = previous.lifetimeSeconds;
    }
    return storedDocument(record, previous);
  }
  if (response.status === 404 || response.status === 410) {
    return { record: { ...record, status: 'missing' } };
  }
  if (response.status !== 200) {
    return { record: { ...record, reason: `HTTP ${response.status}${statusText(response)}` } };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    return { record: { ...record, reason: `The body could not be read: ${describeFetchError(error)}` } };
  }
  record.status = 'ok';
  if (etag !== null) record.etag = etag;
  if (lastModified !== null) record.lastModified = lastModified;
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
  let parsed: { value: unknown } | undefined;
  return {
    record,
    get json(): unknown {
      const body = record.body ?? previous.body;
      if (body === undefined) return undefined;
      record.body = body;
      parsed ??= { value: parseStored(body) };
      return parsed.value;
    },
  };
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
  const { body: _unreadable, digest: _digest, ...rest } = record;
  return { record: { ...rest, status: 'failed', reason: `Not JSON: ${parsed.issue.message}` } };
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
