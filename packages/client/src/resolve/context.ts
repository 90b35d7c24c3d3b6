/**
 * The state of one resolution: every document asked for (in order), the issues met, the agents read, and the
 * origins the fetcher refused (asking them again would only be refused again). Given a clock, it also keeps how long
 * the resolution may be reused: until the first of its documents goes stale (reuse.ts).
 */
import {
  type Agent,
  type Binding,
  type DocumentResult,
  identityKeys,
  readDocumentText,
  type Severity,
  sameIdentity,
  type ValidationIssue,
} from '@agentry/core';
import { FetchRefusedError } from '../fetch/errors.js';
import type { SecureFetcher } from '../fetch/types.js';
import { freshUntil, NOT_REUSABLE } from './reuse.js';
import type { ResolvedDocument, ResolveStep } from './types.js';

const DESCRIPTION_ACCEPT =
  'application/json, application/ld+json;q=0.9, application/td+json;q=0.9, application/woa+json;q=0.9, */*;q=0.1';
const JRD_ACCEPT = 'application/jrd+json, application/json;q=0.9';
const DID_ACCEPT = 'application/did+json, application/did+ld+json;q=0.9, application/json;q=0.8';

/** Refusals that every later request to the same origin would meet too. */
const ORIGIN_WIDE_REFUSALS: ReadonlySet<string> = new Set(['scheme', 'http-not-allowed', 'private-address']);

export interface Fetched {
  record: ResolvedDocument;
  /** The URL the body came from (after redirects); relative URLs in it resolve against this. */
  finalUrl: string;
  /** The body, for 2xx responses. */
  text?: string;
  headers?: Headers;
}

export interface ReadDescription extends Fetched {
  /** The document read with core's detection; absent when it could not be fetched. */
  read?: DocumentResult;
}

export interface ReadOptions {
  /**
   * The document was asked for on the chance it exists (a well-known path): not finding it, or finding something
   * else there, is a warning at most. Documents the caller or another document pointed to are expected to exist.
   */
  speculative?: boolean;
}

export class ResolveContext {
  readonly documents: ResolvedDocument[] = [];
  readonly issues: ValidationIssue[] = [];
  readonly agents: Agent[] = [];
  /** HTTP bindings made from bare endpoints, whose method follows the payload (agent:// §6.2). */
  readonly methodByPayload = new WeakSet<Binding>();
  private readonly refusedOrigins = new Set<string>();
  /** URLs already asked for: a document two steps point to (a map entry, a path) is asked for once. */
  private readonly asked = new Set<string>();
  /**
   * With a clock: the time on it until which every document asked for so far is fresh (the earliest expiry;
   * `NOT_REUSABLE` once one cannot be reused; infinite while none was asked for). Without one, not tracked.
   */
  reusableUntil = Number.POSITIVE_INFINITY;

  constructor(
    readonly fetcher: SecureFetcher,
    readonly signal: AbortSignal | undefined,
    /** The clock freshness is judged on; absent when the resolution will not be reused (nothing is tracked). */
    readonly clock?: () => number,
  ) {}

  issue(severity: Severity, code: string, message: string): void {
    this.issues.push({ severity, pointer: '', code, message });
  }

  /** GETs `url`, recording it; resolves with the body of a 2xx response. Throws only when aborted. */
  async get(url: string, step: ResolveStep, accept: string): Promise<Fetched | undefined> {
    this.signal?.throwIfAborted();
    const origin = originOf(url);
    if (origin !== undefined && this.refusedOrigins.has(origin)) return undefined;
    if (this.asked.has(url)) return undefined;
    this.asked.add(url);
    const record: ResolvedDocument = { url, step, fromCache: false, revalidated: false };
    this.documents.push(record);
    let result: Awaited<ReturnType<SecureFetcher['fetch']>>;
    const requestTime = this.clock?.();
    try {
      const init =
        this.signal === undefined ? { headers: { accept } } : { headers: { accept }, signal: this.signal };
      result = await this.fetcher.fetch(url, init);
    } catch (error) {
      this.signal?.throwIfAborted();
      this.reusableUntil = NOT_REUSABLE;
      record.error = error instanceof Error ? error.message : String(error);
      if (error instanceof FetchRefusedError) {
        if (origin !== undefined && ORIGIN_WIDE_REFUSALS.has(error.reason)) this.refusedOrigins.add(origin);
        const allow = error.allowedBy === undefined ? '' : ` (${error.allowedBy} allows it)`;
        this.issue('error', `resolve.fetch.refused`, `${url}: ${error.message}${allow}`);
      }
      return { record, finalUrl: url };
    }
    const { response } = result;
    if (this.clock !== undefined && requestTime !== undefined && this.reusableUntil > NOT_REUSABLE) {
      this.reusableUntil = Math.min(this.reusableUntil, freshUntil(result, requestTime, this.clock()));
    }
    record.status = response.status;
    record.fromCache = result.fromCache;
    record.revalidated = result.revalidated;
    if (result.url !== url) record.finalUrl = result.url;
    if (!response.ok) {
      record.error = response.status === 404 ? 'not found (404)' : `HTTP ${response.status}`;
      await response.body?.cancel().catch(() => {});
      return { record, finalUrl: result.url };
    }
    try {
      return { record, finalUrl: result.url, text: await response.text(), headers: response.headers };
    } catch (error) {
      this.signal?.throwIfAborted();
      this.reusableUntil = NOT_REUSABLE;
      record.error = `the body could not be read: ${error instanceof Error ? error.message : String(error)}`;
      return { record, finalUrl: result.url };
    }
  }

