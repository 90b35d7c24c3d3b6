/**
 * The crawl's decisions, as pure functions of plain data, a time and the settings: which of an origin's documents a
 * crawl asks for (`documentDue`), what a finished crawl of one host means (`planCrawl`: its outcome, the sink calls,
 * the rows to write, when the host and each document are due again, the backoff after failures, the agents that
 * go inactive or are tombstoned), which agents are due for a liveness probe and how long the background loop
 * sleeps. Which hosts are due is the claim's query (queue.ts), over the due times these functions set. The crawler
 * (scheduler.ts) does the I/O around them; test/vectors/crawl-plan.json holds their cases.
 */
import { agentHash } from './agent-hash.js';
import { isAfter, isoTime } from './iso-time.js';
import {
  type AgentState,
  bodyRow,
  type Completion,
  documentRow,
  type HostSnapshot,
  revalidationsAfter,
} from './rows.js';
import type { CrawlAgentRow, CrawlDocumentRow } from './tables.js';
import type { CrawledAgent, DocumentRecord, OriginCrawl, PreviousDocument } from './types.js';

/**
 * `not-due`: a crawl by hand (`RunOptions.origins` without `refresh`) found every document of the origin still
 * fresh and sent nothing; the origin is left as it was, due at `nextDueAt`.
 */
export type CrawlOutcome = 'changed' | 'unchanged' | 'unreachable' | 'error' | 'not-due';

/**
 * How a host is crawled: `due` (the queue's own schedule: its due documents), `by-hand` (named by hand: its due
 * documents, or nothing when none is due), `refresh` (named by hand: every document asked for again).
 */
export type CrawlMode = 'due' | 'by-hand' | 'refresh';

/** What the planner needs of the crawler's settings. */
export interface PlanSettings {
  minIntervalMs: number;
  maxIntervalMs: number;
  /** The interval of a document whose headers give no lifetime. */
  defaultIntervalMs: number;
  /** Crawls in a row an agent may be missing, or its origin unreachable, before it is tombstoned. */
  failureThreshold: number;
  /** Queue the origins other origins link to. */
  followDiscovered: boolean;
}

/** One claimed host, as the database and the crawl of it left it. */
export interface CrawlState {
  origin: string;
  mode: CrawlMode;
  /** Crawls of the host in a row that failed, before this one. */
  failures: number;
  /** What the host's last crawls left. */
  snapshot: HostSnapshot;
  /** What this crawl fetched, or why it failed (the crawl, the sink or the write threw). */
  result: { crawl: OriginCrawl } | { error: string };
}

/** What to do about one crawl: what to tell the sink, what to write, what to report. */
export interface CrawlPlan {
  outcome: CrawlOutcome;
  /** Why, for `unreachable` and `error`. */
  error?: string;
  /** Requests the crawl sent. */
  requests: number;
  /** The origin's active agents after the crawl. */
  agents: number;
  /** For `not-due`: when its first document is due (ISO 8601). */
  nextDueAt?: string;
  /** What the per-origin limits left out of the crawl. */
  dropped?: { agents: number; documents: number };
  /** Sink calls, in this order: new or changed agents, then the agents coming back (by id, upserted as stored). */
  upserts: CrawledAgent[];
  /** Agents back after their origin was unreachable: upserted as they were stored. */
  revived: string[];
  inactive: string[];
  tombstones: string[];
  /** How the origin's agents fared. */
  tally: { added: number; updated: number; unchanged: number };
  /**
   * What the queue records: the crawl (`complete`), nothing but the end of the claim (`release`: nothing was
   * crawled), or a failure (`fail`: the stored documents stay as they were, the host is retried after a backoff).
   */
  write:
    | { complete: Completion }
    | { release: true }
    | { fail: { error: string; nextDueAt: string; crawledAt: string } };
  /** Origins to queue, found linked from this one. */
  discovered: string[];
}

