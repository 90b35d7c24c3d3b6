/**
 * The crawl queue in the database: hosts with their due times, claimed by a crawler under a lease, completed in one
 * transaction with the documents and agents the crawl saw. A crawler that dies mid-crawl leaves its claims to
 * expire (or to be released by its successor with the same instance id); nothing completed is crawled again before
 * it is due, and nothing claimed is lost. Several crawlers (replicas on one PostgreSQL database) share the queue:
 * a claim locks the rows it takes (claim-lock.ts), so that no two crawlers hold one host at once.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { type ClaimRowLock, claimRowLock, completionRowLock } from './claim-lock.js';
import { packedColumns, unpackRow } from './packed-rows.js';
import {
  type AgentState,
  type ClaimedHost,
  type Completion,
  emptySnapshot,
  type HostSnapshot,
  previousOf,
  revalidationsOf,
  withRevalidation,
} from './rows.js';
import { StatementShapes, shapedChunks } from './statement-shapes.js';
import type { CrawlAgentRow, CrawlBodyRow, CrawlDocumentRow, CrawlHostRow } from './tables.js';
import type { CrawledAgent, PreviousDocument } from './types.js';

// Rows per multi-row statement (the largest of the shapes, see statement-shapes.ts): at 16 columns, well under the
// bound parameters SQLite (32,766) and PostgreSQL (65,535) accept.
const ROWS_PER_STATEMENT = 128;

/** Whether a crawler still holds its claim on a host when its crawl is done. */
export type ClaimHold = 'held' | 'lost' | 'removed';

/** What a completion wrote: hosts whose crawls were recorded, and hosts whose claims had passed to another crawler. */
export interface CompletionResults {
  recorded: Set<string>;
  lost: Set<string>;
}

export class CrawlQueue {
  readonly #shapes = new StatementShapes();
  readonly #lockRows: ClaimRowLock;
  readonly #lockClaims: ClaimRowLock;

  constructor(private readonly db: Kysely<Database>) {
    this.#lockRows = claimRowLock(db);
    this.#lockClaims = completionRowLock(db);
  }

  /** Multi-row statements built anew at every run, because Kysely did not bind their rows' values as expected. */
  get unshapedStatements(): string[] {
    return this.#shapes.unshaped;
  }

  /**
   * Adds origins not already queued, due now. Returns the origins that were new. Origins queued meanwhile by
   * another crawler (another replica) are left as they are: each origin is added once.
   */
  async add(origins: readonly string[], addedBy: string, now: string): Promise<string[]> {
    if (origins.length === 0) return [];
    const added: string[] = [];
    await this.db.transaction().execute(async (trx) => {
      for (const chunk of chunks([...new Set(origins)], 500)) {
        const existing = await trx
          .selectFrom('crawl_hosts')
          .select('origin')
          .where('origin', 'in', chunk)
          .execute();
        const known = new Set(existing.map((row) => row.origin));
        const rows = chunk
          .filter((origin) => !known.has(origin))
          .map(
            (origin): CrawlHostRow => ({
              origin,
              added_by: addedBy,
              added_at: now,
              status: 'idle',
              next_due_at: now,
              claimed_by: null,
              claimed_until: null,
              failures: 0,
              last_error: null,
              last_outcome: null,
              last_crawled_at: null,
              crawls: 0,
              revalidated: null,
            }),
          );
        if (rows.length === 0) continue;
        const inserted = await trx
          .insertInto('crawl_hosts')
          .values(rows)
          .onConflict((oc) => oc.column('origin').doNothing())
          .returning('origin')
          .execute();
        added.push(...inserted.map((row) => row.origin));
      }
    });
    return added;
  }

