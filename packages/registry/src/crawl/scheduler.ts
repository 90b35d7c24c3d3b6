/**
 * The crawler: a queue of origins in the database, crawled when due, each crawl's outcome turned into sink calls
 * (upsert what is new or changed, mark inactive what disappeared, tombstone what stayed gone or unreachable) and
 * recorded in one transaction. Re-crawls follow each document's cache lifetime, bounded by the minimum and maximum
 * intervals. This module does the I/O: it claims hosts (queue.ts), runs their crawls in a pool of workers
 * (concurrency/pool.ts), asks the planner what each crawl means (plan.ts) and tells the sink and the queue. See
 * docs/crawler.md.
 */
import { setMaxListeners } from 'node:events';
import type { FetchPolicy, SecureFetcher } from '@agentry/client';
import type { Kysely } from 'kysely';
import { type BackgroundLoop, startBackgroundLoop } from '../concurrency/background-loop.js';
import { Limiter } from '../concurrency/limiter.js';
import { type PoolResult, runPool } from '../concurrency/pool.js';
import type { Database } from '../db/database.js';
import { CompletionWriter } from './completions.js';
import { type HostDetail, type HostStatus, hostDetail, hostStatus } from './host-status.js';
import { isDeadLocalCrawler } from './instance-id.js';
import { probeLiveness } from './liveness.js';
import { crawlOrigin } from './origin.js';
import { normalizeOrigin } from './origins.js';
import {
  type CrawlMode,
  type CrawlOutcome,
  type CrawlPlan,
  crawlMode,
  idleWait,
  livenessDue,
  planCrawl,
} from './plan.js';
import { CrawlQueue } from './queue.js';
import { type ClaimedHost, emptySnapshot, type HostSnapshot } from './rows.js';
import { type CrawlSettings, crawlSettings } from './settings.js';
import type { CrawledAgent, CrawlSink, LivenessResult } from './types.js';

export type { HostDetail, HostStatus } from './host-status.js';
export type { CrawlOutcome } from './plan.js';