/** How `origin` is crawled in a run: on the schedule, or named by hand (with every document asked for again, or not). */
export function crawlMode(
  origin: string,
  byHand: boolean,
  refresh: boolean | ReadonlySet<string> | undefined,
): CrawlMode {
  if (!byHand) return 'due';
  return refresh === true || (refresh instanceof Set && refresh.has(origin)) ? 'refresh' : 'by-hand';
}

/** Whether a crawl asks for a document: always, unless it asks only for due ones and the stored copy is fresh. */
export function documentDue(previous: PreviousDocument | undefined, now: number, onlyDue: boolean): boolean {
  return !(onlyDue && previous?.expiresAt !== undefined && isAfter(previous.expiresAt, now));
}

/** What a crawl of one host means (see `CrawlPlan`). */
export function planCrawl(state: CrawlState, now: number, settings: PlanSettings): CrawlPlan {
  const { snapshot } = state;
  const known = snapshot.agents;
  if ('error' in state.result) {
    const nowIso = isoTime(now);
    return {
      ...empty('error', activeCount(known)),
      error: state.result.error,
      write: {
        fail: {
          error: state.result.error,
          nextDueAt: new Date(now + backoff(state.failures + 1, settings)).toISOString(),
          crawledAt: nowIso,
        },
      },
    };
  }
  const { crawl } = state.result;
  const requests = crawl.documents.filter((record) => record.fetched).length;
  if (state.mode === 'by-hand' && requests === 0 && crawl.unchanged) {
    // Nothing was due: nothing was crawled, so nothing is recorded (a crawl would say it saw the origin now).
    return {
      ...empty('not-due', activeCount(known)),
      nextDueAt: firstExpiry(snapshot.previous) ?? isoTime(now),
    };
  }
  const plan = recordCrawl(crawl, known, state.failures, snapshot, now, settings);
  plan.requests = requests;
  if (crawl.dropped !== undefined) plan.dropped = crawl.dropped;
  if (settings.followDiscovered) plan.discovered = crawl.discovered;
  return plan;
}

/** The agents of an origin due for a liveness probe: active ones never probed or whose probe is due. */
export function livenessDue<Row extends AgentState>(agents: readonly Row[], now: number): Row[] {
  return agents.filter(
    (agent) =>
      agent.state === 'active' &&
      (agent.liveness_due_at === null || Date.parse(agent.liveness_due_at) <= now),
  );
}

/** How long the background loop sleeps before looking for due hosts again: until the next is due, within bounds. */
export function idleWait(nextDueAt: string | undefined, now: number, idlePollMs: number): number {
  const wait = nextDueAt === undefined ? idlePollMs : Date.parse(nextDueAt) - now;
  return clamp(wait, 10, idlePollMs);
}

/** Waiting time after `failures` failed crawls in a row: doubling from the minimum interval, up to the maximum. */
export function backoff(
  failures: number,
  settings: Pick<PlanSettings, 'minIntervalMs' | 'maxIntervalMs'>,
): number {
  const { minIntervalMs, maxIntervalMs } = settings;
  return clamp(minIntervalMs * 2 ** Math.min(failures, 30), minIntervalMs, maxIntervalMs);
}