  /** Removes a host and everything recorded about it. Returns the ids of its agents not yet tombstoned. */
  async remove(origin: string): Promise<string[] | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const host = await trx
        .selectFrom('crawl_hosts')
        .select('origin')
        .where('origin', '=', origin)
        .executeTakeFirst();
      if (host === undefined) return undefined;
      const agents = await trx
        .selectFrom('crawl_agents')
        .select('agent_id')
        .where('origin', '=', origin)
        .where('state', '!=', 'tombstoned')
        .execute();
      await trx.deleteFrom('crawl_agents').where('origin', '=', origin).execute();
      await trx.deleteFrom('crawl_documents').where('origin', '=', origin).execute();
      await trx.deleteFrom('crawl_bodies').where('origin', '=', origin).execute();
      await trx.deleteFrom('crawl_hosts').where('origin', '=', origin).execute();
      return agents.map((row) => row.agent_id);
    });
  }

  /**
   * Claims up to `limit` hosts: claimed under a lease expired at `now` first (they were due when claimed), then idle
   * ones due by `dueBy`, oldest due first. Two queries rather than one with OR, so that each reads the due index in
   * order and stops at `limit`: the cost of a claim does not grow with the number of hosts queued. Hosts another
   * crawler is claiming at the same moment are passed over (claim-lock.ts).
   */
  async claim(
    limit: number,
    instanceId: string,
    times: { now: string; dueBy: string; leaseUntil: string },
  ): Promise<ClaimedHost[]> {
    const { now, dueBy, leaseUntil } = times;
    const lock = this.#lockRows;
    return this.db.transaction().execute(async (trx) => {
      const expired = await lock(
        trx
          .selectFrom('crawl_hosts')
          .select(['origin', 'failures'])
          .where('status', '=', 'claimed')
          .where('claimed_until', '<', now)
          .orderBy('next_due_at')
          .orderBy('origin')
          .limit(limit),
      ).execute();
      const idle =
        expired.length >= limit
          ? []
          : await lock(
              trx
                .selectFrom('crawl_hosts')
                .select(['origin', 'failures'])
                .where('status', '=', 'idle')
                .where('next_due_at', '<=', dueBy)
                .orderBy('status')
                .orderBy('next_due_at')
                .orderBy('origin')
                .limit(limit - expired.length),
            ).execute();
      const due = [...expired, ...idle];
      await markClaimed(trx, due, instanceId, leaseUntil);
      return due;
    });
  }

  /** Claims these hosts, due or not, unless another crawler holds a live claim on one (or it is not queued). */
  async claimOrigins(
    origins: readonly string[],
    instanceId: string,
    times: { now: string; leaseUntil: string },
  ): Promise<ClaimedHost[]> {
    if (origins.length === 0) return [];
    const { now, leaseUntil } = times;
    const lock = this.#lockRows;
    return this.db.transaction().execute(async (trx) => {
      const free = await lock(
        trx
          .selectFrom('crawl_hosts')
          .select(['origin', 'failures'])
          .where('origin', 'in', [...origins])
          .where((eb) =>
            eb.or([
              eb('status', '=', 'idle'),
              eb('claimed_until', '<', now),
              eb('claimed_by', '=', instanceId),
            ]),
          )
          .orderBy('origin'),
      ).execute();
      await markClaimed(trx, free, instanceId, leaseUntil);
      return free;
    });
  }

  /** Gives claims back without completing them (a crawl stopped, or a restarted crawler's own claims). */
  async release(instanceId: string, origins?: readonly string[]): Promise<void> {
    let query = this.db
      .updateTable('crawl_hosts')
      .set({ status: 'idle', claimed_by: null, claimed_until: null })
      .where('status', '=', 'claimed')
      .where('claimed_by', '=', instanceId);
    if (origins !== undefined) {
      if (origins.length === 0) return;
      query = query.where('origin', 'in', [...origins]);
    }
    await query.execute();
  }

  /**
   * Extends this crawler's claims to `leaseUntil`, while it crawls them: a crawl that outlasts a lease keeps its
   * hosts, and only the claims of a crawler that stopped renewing them (it died, or lost the database) expire.
   * Returns how many claims it holds.
   */
  async renew(instanceId: string, leaseUntil: string): Promise<number> {
    const result = await this.db
      .updateTable('crawl_hosts')
      .set({ claimed_until: leaseUntil })
      .where('status', '=', 'claimed')
      .where('claimed_by', '=', instanceId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Checks that this crawler still holds its claim on `origin` and extends it to `leaseUntil`, before a finished
   * crawl is told to anyone: `lost` when the lease ran out and the host is another crawler's (or was crawled by
   * another meanwhile), `removed` when the host is no longer queued.
   */
  async holdClaim(origin: string, instanceId: string, leaseUntil: string): Promise<ClaimHold> {
    const held = await this.db
      .updateTable('crawl_hosts')
      .set({ claimed_until: leaseUntil })
      .where('origin', '=', origin)
      .where('status', '=', 'claimed')
      .where('claimed_by', '=', instanceId)
      .executeTakeFirst();
    if (held.numUpdatedRows > 0n) return 'held';
    const host = await this.db
      .selectFrom('crawl_hosts')
      .select('origin')
      .where('origin', '=', origin)
      .executeTakeFirst();
    return host === undefined ? 'removed' : 'lost';
  }

  /** The crawlers holding claims (their instance ids). */
  async claimants(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('crawl_hosts')
      .select('claimed_by')
      .distinct()
      .where('status', '=', 'claimed')
      .execute();
    return rows.flatMap((row) => (row.claimed_by === null ? [] : [row.claimed_by]));
  }

  /** How many hosts are due now. */
  async countDue(now: string): Promise<number> {
    const row = await this.db
      .selectFrom('crawl_hosts')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'idle'), eb('next_due_at', '<=', now)]),
          eb.and([eb('status', '=', 'claimed'), eb('claimed_until', '<', now)]),
        ]),
      )
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /**
   * When a host is next due: the earliest due time of an idle host, or the earliest end of another crawler's lease
   * (a claim not renewed by then is taken over, so a dead replica's hosts are crawled when its leases run out, not
   * at the next idle poll). Claims of `ownInstanceId` are left out: this crawler renews or releases them itself.
   */
  async nextDueAt(ownInstanceId?: string): Promise<string | undefined> {
    const [idle, leased] = await Promise.all([
      this.db
        .selectFrom('crawl_hosts')
        .select((eb) => eb.fn.min('next_due_at').as('next'))
        .where('status', '=', 'idle')
        .executeTakeFirst(),
      this.db
        .selectFrom('crawl_hosts')
        .select((eb) => eb.fn.min('claimed_until').as('next'))
        .where('status', '=', 'claimed')
        .$if(ownInstanceId !== undefined, (query) => query.where('claimed_by', '!=', ownInstanceId!))
        .executeTakeFirst(),
    ]);
    // ISO 8601 times in UTC: the earliest sorts first.
    return [idle?.next, leased?.next].filter((time): time is string => typeof time === 'string').sort()[0];
  }

  async previousDocuments(origin: string): Promise<Map<string, PreviousDocument>> {
    return (await this.snapshots([origin])).get(origin)?.previous ?? new Map();
  }

  async agents(origin: string): Promise<CrawlAgentRow[]> {
    return this.db.selectFrom('crawl_agents').selectAll().where('origin', '=', origin).execute();
  }

  /**
   * What the last crawls of `origins` left: their documents (as the next crawl's `previous`) and their agents. Two
   * queries for a whole claim rather than two per host.
   */
  async snapshots(origins: readonly string[]): Promise<Map<string, HostSnapshot>> {
    const snapshots = new Map<string, HostSnapshot>(origins.map((origin) => [origin, emptySnapshot()]));
    for (const chunk of chunks(origins, 500)) {
      const [hosts, documents, agents] = await Promise.all([
        this.db
          .selectFrom('crawl_hosts')
          .select(['origin', 'revalidated'])
          .where('origin', 'in', chunk)
          .execute(),
        this.db
          .selectFrom('crawl_documents')
          .select(['origin', packedColumns(this.db, DOCUMENT_COLUMNS).as('packed')])
          .where('origin', 'in', chunk)
          .execute(),
        this.db
          .selectFrom('crawl_agents')
          .select(['origin', packedColumns(this.db, AGENT_STATE_COLUMNS).as('packed')])
          .where('origin', 'in', chunk)
          .execute(),
      ]);
      for (const row of hosts) {
        const snapshot = snapshots.get(row.origin);
        if (snapshot !== undefined) snapshot.revalidated = revalidationsOf(row.revalidated);
      }
      for (const packed of documents) {
        const snapshot = snapshots.get(packed.origin);
        if (snapshot === undefined) continue;
        const row = unpackRow<CrawlDocumentRow>(DOCUMENT_COLUMNS, packed.packed);
        snapshot.stored.set(row.url, row);
        snapshot.previous.set(row.url, previousOf(withRevalidation(row, snapshot.revalidated.get(row.url))));
      }
      for (const packed of agents) {
        snapshots.get(packed.origin)?.agents.push(unpackRow<AgentState>(AGENT_STATE_COLUMNS, packed.packed));
      }
    }
    return snapshots;
  }

  /** The crawled agents stored for these ids of an origin. */
  async crawledAgents(origin: string, agentIds: readonly string[]): Promise<CrawledAgent[]> {
    const agents: CrawledAgent[] = [];
    for (const chunk of chunks(agentIds, 500)) {
      const rows = await this.db
        .selectFrom('crawl_agents')
        .select('crawled')
        .where('origin', '=', origin)
        .where('agent_id', 'in', chunk)
        .orderBy('agent_id')
        .execute();
      agents.push(...rows.map((row) => JSON.parse(row.crawled) as CrawledAgent));
    }
    return agents;
  }

  /** The stored bodies of an origin's documents, by URL. */
  async bodies(origin: string): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('crawl_bodies')
      .select(['url', 'body'])
      .where('origin', '=', origin)
      .execute();
    return new Map(rows.map((row) => [row.url, row.body]));
  }

  /**
   * Records a finished crawl: the documents replace the last crawl's, the agents' rows are written, the claim ends.
   * True when it was recorded (`instanceId` still held the claim).
   */
  async complete(completion: Completion, instanceId: string): Promise<boolean> {
    return (await this.completeAll([completion], instanceId)).recorded.has(completion.origin);
  }

  /**
   * Records finished crawls in one transaction, with multi-row statements where the rows allow: at thousands of
   * hosts a minute, statements per host (and a commit per host) are most of a crawl's cost. Only crawls whose
   * hosts `instanceId` still holds are written (the claims are read and locked in the same transaction): a crawl
   * that outlasted its lease while another crawler took the host over is dropped (`lost`), so that an older result
   * never replaces a newer one, and hosts removed while they were crawled stay removed (neither recorded nor lost).
   */
  async completeAll(completions: readonly Completion[], instanceId: string): Promise<CompletionResults> {
    const results: CompletionResults = { recorded: new Set(), lost: new Set() };
    if (completions.length === 0) return results;
    const shapes = this.#shapes;
    const lockClaims = this.#lockClaims;
    return this.db.transaction().execute(async (trx) => {
      const { recorded, lost } = results;
      for (const chunk of chunks([...new Set(completions.map((completion) => completion.origin))], 500)) {
        const rows = await lockClaims(
          trx
            .selectFrom('crawl_hosts')
            .select(['origin', 'status', 'claimed_by'])
            .where('origin', 'in', chunk),
        ).execute();
        for (const row of rows) {
          if (row.status === 'claimed' && row.claimed_by === instanceId) recorded.add(row.origin);
          else lost.add(row.origin);
        }
      }
      const live = completions.filter((completion) => recorded.has(completion.origin));
      if (live.length === 0) return results;
      const replaced = live.filter((completion) => completion.documents !== undefined);
      for (const chunk of chunks(
        replaced.map((completion) => completion.origin),
        500,
      )) {
        await trx.deleteFrom('crawl_documents').where('origin', 'in', chunk).execute();
        await trx.deleteFrom('crawl_bodies').where('origin', 'in', chunk).execute();
      }
      for (const chunk of shapedChunks(
        replaced.flatMap((completion) => completion.bodies ?? []),
        ROWS_PER_STATEMENT,
      )) {
        await shapes.run(trx, `bodies:${chunk.length}`, valuesOf(chunk, BODY_COLUMNS), () =>
          trx.insertInto('crawl_bodies').values(chunk),
        );
      }
      for (const chunk of shapedChunks(
        replaced.flatMap((completion) => completion.documents ?? []),
        ROWS_PER_STATEMENT,
      )) {
        await shapes.run(trx, `documents:${chunk.length}`, valuesOf(chunk, DOCUMENT_COLUMNS), () =>
          trx.insertInto('crawl_documents').values(chunk),
        );
      }
      for (const chunk of shapedChunks(
        live.flatMap((completion) => completion.documentUpdates ?? []),
        ROWS_PER_STATEMENT,
      )) {
        // Every row exists (the document was read from it); only what a revalidation changes is written.
        await shapes.run(trx, `revalidations:${chunk.length}`, valuesOf(chunk, REVALIDATION_COLUMNS), () =>
          trx
            .insertInto('crawl_documents')
            .values(chunk.map(revalidationRowOf))
            .onConflict((oc) =>
              oc.columns(['origin', 'url']).doUpdateSet((eb) => ({
                status: eb.ref('excluded.status'),
                reason: eb.ref('excluded.reason'),
                http_status: eb.ref('excluded.http_status'),
                etag: eb.ref('excluded.etag'),
                last_modified: eb.ref('excluded.last_modified'),
                fetched_at: eb.ref('excluded.fetched_at'),
                expires_at: eb.ref('excluded.expires_at'),
                lifetime_seconds: eb.ref('excluded.lifetime_seconds'),
              })),
            ),
        );
      }
      for (const chunk of shapedChunks(
        live.flatMap((completion) => completion.agentUpserts),
        ROWS_PER_STATEMENT,
      )) {
        await shapes.run(trx, `agents:${chunk.length}`, valuesOf(chunk, AGENT_COLUMNS), () =>
          trx
            .insertInto('crawl_agents')
            .values(chunk)
            .onConflict((oc) =>
              oc.columns(['origin', 'agent_id']).doUpdateSet((eb) => ({
                state: eb.ref('excluded.state'),
                inactive_reason: eb.ref('excluded.inactive_reason'),
                missing_count: eb.ref('excluded.missing_count'),
                hash: eb.ref('excluded.hash'),
                crawled: eb.ref('excluded.crawled'),
                updated_at: eb.ref('excluded.updated_at'),
              })),
            ),
        );
      }
      for (const completion of live) {
        for (const change of completion.agentStates) {
          await trx
            .updateTable('crawl_agents')
            .set({
              state: change.state,
              inactive_reason: change.inactiveReason,
              missing_count: change.missingCount,
              updated_at: completion.host.last_crawled_at ?? new Date().toISOString(),
            })
            .where('origin', '=', completion.origin)
            .where('agent_id', '=', change.agentId)
            .execute();
        }
      }
      // One statement for every host of the batch: each row exists (checked and locked above), so the
      // insert always turns into the update, which ends the claim and counts the crawl. Every value comes from the
      // row (`excluded`), so that the statement's only parameters are the rows'.
      for (const chunk of shapedChunks(
        live.map(
          (completion): CrawlHostRow => ({
            origin: completion.origin,
            added_by: '',
            added_at: '',
            status: 'idle',
            claimed_by: null,
            claimed_until: null,
            crawls: 1,
            ...completion.host,
          }),
        ),
        ROWS_PER_STATEMENT,
      )) {
        await shapes.run(trx, `hosts:${chunk.length}`, valuesOf(chunk, HOST_COLUMNS), () =>
          trx
            .insertInto('crawl_hosts')
            .values(chunk)
            .onConflict((oc) =>
              oc.column('origin').doUpdateSet((eb) => ({
                status: eb.ref('excluded.status'),
                claimed_by: eb.ref('excluded.claimed_by'),
                claimed_until: eb.ref('excluded.claimed_until'),
                next_due_at: eb.ref('excluded.next_due_at'),
                failures: eb.ref('excluded.failures'),
                last_error: eb.ref('excluded.last_error'),
                last_outcome: eb.ref('excluded.last_outcome'),
                last_crawled_at: eb.ref('excluded.last_crawled_at'),
                revalidated: eb.ref('excluded.revalidated'),
                crawls: eb('crawl_hosts.crawls', '+', eb.ref('excluded.crawls')),
              })),
            ),
        );
      }
      return results;
    });
  }

  /**
   * Ends `instanceId`'s claim on a host whose crawl could not be recorded (the sink failed): the stored documents
   * stay as they were. A claim lost meanwhile is left to the crawler holding it now.
   */
  async fail(
    origin: string,
    instanceId: string,
    error: string,
    nextDueAt: string,
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('crawl_hosts')
      .set((eb) => ({
        status: 'idle',
        claimed_by: null,
        claimed_until: null,
        next_due_at: nextDueAt,
        last_error: error,
        last_outcome: 'error',
        last_crawled_at: now,
        failures: eb('failures', '+', 1),
      }))
      .where('origin', '=', origin)
      .where('status', '=', 'claimed')
      .where('claimed_by', '=', instanceId)
      .execute();
  }

  /** Makes hosts due now (a crawl asked for by hand). */
  async makeDue(origins: readonly string[], now: string): Promise<void> {
    for (const chunk of chunks([...origins], 500)) {
      await this.db
        .updateTable('crawl_hosts')
        .set({ next_due_at: now })
        .where('origin', 'in', chunk)
        .where('status', '=', 'idle')
        .execute();
    }
  }

  async recordLiveness(
    origin: string,
    agentId: string,
    set: Pick<
      CrawlAgentRow,
      | 'liveness_status'
      | 'liveness_checked_at'
      | 'liveness_seen_at'
      | 'liveness_latency_ms'
      | 'liveness_due_at'
    >,
  ): Promise<void> {
    const { liveness_seen_at, ...always } = set;
    await this.db
      .updateTable('crawl_agents')
      .set(liveness_seen_at === null ? always : set)
      .where('origin', '=', origin)
      .where('agent_id', '=', agentId)
      .execute();
  }

  /** Hosts in origin order, after `after`, at most `limit`; with the counts of their active agents and documents read. */
  async hosts(
    page: { after?: string; limit?: number } = {},
  ): Promise<Array<CrawlHostRow & { agents: number; documents: number }>> {
    let query = this.db.selectFrom('crawl_hosts').selectAll().orderBy('origin');
    if (page.after !== undefined) query = query.where('origin', '>', page.after);
    if (page.limit !== undefined) query = query.limit(page.limit);
    const hosts = await query.execute();
    if (hosts.length === 0) return [];
    const origins = hosts.map((host) => host.origin);
    const agentCounts = [];
    const documentCounts = [];
    for (const chunk of chunks(origins, 500)) {
      agentCounts.push(
        ...(await this.db
          .selectFrom('crawl_agents')
          .select(['origin', (eb) => eb.fn.countAll<number>().as('count')])
          .where('origin', 'in', chunk)
          .where('state', '=', 'active')
          .groupBy('origin')
          .execute()),
      );
      documentCounts.push(
        ...(await this.db
          .selectFrom('crawl_documents')
          .select(['origin', (eb) => eb.fn.countAll<number>().as('count')])
          .where('origin', 'in', chunk)
          .where('status', 'in', ['ok', 'not-modified'])
          .groupBy('origin')
          .execute()),
      );
    }
    const agents = new Map(agentCounts.map((row) => [row.origin, Number(row.count)]));
    const documents = new Map(documentCounts.map((row) => [row.origin, Number(row.count)]));
    return hosts.map((host) => ({
      ...host,
      agents: agents.get(host.origin) ?? 0,
      documents: documents.get(host.origin) ?? 0,
    }));
  }

  async host(origin: string): Promise<CrawlHostRow | undefined> {
    return this.db.selectFrom('crawl_hosts').selectAll().where('origin', '=', origin).executeTakeFirst();
  }

  /** An origin's documents as its last crawl left them (revalidations included). */
  async documents(origin: string): Promise<CrawlDocumentRow[]> {
    const [host, rows] = await Promise.all([
      this.db.selectFrom('crawl_hosts').select('revalidated').where('origin', '=', origin).executeTakeFirst(),
      this.db.selectFrom('crawl_documents').selectAll().where('origin', '=', origin).orderBy('url').execute(),
    ]);
    const revalidated = revalidationsOf(host?.revalidated ?? null);
    return rows.map((row) => withRevalidation(row, revalidated.get(row.url)));
  }
}