  /**
   * Fetches and reads an agent description, detecting its format by its keys. Its agents join `agents`; its
   * validation issues join `issues`, each message starting with the document's URL.
   */
  async readDescription(url: string, step: ResolveStep, options: ReadOptions = {}): Promise<ReadDescription> {
    const fetched = await this.get(url, step, DESCRIPTION_ACCEPT);
    if (fetched === undefined)
      return { record: { url, step, fromCache: false, revalidated: false }, finalUrl: url };
    if (fetched.text === undefined) {
      if (!options.speculative && fetched.record.error !== undefined && !this.wasRefused(fetched.record)) {
        this.issue('error', 'resolve.document.unavailable', `${url}: ${fetched.record.error}.`);
      }
      return fetched;
    }
    const read = readDocumentText(fetched.text, {
      sourceUrl: fetched.finalUrl,
      fetchedAt: new Date().toISOString(),
    });
    if (read.format === undefined) {
      fetched.record.error = read.issues[0]?.message ?? 'not a recognised agent description';
      // Sites answer unknown paths with a page of their own; at a well-known path that is "not here", not an error.
      const severity: Severity = options.speculative ? 'warning' : 'error';
      for (const issue of read.issues)
        this.issues.push({ ...issue, severity, message: `${url}: ${issue.message}` });
      return { ...fetched, read };
    }
    fetched.record.format = read.format;
    for (const issue of read.issues) this.issues.push({ ...issue, message: `${url}: ${issue.message}` });
    for (const agent of read.agents) {
      stampCacheValidators(agent, fetched.headers);
      this.addAgent(agent, fetched.record);
    }
    return { ...fetched, read };
  }

  /**
   * Adds an agent a document describes, unless an agent already read is the same one by core's identity keys (its
   * id or name at the same origin, a declared agent:// URI): one agent served in several formats, or listed in an
   * agents.json map and described by its descriptor, is one agent with several documents. The fuller description
   * is kept; every document that described it names it in `describes`.
   */
  private addAgent(agent: Agent, record: ResolvedDocument): void {
    const keys = identityKeys(agent);
    const index = this.agents.findIndex(
      (known) => sameIdentity(identityKeys(known), keys) && !otherOfOneFormat(known, agent),
    );
    let kept = agent;
    if (index === -1) this.agents.push(agent);
    else {
      const known = this.agents[index]!;
      if (substance(agent) > substance(known)) {
        this.agents[index] = agent;
        for (const document of this.documents) {
          if (document.describes !== undefined) {
            document.describes = document.describes.map((id) => (id === known.id ? agent.id : id));
          }
        }
      } else kept = known;
    }
    record.describes ??= [];
    if (!record.describes.includes(kept.id)) record.describes.push(kept.id);
  }

  /** Fetches a JSON document that is not an agent description (a DID document, a WebFinger JRD). */
  async readJson(url: string, step: 'did-web' | 'webfinger', options: ReadOptions = {}): Promise<unknown> {
    const fetched = await this.get(url, step, step === 'webfinger' ? JRD_ACCEPT : DID_ACCEPT);
    if (fetched?.text === undefined) {
      if (fetched !== undefined && !options.speculative && !this.wasRefused(fetched.record)) {
        this.issue('error', `resolve.${step}.unavailable`, `${url}: ${fetched.record.error}.`);
      }
      return undefined;
    }
    try {
      return JSON.parse(fetched.text) as unknown;
    } catch (error) {
      fetched.record.error = `not JSON: ${error instanceof Error ? error.message : String(error)}`;
      this.issue('error', `resolve.${step}.invalid`, `${url}: ${fetched.record.error}.`);
      return undefined;
    }
  }

  private wasRefused(record: ResolvedDocument): boolean {
    return this.issues.some(
      (issue) => issue.code === 'resolve.fetch.refused' && issue.message.startsWith(`${record.url}:`),
    );
  }
}

/** Two agents one format names by different ids are two, however alike their names (the crawler's rule too). */
function otherOfOneFormat(a: Agent, b: Agent): boolean {
  return (
    a.provenance?.sourceFormat !== undefined &&
    a.provenance.sourceFormat === b.provenance?.sourceFormat &&
    a.id.toLowerCase() !== b.id.toLowerCase()
  );
}

/** How much a description says: an agents.json entry (a name and a link) says least. */
function substance(agent: Agent): number {
  const stub = agent.provenance?.sourceFormat === 'agents-json' ? 0 : 1;
  return agent.operations.length * 4 + agent.bindings.length * 3 + (agent.description === '' ? 0 : 1) + stub;
}

/** Provenance carries the document's cache validators, so a crawler can revalidate what it indexed. */
function stampCacheValidators(agent: Agent, headers: Headers | undefined): void {
  if (agent.provenance === undefined || headers === undefined) return;
  const etag = headers.get('etag');
  if (etag !== null) agent.provenance.etag = etag;
  const lastModified = headers.get('last-modified');
  if (lastModified !== null) agent.provenance.lastModified = lastModified;
}

function originOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).origin : undefined;
}