/** When a document is due again: its cache lifetime within the bounds; missing ones at the maximum. */
export function expiresAt(
  record: DocumentRecord,
  previousExpiry: string | undefined,
  now: number,
  settings: Pick<PlanSettings, 'minIntervalMs' | 'maxIntervalMs' | 'defaultIntervalMs'>,
): string {
  if (!record.fetched && previousExpiry !== undefined) return previousExpiry;
  const { minIntervalMs, maxIntervalMs, defaultIntervalMs } = settings;
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

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** A crawl that was made: sink calls, document and agent rows, the host's next due time. */
function recordCrawl(
  crawl: OriginCrawl,
  known: readonly AgentState[],
  failuresBefore: number,
  snapshot: HostSnapshot,
  now: number,
  settings: PlanSettings,
): CrawlPlan & { write: { complete: Completion } } {
  const nowIso = new Date(now).toISOString();
  const threshold = settings.failureThreshold;
  const outcome = crawl.unreachable ? 'unreachable' : crawl.unchanged ? 'unchanged' : 'changed';
  const completion: Completion = {
    origin: crawl.origin,
    agentUpserts: [],
    agentStates: [],
    host: {
      next_due_at: nowIso,
      failures: 0,
      last_error: null,
      last_outcome: outcome,
      last_crawled_at: nowIso,
      revalidated: null,
    },
  };
  const plan: CrawlPlan & { write: { complete: Completion } } = {
    ...empty(outcome, 0),
    write: { complete: completion },
  };
  const expiries = crawl.documents.map((record) =>
    expiresAt(record, snapshot.previous.get(record.url)?.expiresAt, now, settings),
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
    completion.host.next_due_at = new Date(now + backoff(failures, settings)).toISOString();
    plan.error = completion.host.last_error;
    // The whole origin is retried on the backoff, its failed documents with it.
    for (const row of completion.documents ?? []) {
      if (row.status === 'failed') row.expires_at = completion.host.next_due_at;
    }
    for (const agent of known) {
      if (agent.state === 'tombstoned') continue;
      if (failures >= threshold) {
        plan.tombstones.push(agent.agent_id);
        completion.agentStates.push(agentState(agent.agent_id, 'tombstoned', null, agent.missing_count));
      } else if (agent.state === 'active') {
        plan.inactive.push(agent.agent_id);
        completion.agentStates.push(
          agentState(agent.agent_id, 'inactive', 'unreachable', agent.missing_count),
        );
      }
    }
    return plan;
  }

  if (crawl.unchanged) {
    for (const agent of known) {
      if (agent.state === 'active') plan.tally.unchanged++;
      if (agent.state !== 'inactive') continue;
      if (agent.inactive_reason === 'unreachable') {
        // Back after being unreachable: the agents are what they were.
        plan.revived.push(agent.agent_id);
        plan.tally.updated++;
        completion.agentStates.push(agentState(agent.agent_id, 'active', null, 0));
      } else {
        miss(agent, plan, completion, threshold);
      }
    }
    plan.agents = plan.tally.unchanged + plan.tally.updated;
    return plan;
  }

  const byId = new Map(known.map((agent) => [agent.agent_id, agent]));
  const current = new Set<string>();
  for (const crawled of crawl.agents) {
    current.add(crawled.id);
    const hash = agentHash(crawled);
    const before = byId.get(crawled.id);
    plan.agents++;
    if (before !== undefined && before.state === 'active' && before.hash === hash) {
      plan.tally.unchanged++;
      continue;
    }
    if (before === undefined || before.state === 'tombstoned') plan.tally.added++;
    else plan.tally.updated++;
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
    miss(agent, plan, completion, threshold);
  }
  return plan;
}

/** One more crawl without the agent: inactive at the first, tombstoned at `failureThreshold`. */
function miss(agent: AgentState, plan: CrawlPlan, completion: Completion, threshold: number): void {
  const misses = agent.missing_count + 1;
  if (misses >= threshold) {
    plan.tombstones.push(agent.agent_id);
    completion.agentStates.push(agentState(agent.agent_id, 'tombstoned', null, misses));
  } else {
    if (agent.state === 'active') plan.inactive.push(agent.agent_id);
    completion.agentStates.push(agentState(agent.agent_id, 'inactive', 'missing', misses));
  }
}

function empty(outcome: CrawlOutcome, agents: number): CrawlPlan {
  return {
    outcome,
    requests: 0,
    agents,
    upserts: [],
    revived: [],
    inactive: [],
    tombstones: [],
    tally: { added: 0, updated: 0, unchanged: 0 },
    write: { release: true },
    discovered: [],
  };
}

function agentState(
  agentId: string,
  value: CrawlAgentRow['state'],
  inactiveReason: CrawlAgentRow['inactive_reason'],
  missingCount: number,
): Completion['agentStates'][number] {
  return { agentId, state: value, inactiveReason, missingCount };
}

function activeCount(agents: readonly AgentState[]): number {
  return agents.filter((agent) => agent.state === 'active').length;
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