const AGENT_STATE_COLUMNS = [
  'origin',
  'agent_id',
  'state',
  'inactive_reason',
  'missing_count',
  'hash',
  'first_seen_at',
  'updated_at',
  'liveness_status',
  'liveness_checked_at',
  'liveness_seen_at',
  'liveness_latency_ms',
  'liveness_due_at',
] as const satisfies ReadonlyArray<keyof AgentState>;

/** What a revalidation changes in a document's row, with the columns an insert cannot do without. */
function revalidationRowOf(row: CrawlDocumentRow) {
  const { origin, url, status, reason, http_status, etag, last_modified, fetched_at, expires_at } = row;
  return {
    origin,
    url,
    status,
    reason,
    http_status,
    etag,
    last_modified,
    fetched_at,
    expires_at,
    lifetime_seconds: row.lifetime_seconds,
    source: row.source,
  };
}

/** Puts `hosts` under this crawler's claim until `leaseUntil`. */
async function markClaimed(
  trx: Transaction<Database>,
  hosts: readonly ClaimedHost[],
  instanceId: string,
  leaseUntil: string,
): Promise<void> {
  if (hosts.length === 0) return;
  await trx
    .updateTable('crawl_hosts')
    .set({ status: 'claimed', claimed_by: instanceId, claimed_until: leaseUntil })
    .where(
      'origin',
      'in',
      hosts.map((host) => host.origin),
    )
    .execute();
}

