/**
 * The crawler: a queue of origins in the database, crawled when due, each crawl's outcome turned into sink calls
 * (upsert what is new or changed, mark inactive what disappeared, tombstone what stayed gone or unreachable) and
 * recorded in one transaction. Re-crawls follow each document's cache lifetime, bounded by the minimum and maximum
 * intervals. See docs/crawler.md.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FetchPolicy, SecureFetcher } from '@agentry/client';
import type { Kysely } from 'kysely';
import { Limiter } from '../concurrency/limiter.js';
import { CompletionWriter } from './completions.js';
import { probeLiveness } from './liveness.js';
import { crawlOrigin } from './origin.js';
import { normalizeOrigin } from './origins.js';
import {
  type AgentState,
  bodyRow,
  type ClaimedHost,
  type Completion,
  CrawlQueue,
  documentRow,
  emptySnapshot,
  type HostSnapshot,
  revalidationsAfter,
} from './queue.js';
import type { CrawlAgentRow, CrawlDocumentRow, CrawlHostRow, CrawlTables } from './tables.js';
import type {
  CrawledAgent,
  CrawlSink,
  DocumentRecord,
  LivenessResult,
  OriginCrawl,
  PreviousDocument,
} from './types.js';

export interface CrawlerOptions {
  /** A database the crawl migrations (`crawlMigrations`) have run on. */
  db: Kysely<CrawlTables>;
  fetcher: SecureFetcher;
  sink: CrawlSink;
  /** Origins crawled at once (default 16). */
  concurrency?: number;
  /** Requests in flight per origin (default 2). */
  perOrigin?: number;
  /** Bounds on a document's re-crawl interval, whatever its cache headers say (default 1 min and 1 day). */
  minIntervalMs?: number;
  maxIntervalMs?: number;
  /** The interval of a document whose headers give no lifetime (default 1 hour, within the bounds). */
  defaultIntervalMs?: number;
  /** Crawls in a row an agent may be missing, or its origin unreachable, before it is tombstoned (default 3). */
  failureThreshold?: number;
  /** How long a claim holds before another crawler may take the host over (default 5 min). */
  leaseMs?: number;
  /**
   * Names this crawler's claims. A crawler restarted with the same id takes its unfinished claims back at once;
   * others wait for the lease to expire. The default names this machine and process
   * (`crawler:<hostname>:<pid>:<uuid>`), so that claims left by a crawler process that died on this machine are
   * taken back at once by the next crawler to run.
   */
  instanceId?: string;
  /** Per request (default: the fetcher's). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Liveness probes after a crawl, at most once per `intervalMs` per agent (default 6 h); `false` turns them off. */
  liveness?: false | { intervalMs?: number; timeoutMs?: number };
  /**
   * Agents kept per origin and crawl (default 1,000, as one publisher may hold; `null` for no limit): one index
   * cannot flood the registry. Past it, the rest are dropped and reported (`CrawlProgress.dropped`).
   */
  maxAgentsPerOrigin?: number | null;
  /** Linked documents followed per origin and crawl (default 64; `null` for no limit); the rest are skipped. */
  maxDocumentsPerOrigin?: number | null;
  /** Queue the origins other origins link to (default false). */
  followDiscovered?: boolean;
  /** Longest sleep of the background loop between checks for due hosts (default 30 s). */
  idlePollMs?: number;
  now?: () => number;
}

/**
 * `not-due`: a crawl by hand (`RunOptions.origins` without `refresh`) found every document of the origin still
 * fresh and sent nothing; the origin is left as it was, due at `nextDueAt`.
 */
export type CrawlOutcome = 'changed' | 'unchanged' | 'unreachable' | 'error' | 'not-due';

export interface CrawlProgress {
  origin: string;
  outcome: CrawlOutcome;
  /** Why, for `unreachable` and `error`. */
  error?: string;
  /** Origins finished in this run, of `total` due when it started (more may become due). */
  done: number;
  failed: number;
  total: number;
  /** Requests sent in this run. */
  documents: number;
  /** The origin's active agents after this crawl. */
  agents: number;
  /** For `not-due`: when its first document is due (ISO 8601). */
  nextDueAt?: string;
  /** What the per-origin limits left out of this crawl (absent when nothing). */
  dropped?: { agents: number; documents: number };
  elapsedMs: number;
}

export interface CrawlSummary {
  origins: number;
  changed: number;
  unchanged: number;
  /** Origins asked for by hand with nothing due (`not-due`): nothing was sent, nothing recorded. */
  notDue: number;
  failed: number;
  documents: number;
  /** Agents handed to the sink: `added` (new, or back after a tombstone) plus `updated` (changed, or back). */
  upserted: number;
  added: number;
  updated: number;
  /** Agents crawled again as they were. */
  unchangedAgents: number;
  markedInactive: number;
  tombstoned: number;
  /** Agents and linked documents left out by the per-origin limits (`maxAgentsPerOrigin`, `maxDocumentsPerOrigin`). */
  dropped: { agents: number; documents: number };
  elapsedMs: number;
  /** The run was stopped before every due host was crawled. */
  aborted: boolean;
}