export interface CrawlerOptions {
  /** A database the crawl migrations (`crawlMigrations`) have run on. */
  db: Kysely<Database>;
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
  /**
   * How long a claim holds before another crawler may take the host over (default 5 min). A crawler renews its
   * claims every third of it while it crawls them, so only the claims of a crawler that died (or lost the
   * database) expire; replicas sharing a database take those over once the lease has run out.
   */
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

export interface CrawlProgress {
  origin: string;
  /**
   * How the crawl went; `taken-over` when its claim passed to another crawler meanwhile (it outlasted its lease):
   * the other crawler's result stands and this one's was dropped (counted in `CrawlSummary.lostClaims`).
   */
  outcome: CrawlOutcome | 'taken-over';
  /** Why, for `unreachable` and `error`. */
  error?: string;
  /** Origins finished in this run, taken over ones too, of `total` due when it started (more may become due). */
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
  /**
   * Hosts whose claims passed to another crawler while this one crawled them (it outlasted the lease without
   * renewing it): their results were dropped, not recorded, and are not counted in `origins`.
   */
  lostClaims: number;
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
  /**
   * Stops the background loop and every run under way, and gives back this crawler's claims, so that another
   * crawler on the same database (another replica) takes those hosts at once rather than after the lease.
   */
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
 * import { createSecureFetcher } from '@agentry/client';
 * import { createRegistry } from '@agentry/registry';
 * import { createCrawler } from '@agentry/registry/crawler';
 *
 * // A registry has its crawler (`registry.crawler`); this one crawls into the same database with settings of its own.
 * const registry = await createRegistry({ databasePath: 'agentry.db', embeddings: 'none' });
 * const fetcher = createSecureFetcher({ timeoutMs: 5000 });
 * const crawler = createCrawler({ db: registry.store.db, fetcher, sink: registry.crawlSink, concurrency: 8 });
 * await crawler.add(['https://agents.example.com', 'planner.example.com']);
 * const summary = await crawler.runOnce(); // every host due now; `crawler.start()` keeps at it
 * console.log(summary, await crawler.host('https://agents.example.com'));
 * await fetcher.close();
 * await registry.close();
 * ```
 */
export function createCrawler(options: CrawlerOptions): Crawler {
  return new QueueCrawler(options);
}

class QueueCrawler implements Crawler {
  readonly #queue: CrawlQueue;
  readonly #settings: CrawlSettings;
  readonly #now: () => number;
  #ownClaimsReleased = false;
  #loop: BackgroundLoop | undefined;
  /** Runs under way: the controller `stop()` aborts each with, and its end. */
  readonly #runs = new Map<AbortController, Promise<unknown>>();

  constructor(private readonly options: CrawlerOptions) {
    this.#queue = new CrawlQueue(options.db);
    this.#now = options.now ?? Date.now;
    this.#settings = crawlSettings(options);
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
    const stopper = new AbortController();
    // Every request of the run listens to it (concurrency × perOrigin at once).
    setMaxListeners(0, stopper.signal);
    const onAbort = () => stopper.abort();
    run.signal?.addEventListener('abort', onAbort, { once: true });
    if (run.signal?.aborted) stopper.abort();
    const running = this.#run({ ...run, signal: stopper.signal });
    this.#runs.set(stopper, running);
    try {
      return await running;
    } finally {
      this.#runs.delete(stopper);
      run.signal?.removeEventListener('abort', onAbort);
    }
  }

  async #run(run: RunOptions & { signal: AbortSignal }): Promise<CrawlSummary> {
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
    const refresh = Array.isArray(run.refresh)
      ? new Set(run.refresh.map(normalizeOrigin))
      : run.refresh === true;
    const total = chosen?.length ?? (await this.#queue.countDue(dueBy));
    const summary = emptySummary();
    // A batch waits for a quarter of the workers at most: each waits for its own crawl's commit before taking the next
    // host, and waiting for half of them could leave too few crawling to keep the fetcher busy when hosts finish
    // fast (an unchanged re-crawl).
    const { concurrency, instanceId } = this.#settings;
    const writer = new CompletionWriter(this.#queue, instanceId, Math.ceil(concurrency / 4));
    // Claims are taken (with what their last crawls left) a batch ahead, while the workers still have hosts to
    // crawl, so that no worker waits on the database between two hosts.
    const take = async (): Promise<{ tasks: ClaimedCrawl[]; last: boolean }> => {
      const now = this.#now();
      const times = {
        now: new Date(now).toISOString(),
        dueBy,
        leaseUntil: new Date(now + this.#settings.leaseMs).toISOString(),
      };
      let claimed: ClaimedHost[];
      let last: boolean;
      if (chosen === undefined) {
        claimed = await this.#queue.claim(concurrency, instanceId, times);
        last = claimed.length === 0;
      } else {
        // Hosts that cannot be claimed (removed, or another crawler's) are passed over, not waited for.
        claimed = [];
        while (claimed.length === 0 && chosen.length > 0) {
          claimed = await this.#queue.claimOrigins(chosen.splice(0, concurrency), instanceId, times);
        }
        last = chosen.length === 0;
      }
      if (claimed.length === 0) return { tasks: [], last };
      const snapshots = await this.#queue.snapshots(claimed.map((host) => host.origin));
      return {
        tasks: claimed.map((host) => ({ ...host, snapshot: snapshots.get(host.origin) ?? emptySnapshot() })),
        last,
      };
    };
    const crawl = async (claimed: ClaimedCrawl): Promise<boolean> => {
      const { origin } = claimed;
      const mode = crawlMode(origin, chosen !== undefined, refresh);
      const outcome = await this.#crawlOne(claimed, run.signal, mode, summary, writer);
      if (outcome === undefined) return false;
      const measured = () => ({
        done: summary.origins + summary.lostClaims,
        failed: summary.failed,
        total,
        documents: summary.documents,
        elapsedMs: performance.now() - started,
      });
      if (outcome.lost === true) {
        // Another crawler crawls the host now: this crawl's result is older than what it records, and is dropped.
        // The host is still reported, so that a progress count reaches its total and a watcher learns why.
        summary.lostClaims++;
        run.onProgress?.({ origin, outcome: 'taken-over', agents: 0, ...measured() });
        return true;
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
        agents: outcome.agents,
        ...(outcome.nextDueAt === undefined ? {} : { nextDueAt: outcome.nextDueAt }),
        ...(outcome.dropped === undefined ? {} : { dropped: outcome.dropped }),
        ...measured(),
      });
      return true;
    };
    // While the run crawls, its claims are renewed: a host whose crawl outlasts the lease stays this crawler's.
    const { leaseMs } = this.#settings;
    const renewal = setInterval(
      () => {
        this.#queue.renew(instanceId, new Date(this.#now() + leaseMs).toISOString()).catch(() => {
          // The database is out of reach: the claims expire, and another crawler takes the hosts over.
        });
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    let pooled: PoolResult<ClaimedCrawl>;
    try {
      pooled = await runPool({
        concurrency,
        take,
        run: crawl,
        // Claims keep two crawlers off one host; in a run, so does the pool.
        key: (claimed) => claimed.origin,
        perKey: 1,
        signal: run.signal,
      });
    } finally {
      clearInterval(renewal);
    }
    const { unfinished, failure } = pooled;
    // Stopped: what was claimed but not finished goes back to the queue, due as it was.
    if (unfinished.length > 0)
      await this.#queue.release(
        instanceId,
        unfinished.map((claimed) => claimed.origin),
      );
    if (failure !== undefined) throw failure.reason;
    summary.aborted = run.signal?.aborted === true;
    summary.elapsedMs = performance.now() - started;
    return summary;
  }

  start(options: { onProgress?: RunOptions['onProgress']; onError?: (error: unknown) => void } = {}): void {
    if (this.#loop !== undefined) return;
    this.#loop = startBackgroundLoop({
      turn: async (signal) => {
        await this.runOnce({ signal, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
        // Woken when the next idle host is due or another crawler's lease runs out, whichever comes first.
        const nextDueAt = await this.#queue.nextDueAt(this.#settings.instanceId);
        return idleWait(nextDueAt, this.#now(), this.#settings.idlePollMs);
      },
      retryMs: this.#settings.idlePollMs,
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
  }

  async stop(): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    const runs = [...this.#runs];
    for (const [stopper] of runs) stopper.abort();
    await loop?.stop();
    // A run stopped gives its own claims back as it ends (at its next await: a fetch aborts at once); then whatever
    // is left of this crawler's claims goes back too.
    await Promise.allSettled(runs.map(([, running]) => running));
    if (loop !== undefined || runs.length > 0) await this.#queue.release(this.#settings.instanceId);
  }

  async hosts(page: { after?: string; limit?: number } = {}): Promise<HostStatus[]> {
    return (await this.#queue.hosts(page)).map((row) => hostStatus(row, row.agents, row.documents));
  }

  async host(origin: string): Promise<HostDetail | undefined> {
    const key = normalizeOrigin(origin);
    const row = await this.#queue.host(key);
    if (row === undefined) return undefined;
    const [documents, agents] = await Promise.all([this.#queue.documents(key), this.#queue.agents(key)]);
    return hostDetail(row, documents, agents);
  }

  /** One claimed host: crawl, plan, tell the sink, record. Undefined when the run was stopped mid-crawl. */
  async #crawlOne(
    claimed: ClaimedCrawl,
    signal: AbortSignal | undefined,
    mode: CrawlMode,
    summary: CrawlSummary,
    writer: CompletionWriter,
  ): Promise<CrawlOneOutcome | undefined> {
    const { origin, failures, snapshot } = claimed;
    try {
      const crawl = await crawlOrigin(origin, {
        fetcher: this.options.fetcher,
        previous: snapshot.previous,
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
      const plan = planCrawl(
        { origin, mode, failures, snapshot, result: { crawl } },
        this.#now(),
        this.#settings,
      );
      summary.documents += plan.requests;
      if ('release' in plan.write) {
        await this.#queue.release(this.#settings.instanceId, [origin]);
        return reported(plan);
      }
      if (!('complete' in plan.write)) return reported(plan);
      // A crawl that outlasted its lease (the crawler stalled, or lost the database, and could not renew it) may
      // have lost its host to another crawler, whose result is newer: nothing of this one is told to anyone. The
      // claim held is extended for a whole lease, so that it holds while the sink and the queue are written.
      const hold = await this.#queue.holdClaim(
        origin,
        this.#settings.instanceId,
        new Date(this.#now() + this.#settings.leaseMs).toISOString(),
      );
      if (hold === 'lost') return lostClaim();
      const upserts = plan.upserts;
      if (plan.revived.length > 0) upserts.push(...(await this.#queue.crawledAgents(origin, plan.revived)));
      const { sink } = this.options;
      if (upserts.length > 0) await sink.upsertCrawled(origin, upserts);
      if (plan.inactive.length > 0) await sink.markInactive(origin, plan.inactive);
      if (plan.tombstones.length > 0) await sink.tombstone(origin, plan.tombstones);
      const fate = await writer.record(plan.write.complete);
      // Lost between the check above and the write (a stall of a whole lease): the queue keeps the newer crawl's
      // record, and the agents are not tombstoned, since the host is still crawled.
      if (fate === 'lost') return lostClaim();
      if (fate === 'removed') {
        // Removed while it was crawled: what this crawl upserted must not outlive the removal's tombstones.
        const revived = upserts.map((agent) => agent.id);
        if (revived.length > 0) await sink.tombstone(origin, revived);
        return { outcome: 'error', error: 'Removed from the queue while it was crawled.', agents: 0 };
      }
      summary.upserted += upserts.length;
      summary.added += plan.tally.added;
      summary.updated += plan.tally.updated;
      summary.unchangedAgents += plan.tally.unchanged;
      summary.markedInactive += plan.inactive.length;
      summary.tombstoned += plan.tombstones.length;
      if (plan.discovered.length > 0) await this.#queue.add(plan.discovered, 'discovered', this.#iso());
      if (this.#settings.liveness !== false) await this.#probe(origin, signal);
      if (plan.dropped !== undefined) {
        summary.dropped.agents += plan.dropped.agents;
        summary.dropped.documents += plan.dropped.documents;
      }
      return reported(plan);
    } catch (error) {
      if (signal?.aborted) return undefined;
      const message = `${error instanceof Error ? error.message : String(error)}`;
      const plan = planCrawl(
        { origin, mode, failures, snapshot, result: { error: message } },
        this.#now(),
        this.#settings,
      );
      if ('fail' in plan.write) {
        const { error: reason, nextDueAt, crawledAt } = plan.write.fail;
        await this.#queue.fail(origin, this.#settings.instanceId, reason, nextDueAt, crawledAt);
      }
      return reported(plan);
    }
  }

  /** Probes the origin's agents whose liveness is due, `perOrigin` at a time, and records what they answered. */
  async #probe(origin: string, signal: AbortSignal | undefined): Promise<void> {
    const settings = this.#settings.liveness;
    if (settings === false) return;
    const now = this.#now();
    const due = livenessDue(await this.#queue.agents(origin), now);
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
  /** The crawl's claim passed to another crawler before its result was written: nothing of it was. */
  lost?: true;
}

function lostClaim(): CrawlOneOutcome {
  return { outcome: 'error', error: 'Its claim passed to another crawler.', agents: 0, lost: true };
}

interface ClaimedCrawl extends ClaimedHost {
  snapshot: HostSnapshot;
}

/** What a run reports of a planned crawl. */
function reported(plan: CrawlPlan): CrawlOneOutcome {
  return {
    outcome: plan.outcome,
    ...(plan.error === undefined ? {} : { error: plan.error }),
    agents: plan.agents,
    ...(plan.nextDueAt === undefined ? {} : { nextDueAt: plan.nextDueAt }),
    ...(plan.dropped === undefined ? {} : { dropped: plan.dropped }),
  };
}

function emptySummary(): CrawlSummary {
  return {
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
    lostClaims: 0,
  };
}