/**
 * The parameters of a multi-row insert: each row's values in the order of `columns`, whatever the order of the
 * row's own keys (the rows' types give every column a value).
 */
function valuesOf<Row>(rows: readonly Row[], columns: readonly (keyof Row)[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) for (const column of columns) values.push(row[column]);
  return values;
}

const BODY_COLUMNS = ['origin', 'url', 'body'] as const satisfies ReadonlyArray<keyof CrawlBodyRow>;

/** Every column of a document row, in table order. */
export const DOCUMENT_COLUMNS = [
  'origin',
  'url',
  'kind',
  'status',
  'reason',
  'http_status',
  'etag',
  'last_modified',
  'fetched_at',
  'expires_at',
  'lifetime_seconds',
  'source',
  'linked_from',
  'agent_ids',
  'issues',
  'digest',
] as const satisfies ReadonlyArray<keyof CrawlDocumentRow>;

const REVALIDATION_COLUMNS = [
  'origin',
  'url',
  'status',
  'reason',
  'http_status',
  'etag',
  'last_modified',
  'fetched_at',
  'expires_at',
  'lifetime_seconds',
  'source',
] as const satisfies ReadonlyArray<keyof CrawlDocumentRow>;

const AGENT_COLUMNS = [
  'origin',
  'agent_id',
  'state',
  'inactive_reason',
  'missing_count',
  'hash',
  'crawled',
  'first_seen_at',
  'updated_at',
  'liveness_status',
  'liveness_checked_at',
  'liveness_seen_at',
  'liveness_latency_ms',
  'liveness_due_at',
] as const satisfies ReadonlyArray<keyof CrawlAgentRow>;

const HOST_COLUMNS = [
  'origin',
  'added_by',
  'added_at',
  'status',
  'claimed_by',
  'claimed_until',
  'crawls',
  'next_due_at',
  'failures',
  'last_error',
  'last_outcome',
  'last_crawled_at',
  'revalidated',
] as const satisfies ReadonlyArray<keyof CrawlHostRow>;

export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}