export interface RunOptions {
  onProgress?: (progress: CrawlProgress) => void;
  signal?: AbortSignal;
  /**
   * Crawl these queued origins now, due or not (a crawl asked for by hand), instead of every host that is due.
   * Their documents still fresh are not fetched again unless `refresh`; an origin with no document due is then
   * reported `not-due` and left as it was. Origins not queued, or claimed by another crawler, are left out.
   */
  origins?: readonly string[];
  /**
   * With `origins`: ask for every document of every one of them (`true`) or of these (a list) again (conditional
   * requests), fresh or not, failed ones included. What
   * naming an origin by hand means: a document that failed for a reason since removed (plain HTTP, before it was
   * allowed) is not reused until its backoff ends.
   */
  refresh?: boolean | readonly string[];
}

export interface HostStatus {
  origin: string;
  addedBy: string;
  addedAt: string;
  state: 'idle' | 'claimed';
  nextDueAt: string;
  lastCrawledAt?: string;
  lastOutcome?: string;
  /** Crawls in a row that failed. */
  failures: number;
  lastError?: string;
  crawls: number;
  /** Active agents. */
  agents: number;
  /** Documents read (ok or not modified) at the last crawl. */
  documents: number;
}

export interface HostDetail extends HostStatus {
  documentRecords: Array<Omit<DocumentRecord, 'body' | 'fetched'> & { expiresAt: string }>;
  agentStates: Array<{
    agentId: string;
    state: CrawlAgentRow['state'];
    inactiveReason?: string;
    liveness?: { status: string; checkedAt?: string; lastSeenAt?: string; latencyMs?: number };
  }>;
}

export interface Crawler {
  /** The policy of the fetcher crawls go through (whether plain HTTP is allowed, …). */
  readonly fetchPolicy: Readonly<FetchPolicy>;
  /**
   * Queues origins (URLs or bare host names, normalised). Already queued ones are made due now when `due: 'now'`.
   * Returns the origins that were new. Throws a TypeError naming an input that is not an origin.
   */
  add(origins: readonly string[], options?: { addedBy?: string; due?: 'now' }): Promise<string[]>;
  /** Stops crawling an origin and tombstones its agents. False when it was not queued. */
  remove(origin: string): Promise<boolean>;
  /** Crawls every host due now, `concurrency` at a time; resolves when done or stopped by the signal. */
  runOnce(options?: RunOptions): Promise<CrawlSummary>;
  /** Keeps crawling in the background until `stop()`. */
  start(options?: { onProgress?: RunOptions['onProgress']; onError?: (error: unknown) => void }): void;
  stop(): Promise<void>;
  /** Queued hosts in origin order; with `after` and `limit`, one page of them. */
  hosts(page?: { after?: string; limit?: number }): Promise<HostStatus[]>;
  host(origin: string): Promise<HostDetail | undefined>;
}

/**
 * A crawler over a database of its own or a registry's (`registry.crawler` is one): it queues origins, finds their
 * agent documents, keeps them fresh by their cache headers and hands what changed to its sink.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@agentry/registry';
 *
 * const registry = await createRegistry({ databasePath: 'agentry.db', crawl: { enabled: false, concurrency: 8 } });
 * await registry.crawler.add(['https://agents.example.com', 'planner.example.com']);
 * const summary = await registry.crawler.runOnce(); // every host due now; `crawl: { enabled: true }` keeps at it
 * console.log(summary, await registry.crawler.host('https://agents.example.com'));
 * await registry.close();
 * ```
 */
export function createCrawler(options: CrawlerOptions): Crawler {
  return new QueueCrawler(options);
}

interface Settings {
  concurrency: number;
  perOrigin: number;
  minIntervalMs: number;
  maxIntervalMs: number;
  defaultIntervalMs: number;
  failureThreshold: number;
  leaseMs: number;
  instanceId: string;
  idlePollMs: number;
  liveness: false | { intervalMs: number; timeoutMs: number };
}

class QueueCrawler implements Crawler {
  readonly #queue: CrawlQueue;
  readonly #settings: Settings;
  readonly #now: () => number;
  #ownClaimsReleased = false;
  #loop: { controller: AbortController; done: Promise<void>; wake: () => void } | undefined;

  constructor(private readonly options: CrawlerOptions) {
    this.#queue = new CrawlQueue(options.db);
    this.#now = options.now ?? Date.now;
    const minIntervalMs = Math.max(1, options.minIntervalMs ?? 60_000);
    const maxIntervalMs = Math.max(minIntervalMs, options.maxIntervalMs ?? 86_400_000);
    const liveness = options.liveness ?? {};
    this.#settings = {
      concurrency: positive(options.concurrency ?? 16, 'concurrency'),
      perOrigin: positive(options.perOrigin ?? 2, 'perOrigin'),
      minIntervalMs,
      maxIntervalMs,
      defaultIntervalMs: clamp(options.defaultIntervalMs ?? 3_600_000, minIntervalMs, maxIntervalMs),
      failureThreshold: positive(options.failureThreshold ?? 3, 'failureThreshold'),
      leaseMs: positive(options.leaseMs ?? 300_000, 'leaseMs'),
      instanceId: options.instanceId ?? localInstanceId(),
      idlePollMs: positive(options.idlePollMs ?? 30_000, 'idlePollMs'),
      liveness:
        liveness === false
          ? false
          : { intervalMs: liveness.intervalMs ?? 6 * 3_600_000, timeoutMs: liveness.timeoutMs ?? 5000 },
    };
  }

  get fetchPolicy(): Readonly<FetchPolicy> {
    return this.options.fetcher.policy;
  }

  async add(origins: readonly string[], options: { addedBy?: string; due?: 'now' } = {}): Promise<string[]> {
    const normalised = origins.map(normalizeOrigin);
    const now = this.#iso();
    const added = await this.#queue.add(normalised, options.addedBy ?? 'api', now);
    if (options.due === 'now') await this.#queue.makeDue(normalised, now);
    // The background loop may be asleep until the next host it knew of is due: what was just queued is due now.
    if (added.length > 0 || options.due === 'now') this.#loop?.wake();
    return added;
  }

  async remove(origin: string): Promise<boolean> {
    const key = normalizeOrigin(origin);
    const agentIds = await this.#queue.remove(key);
    if (agentIds === undefined) return false;
    if (agentIds.length > 0) await this.options.sink.tombstone(key, agentIds);
    return true;
  }

  async runOnce(run: RunOptions = {}): Promise<CrawlSummary> {
    if (!this.#ownClaimsReleased) {
      // A crawler restarted under the same id resumes its unfinished claims at once.
      await this.#queue.release(this.#settings.instanceId);
      this.#ownClaimsReleased = true;
    }
    // So does one that follows a crawler killed on this machine (kill -9, a crash): its claims need not wait for
    // their lease to run out.
    for (const claimant of await this.#queue.claimants()) {
      if (isDeadLocalCrawler(claimant)) await this.#queue.release(claimant);
    }
    const started = performance.now();
    const dueBy = this.#iso();
    const chosen = run.origins === undefined ? undefined : [...new Set(run.origins.map(normalizeOrigin))];
    const refreshed = Array.isArray(run.refresh) ? new Set(run.refresh.map(normalizeOrigin)) : undefined;
    /** Whether the origin is crawled by hand, and whether every one of its documents is asked for again. */
    const refreshes = (origin: string): CrawlMode => {
      if (chosen === undefined) return 'due';
      return run.refresh === true || refreshed?.has(origin) === true ? 'refresh' : 'by-hand';
    };
    const total = chosen?.length ?? (await this.#queue.countDue(dueBy));
    const summary: CrawlSummary = {
      origins: 0,
      changed: 0,
      unchanged: 0,
      notDue: 0,
      failed: 0,
      documents: 0,
      upserted: 0,
      added: 0,
      updated: 0,
      unchangedAgents: 0,
      markedInactive: 0,
      tombstoned: 0,
      dropped: { agents: 0, documents: 0 },
      elapsedMs: 0,
      aborted: false,
    };
    const buffer: ClaimedCrawl[] = [];
    const interrupted: string[] = [];
    // A batch waits for a quarter of the workers at most: each waits for its own crawl's commit before taking the next
    // host, and waiting for half of them could leave too few crawling to keep the fetcher busy when hosts finish
    // fast (an unchanged re-crawl).
    const writer = new CompletionWriter(this.#queue, Math.ceil(this.#settings.concurrency / 4));
    let exhausted = false;
    let refilling: Promise<void> | undefined;
    let refillError: { error: unknown } | undefined;
    // Claims are taken (with what their last crawls left) a batch ahead, while the workers still have hosts to
    // crawl, so that no worker waits on the database between two hosts.
    const refill = (): void => {
      refilling ??= (async () => {
        const now = this.#now();
        const times = {
          now: new Date(now).toISOString(),
          dueBy,
          leaseUntil: new Date(now + this.#settings.leaseMs).toISOString(),
        };
        const { concurrency, instanceId } = this.#settings;
        let claimed: ClaimedHost[];
        if (chosen === undefined) {
          claimed = await this.#queue.claim(concurrency, instanceId, times);
          exhausted = claimed.length === 0;
        } else {
          // Hosts that cannot be claimed (removed, or another crawler's) are passed over, not waited for.
          claimed = [];
          while (claimed.length === 0 && chosen.length > 0) {
            claimed = await this.#queue.claimOrigins(chosen.splice(0, concurrency), instanceId, times);
          }
          exhausted = chosen.length === 0;
        }
        if (claimed.length === 0) return;
        const snapshots = await this.#queue.snapshots(claimed.map((host) => host.origin));
        for (const host of claimed) {
          buffer.push({
            ...host,
            snapshot: snapshots.get(host.origin) ?? emptySnapshot(),
          });
        }
      })()
        .catch((error: unknown) => {
          refillError = { error };
        })
        .finally(() => {
          refilling = undefined;
        });
    };
    const next = async (): Promise<ClaimedCrawl | undefined> => {
      for (;;) {
        if (refillError !== undefined) throw refillError.error;
        if (run.signal?.aborted) return undefined;
        if (!exhausted && buffer.length <= this.#settings.concurrency / 2) refill();
        if (buffer.length > 0) return buffer.shift();
        if (refilling === undefined) return undefined;
        await refilling;
      }
    };
    const worker = async (): Promise<void> => {
      for (let claimed = await next(); claimed !== undefined; claimed = await next()) {
        const { origin } = claimed;
        const outcome = await this.#crawlOne(claimed, run.signal, refreshes(origin), summary, writer);
        if (outcome === undefined) {
          interrupted.push(origin);
          break;
        }
        summary.origins++;
        if (outcome.outcome === 'changed') summary.changed++;
        else if (outcome.outcome === 'unchanged') summary.unchanged++;
        else if (outcome.outcome === 'not-due') summary.notDue++;
        else summary.failed++;
        run.onProgress?.({
          origin,
          outcome: outcome.outcome,
          ...(outcome.error === undefined ? {} : { error: outcome.error }),
          done: summary.origins,
          failed: summary.failed,
          total,
          documents: summary.documents,
          agents: outcome.agents,
          ...(outcome.nextDueAt === undefined ? {} : { nextDueAt: outcome.nextDueAt }),
          ...(outcome.dropped === undefined ? {} : { dropped: outcome.dropped }),
          elapsedMs: performance.now() - started,
        });
      }
    };
    // Every worker is waited for, even after one failed, so that nothing runs on after the run has returned.
    const workers = await Promise.allSettled(Array.from({ length: this.#settings.concurrency }, worker));
    // A claim still being taken when the workers stopped ends in the buffer, and is given back below.
    while (refilling !== undefined) await refilling;
    // Stopped: what was claimed but not finished goes back to the queue, due as it was.
    const unfinished = [...buffer.splice(0).map((claimed) => claimed.origin), ...interrupted];
    if (unfinished.length > 0) await this.#queue.release(this.#settings.instanceId, unfinished);
    const failure = workers.find((result) => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    summary.aborted = run.signal?.aborted === true;
    summary.elapsedMs = performance.now() - started;
    return summary;
  }

  start(options: { onProgress?: RunOptions['onProgress']; onError?: (error: unknown) => void } = {}): void {
    if (this.#loop !== undefined) return;
    const controller = new AbortController();
    const { signal } = controller;
    let alarm = new AbortController();
    const done = (async () => {
      while (!signal.aborted) {
        try {
          await this.runOnce({ signal, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
          const nextDue = await this.#queue.nextDueAt();
          const wait = nextDue === undefined ? this.#settings.idlePollMs : Date.parse(nextDue) - this.#now();
          await sleep(clamp(wait, 10, this.#settings.idlePollMs), [signal, alarm.signal]);
        } catch (error) {
          if (signal.aborted) break;
          options.onError?.(error);
          await sleep(this.#settings.idlePollMs, [signal, alarm.signal]);
        }
        if (alarm.signal.aborted) alarm = new AbortController();
      }
    })();
    this.#loop = { controller, done, wake: () => alarm.abort() };
  }

  async stop(): Promise<void> {
    const loop = this.#loop;
    if (loop === undefined) return;
    this.#loop = undefined;
    loop.controller.abort();
    await loop.done;
    await this.#queue.release(this.#settings.instanceId);
  }

  async hosts(page: { after?: string; limit?: number } = {}): Promise<HostStatus[]> {
    return (await this.#queue.hosts(page)).map((row) => hostStatus(row, row.agents, row.documents));
  }

  async host(origin: string): Promise<HostDetail | undefined> {
    const key = normalizeOrigin(origin);
    const row = await this.#queue.host(key);
    if (row === undefined) return undefined;
    const [documents, agents] = await Promise.all([this.#queue.documents(key), this.#queue.agents(key)]);
    const read = documents.filter(
      (document) => document.status === 'ok' || document.status === 'not-modified',
    );
    return {
      ...hostStatus(row, agents.filter((agent) => agent.state === 'active').length, read.length),
      documentRecords: documents.map(documentDetail),
      agentStates: agents.map((agent) => ({
        agentId: agent.agent_id,
        state: agent.state,
        ...(agent.inactive_reason === null ? {} : { inactiveReason: agent.inactive_reason }),
        ...(agent.liveness_status === null
          ? {}
          : {
              liveness: {
                status: agent.liveness_status,
                ...(agent.liveness_checked_at === null ? {} : { checkedAt: agent.liveness_checked_at }),
                ...(agent.liveness_seen_at === null ? {} : { lastSeenAt: agent.liveness_seen_at }),
                ...(agent.liveness_latency_ms === null ? {} : { latencyMs: agent.liveness_latency_ms }),
              },
            }),
      })),
    };
  }

  /** One claimed host: crawl, tell the sink, record. Undefined when the run was stopped mid-crawl. */
  async #crawlOne(
    claimed: ClaimedCrawl,
    signal: AbortSignal | undefined,
    mode: CrawlMode,
    summary: CrawlSummary,
    writer: CompletionWriter,
  ): Promise<CrawlOneOutcome | undefined> {
    const { origin, failures } = claimed;
    const { previous, agents: known } = claimed.snapshot;
    try {
      const crawl = await crawlOrigin(origin, {
        fetcher: this.options.fetcher,
        previous,
        onlyDue: mode !== 'refresh',
        perOrigin: this.#settings.perOrigin,
        now: this.#now,
        loadBodies: () => this.#queue.bodies(origin),
        ...(this.options.maxAgentsPerOrigin === undefined
          ? {}
          : { maxAgents: this.options.maxAgentsPerOrigin }),
        ...(this.options.maxDocumentsPerOrigin === undefined
          ? {}
          : { maxDocuments: this.options.maxDocumentsPerOrigin }),
        ...(signal === undefined ? {} : { signal }),
        ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
        ...(this.options.maxResponseBytes === undefined
          ? {}
          : { maxResponseBytes: this.options.maxResponseBytes }),
      });
      const sent = crawl.documents.filter((record) => record.fetched).length;
      summary.documents += sent;
      if (mode === 'by-hand' && sent === 0 && crawl.unchanged) {
        // Nothing was due: nothing was crawled, so nothing is recorded (a crawl would say it saw the origin now).
        await this.#queue.release(this.#settings.instanceId, [origin]);
        return {
          outcome: 'not-due',
          agents: known.filter((agent) => agent.state === 'active').length,
          nextDueAt: firstExpiry(previous) ?? this.#iso(),
        };
      }
      const plan = this.#plan(crawl, previous, known, failures, claimed.snapshot);
      if (plan.revived.length > 0)
        plan.upserts.push(...(await this.#queue.crawledAgents(origin, plan.revived)));
      const { sink } = this.options;
      if (plan.upserts.length > 0) await sink.upsertCrawled(origin, plan.upserts);
      if (plan.inactive.length > 0) await sink.markInactive(origin, plan.inactive);
      if (plan.tombstones.length > 0) await sink.tombstone(origin, plan.tombstones);
      if (!(await writer.record(plan.completion))) {
        // Removed while it was crawled: what this crawl upserted must not outlive the removal's tombstones.
        const revived = plan.upserts.map((agent) => agent.id);
        if (revived.length > 0) await sink.tombstone(origin, revived);
        return { outcome: 'error', error: 'Removed from the queue while it was crawled.', agents: 0 };
      }
      summary.upserted += plan.upserts.length;
      summary.added += plan.agents.added;
      summary.updated += plan.agents.updated;
      summary.unchangedAgents += plan.agents.unchanged;
      summary.markedInactive += plan.inactive.length;
      summary.tombstoned += plan.tombstones.length;
      if (crawl.discovered.length > 0 && this.options.followDiscovered === true) {
        await this.#queue.add(crawl.discovered, 'discovered', this.#iso());
      }
      if (this.#settings.liveness !== false) await this.#probe(origin, signal);
      const agents = plan.agents.active;
      if (crawl.dropped !== undefined) {
        summary.dropped.agents += crawl.dropped.agents;
        summary.dropped.documents += crawl.dropped.documents;
      }
      const dropped = crawl.dropped === undefined ? {} : { dropped: crawl.dropped };
      return plan.outcome === 'unreachable'
        ? {
            outcome: plan.outcome,
            error: plan.completion.host.last_error ?? 'Unreachable.',
            agents,
            ...dropped,
          }
        : { outcome: plan.outcome, agents, ...dropped };
    } catch (error) {
      if (signal?.aborted) return undefined;
      const message = `${error instanceof Error ? error.message : String(error)}`;
      const now = this.#now();
      const retry = new Date(now + this.#backoff(failures + 1)).toISOString();
      await this.#queue.fail(origin, message, retry, new Date(now).toISOString());
      return {
        outcome: 'error',
        error: message,
        agents: known.filter((agent) => agent.state === 'active').length,
      };
    }
  }

  /** What the crawl means: sink calls, document and agent rows, the host's next due time. */
  #plan(
    crawl: OriginCrawl,
    previous: Map<string, { expiresAt?: string }>,
    known: readonly AgentState[],
    failuresBefore: number,
    snapshot: HostSnapshot,
  ): Plan {
    const now = this.#now();
    const nowIso = new Date(now).toISOString();
    const threshold = this.#settings.failureThreshold;
    const plan: Plan = {
      outcome: crawl.unreachable ? 'unreachable' : crawl.unchanged ? 'unchanged' : 'changed',
      upserts: [],
      revived: [],
      inactive: [],
      tombstones: [],
      agents: { added: 0, updated: 0, unchanged: 0, active: 0 },
      completion: {
        origin: crawl.origin,
        agentUpserts: [],
        agentStates: [],
        host: {
          next_due_at: nowIso,
          failures: 0,
          last_error: null,
          last_outcome: null,
          last_crawled_at: nowIso,
          revalidated: null,
        },
      },
    };
    const completion = plan.completion;
    completion.host.last_outcome = plan.outcome;
    const expiries = crawl.documents.map((record) =>
      this.#expiresAt(record, previous.get(record.url)?.expiresAt, now),
    );
    const rowOf = (index: number): CrawlDocumentRow =>
      documentRow(crawl.origin, crawl.documents[index]!, expiries[index]!);
    if (crawl.unchanged && !crawl.unreachable) {
      // Only what was asked for again changed: its validators and due time. That goes into the host's row, which is
      // written anyway, rather than into each document's; a document that stops (or starts) counting as read, which
      // the host's counts take from the documents' rows, has its row written.
      const revalidated: CrawlDocumentRow[] = [];
      const inPlace: CrawlDocumentRow[] = [];
      crawl.documents.forEach((record, i) => {
        if (!record.fetched) return;
        const row = rowOf(i);
        const counted = isRead(row.status) === isRead(snapshot.stored.get(record.url)?.status);
        (counted ? revalidated : inPlace).push(row);
      });
      if (inPlace.length > 0) completion.documentUpdates = inPlace;
      completion.host.revalidated = revalidationsAfter(snapshot.revalidated, revalidated, inPlace);
    } else {
      completion.documents = crawl.documents.map((_record, i) => rowOf(i));
      completion.bodies = crawl.documents.flatMap((record) => bodyRow(crawl.origin, record) ?? []);
    }
    const dueTimes = expiries.filter((_expiry, i) => crawl.documents[i]!.status !== 'skipped');
    completion.host.next_due_at = dueTimes.length === 0 ? nowIso : dueTimes.sort()[0]!;

    if (crawl.unreachable) {
      const failures = failuresBefore + 1;
      completion.host.failures = failures;
      completion.host.last_error = firstReason(crawl.documents);
      completion.host.next_due_at = new Date(now + this.#backoff(failures)).toISOString();
      // The whole origin is retried on the backoff, its failed documents with it.
      for (const row of completion.documents ?? []) {
        if (row.status === 'failed') row.expires_at = completion.host.next_due_at;
      }
      for (const agent of known) {
        if (agent.state === 'tombstoned') continue;
        if (failures >= threshold) {
          plan.tombstones.push(agent.agent_id);
          completion.agentStates.push(state(agent.agent_id, 'tombstoned', null, agent.missing_count));
        } else if (agent.state === 'active') {
          plan.inactive.push(agent.agent_id);
          completion.agentStates.push(state(agent.agent_id, 'inactive', 'unreachable', agent.missing_count));
        }
      }
      return plan;
    }

    if (crawl.unchanged) {
      for (const agent of known) {
        if (agent.state === 'active') plan.agents.unchanged++;
        if (agent.state !== 'inactive') continue;
        if (agent.inactive_reason === 'unreachable') {
          // Back after being unreachable: the agents are what they were.
          plan.revived.push(agent.agent_id);
          plan.agents.updated++;
          completion.agentStates.push(state(agent.agent_id, 'active', null, 0));
        } else {
          this.#miss(agent, plan);
        }
      }
      plan.agents.active = plan.agents.unchanged + plan.agents.updated;
      return plan;
    }

    const byId = new Map(known.map((agent) => [agent.agent_id, agent]));
    const current = new Set<string>();
    for (const crawled of crawl.agents) {
      current.add(crawled.id);
      const hash = agentHash(crawled);
      const before = byId.get(crawled.id);
      plan.agents.active++;
      if (before !== undefined && before.state === 'active' && before.hash === hash) {
        plan.agents.unchanged++;
        continue;
      }
      if (before === undefined || before.state === 'tombstoned') plan.agents.added++;
      else plan.agents.updated++;
      plan.upserts.push(crawled);
      completion.agentUpserts.push({
        origin: crawl.origin,
        agent_id: crawled.id,
        state: 'active',
        inactive_reason: null,
        missing_count: 0,
        hash,
        crawled: JSON.stringify(crawled),
        first_seen_at: before?.first_seen_at ?? nowIso,
        updated_at: nowIso,
        liveness_status: null,
        liveness_checked_at: null,
        liveness_seen_at: null,
        liveness_latency_ms: null,
        liveness_due_at: null,
      });
    }
    for (const agent of known) {
      if (current.has(agent.agent_id) || agent.state === 'tombstoned') continue;
      this.#miss(agent, plan);
    }
    return plan;
  }

  /** One more crawl without the agent: inactive at the first, tombstoned at `failureThreshold`. */
  #miss(agent: AgentState, plan: Plan): void {
    const misses = agent.missing_count + 1;
    if (misses >= this.#settings.failureThreshold) {
      plan.tombstones.push(agent.agent_id);
      plan.completion.agentStates.push(state(agent.agent_id, 'tombstoned', null, misses));
    } else {
      if (agent.state === 'active') plan.inactive.push(agent.agent_id);
      plan.completion.agentStates.push(state(agent.agent_id, 'inactive', 'missing', misses));
    }
  }

  /** When a document is due again: its cache lifetime within the bounds; missing ones at the maximum. */
  #expiresAt(record: DocumentRecord, previousExpiry: string | undefined, now: number): string {
    if (!record.fetched && previousExpiry !== undefined) return previousExpiry;
    const { minIntervalMs, maxIntervalMs, defaultIntervalMs } = this.#settings;
    let interval: number;
    switch (record.status) {
      case 'ok':
      case 'not-modified':
        interval =
          record.lifetimeSeconds === undefined
            ? defaultIntervalMs
            : clamp(record.lifetimeSeconds * 1000, minIntervalMs, maxIntervalMs);
        break;
      case 'failed':
        interval = clamp(defaultIntervalMs / 4, minIntervalMs, maxIntervalMs);
        break;
      default:
        interval = maxIntervalMs;
    }
    return new Date(now + interval).toISOString();
  }

  /** Waiting time after `failures` failed crawls in a row: doubling from the minimum interval, up to the maximum. */
  #backoff(failures: number): number {
    const { minIntervalMs, maxIntervalMs } = this.#settings;
    return clamp(minIntervalMs * 2 ** Math.min(failures, 30), minIntervalMs, maxIntervalMs);
  }

  async #probe(origin: string, signal: AbortSignal | undefined): Promise<void> {
    const settings = this.#settings.liveness;
    if (settings === false) return;
    const now = this.#now();
    const due = (await this.#queue.agents(origin)).filter(
      (agent) =>
        agent.state === 'active' &&
        (agent.liveness_due_at === null || Date.parse(agent.liveness_due_at) <= now),
    );
    const limiter = new Limiter(this.#settings.perOrigin);
    await Promise.all(
      due.map((row) =>
        limiter.run(async () => {
          const crawled = JSON.parse(row.crawled) as CrawledAgent;
          const result: LivenessResult = await probeLiveness(crawled.agent, {
            fetcher: this.options.fetcher,
            timeoutMs: settings.timeoutMs,
            now: this.#now,
            ...(signal === undefined ? {} : { signal }),
          });
          await this.options.sink.recordLiveness(origin, row.agent_id, result);
          await this.#queue.recordLiveness(origin, row.agent_id, {
            liveness_status: result.status,
            liveness_checked_at: result.checkedAt,
            liveness_seen_at: result.lastSeenAt ?? null,
            liveness_latency_ms: result.latencyMs ?? null,
            liveness_due_at: new Date(now + settings.intervalMs).toISOString(),
          });
        }),
      ),
    );
  }

  #iso(): string {
    return new Date(this.#now()).toISOString();
  }
}

interface CrawlOneOutcome {
  outcome: CrawlOutcome;
  error?: string;
  agents: number;
  nextDueAt?: string;
  dropped?: { agents: number; documents: number };
}

/**
 * How a host is crawled: `due` (the queue's own schedule: its due documents), `by-hand` (named by hand: its due
 * documents, or nothing when none is due), `refresh` (named by hand: every document asked for again).
 */
type CrawlMode = 'due' | 'by-hand' | 'refresh';

interface ClaimedCrawl extends ClaimedHost {
  snapshot: HostSnapshot;
}

interface Plan {
  outcome: CrawlOutcome;
  upserts: CrawledAgent[];
  /** Agents back after their origin was unreachable: upserted as they were stored. */
  revived: string[];
  inactive: string[];
  tombstones: string[];
  /** How the origin's agents fared, and how many are active after the crawl. */
  agents: { added: number; updated: number; unchanged: number; active: number };
  completion: Completion;
}

function state(
  agentId: string,
  value: CrawlAgentRow['state'],
  inactiveReason: CrawlAgentRow['inactive_reason'],
  missingCount: number,
): Completion['agentStates'][number] {
  return { agentId, state: value, inactiveReason, missingCount };
}

/**
 * A digest of what a crawled agent says, leaving out when it was fetched and the validators of its documents (a
 * document that changed for another agent's sake does not change this one): equal digests mean nothing changed.
 */
export function agentHash(crawled: CrawledAgent): string {
  const { provenance, ...agent } = crawled.agent;
  const stable = {
    ...crawled,
    agent: {
      ...agent,
      provenance:
        provenance === undefined
          ? null
          : { ...provenance, fetchedAt: null, lastVerified: null, etag: null, lastModified: null },
    },
    sources: crawled.sources.map(({ url, format, origin, primary }) => ({ url, format, origin, primary })),
  };
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url');
}

/** Read at the last crawl (ok or not modified): what a host's document count counts. */
function isRead(status: string | undefined): boolean {
  return status === 'ok' || status === 'not-modified';
}

/** When the first of the stored documents (skipped ones aside) stops being fresh. */
function firstExpiry(previous: ReadonlyMap<string, PreviousDocument>): string | undefined {
  const expiries = [...previous.values()].flatMap((stored) =>
    stored.status === 'skipped' || stored.expiresAt === undefined ? [] : [stored.expiresAt],
  );
  return expiries.sort()[0];
}

function firstReason(documents: readonly DocumentRecord[]): string {
  return documents.find((record) => record.reason !== undefined)?.reason ?? 'No document could be fetched.';
}

function hostStatus(row: CrawlHostRow, agents: number, documents: number): HostStatus {
  const status: HostStatus = {
    origin: row.origin,
    addedBy: row.added_by,
    addedAt: row.added_at,
    state: row.status,
    nextDueAt: row.next_due_at,
    failures: row.failures,
    crawls: row.crawls,
    agents,
    documents,
  };
  if (row.last_crawled_at !== null) status.lastCrawledAt = row.last_crawled_at;
  if (row.last_outcome !== null) status.lastOutcome = row.last_outcome;
  if (row.last_error !== null) status.lastError = row.last_error;
  return status;
}

function documentDetail(row: CrawlDocumentRow): HostDetail['documentRecords'][number] {
  const detail: HostDetail['documentRecords'][number] = {
    url: row.url,
    status: row.status as DocumentRecord['status'],
    fetchedAt: row.fetched_at,
    expiresAt: row.expires_at,
    origin: row.source === 'synthetic' ? 'synthetic' : 'native',
  };
  if (row.kind !== null) detail.kind = row.kind as NonNullable<DocumentRecord['kind']>;
  if (row.reason !== null) detail.reason = row.reason;
  if (row.http_status !== null) detail.httpStatus = row.http_status;
  if (row.etag !== null) detail.etag = row.etag;
  if (row.last_modified !== null) detail.lastModified = row.last_modified;
  if (row.lifetime_seconds !== null) detail.lifetimeSeconds = row.lifetime_seconds;
  if (row.linked_from !== null) detail.linkedFrom = row.linked_from;
  if (row.agent_ids !== null) detail.agentIds = JSON.parse(row.agent_ids) as string[];
  if (row.issues !== null) detail.issues = JSON.parse(row.issues) as string[];
  return detail;
}

/** The default instance id: this machine, this process, and a random part for crawlers sharing a process. */
function localInstanceId(): string {
  return `crawler:${hostname()}:${process.pid}:${randomUUID()}`;
}

/**
 * True for the default id of a crawler on this machine whose process is gone. A process id taken again by another
 * process reads as alive: its claims then wait for their lease, as any other crawler's.
 */
function isDeadLocalCrawler(instanceId: string): boolean {
  const parts = instanceId.split(':');
  if (parts.length < 4 || parts[0] !== 'crawler') return false;
  const pid = Number(parts.at(-2));
  if (parts.slice(1, -2).join(':') !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`CrawlerOptions.${name} must be positive (got ${value}).`);
  return value;
}

/**
 * Waits `ms`, or until one of the signals aborts. (Not `AbortSignal.any`: on Node 20 each call keeps a listener on
 * the long-lived loop signal, and the loop would add one per turn.)
 */
function sleep(ms: number, signals: readonly AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    }
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}
