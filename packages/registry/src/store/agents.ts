/**
 * Agents: registration, update, deletion and every read. A write is one transaction holding the agent row, its
 * filter values and access groups, a history entry and an audit entry, so none of them exists without the others.
 * Decisions that depend on what is stored (which id, whether the caller may touch it, the quota) are made inside
 * that transaction, on the row as it is then.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type Agent, AgentryError, type AgentryErrorCode, type FormatName } from '@agentry/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { DatabaseDialect } from '../db/dialect.js';
import { type BatchedWrite, executeWrites } from '../db/write-batch.js';
import { hasVerifiedProvenance } from '../records/provenance-trust.js';
import { initialQuality } from '../records/quality.js';
import {
  type AgentSource,
  contributors,
  fetchedSourceKey,
  mergeSources,
  registeredSourceKey,
  type SourceDocument,
} from '../records/sources.js';
import { statusOf } from '../records/status.js';
import type { Caller, RegistryRecord, SafetyFlag } from '../records/types.js';
import { type AuditEntry, auditInserts, writeAudit } from './audit.js';
import { authValues, transportValues } from './call-values.js';
import type { FacetIndex } from './facet-index.js';
import {
  type AgentFilters,
  agentVisibility,
  filterConditions,
  filterRequirements,
  hasFilters,
  hiddenAgentIds,
  languageKeys,
  normalizeFilterValue,
  tombstoneVisibility,
  visibleAgentIdsMeeting,
} from './filters.js';
import { IdList } from './id-list.js';
import {
  claimKeys,
  entryKeys,
  entryOfSource,
  holderOfStrongKeys,
  holdersOfWeakKeys,
  keyInserts,
  readSources,
  sourceInserts,
  sourceKeys,
  writeSources,
} from './identity.js';
import { parseColumn } from './json.js';
import { type AgentRow, recordFromRow, rowFromRecord } from './rows.js';
import type { AgentHistoryTable, AgentValueTableName, HistoryAction } from './schema.js';

/** Hidden agents a search is told to leave out without first counting every agent (see `searchScope`). */
const FEW_HIDDEN = 1000;
/** Times a filtered page is read from the facet index when its agents change under it, before the database. */
const PAGE_ATTEMPTS = 3;

/** Which agents a search may rank: only `candidates` when given, never `excluded`; every agent when neither is. */
export interface SearchScope {
  candidates?: ReadonlySet<string>;
  excluded?: ReadonlySet<string>;
}

/** What a registration or update writes, before the store settles the id. */
export interface RecordDraft {
  /** The agent as this description says it, with its own id; the entry's id is the store's to settle. */
  agent: Agent;
  owner: string;
  /** Groups that may see the agent; `null` makes it public; absent keeps what an update replaces (public for a new one). */
  access?: { groups: string[] } | null;
  /** The untrusted-text scan's findings in this description. */
  flags: SafetyFlag[];
  sourceFormat: FormatName;
  /** Set when the registry fetched the description itself (a crawl, an import); absent for a registration. */
  fetched?: FetchedDescription;
}

/** Where a crawled or imported description came from. */
export interface FetchedDescription {
  arrival: 'crawled' | 'imported';
  /** The host of the origin or registry it was read from. */
  host: string;
  /** The agent's id there. */
  handle: string;
  documents: SourceDocument[];
}

/** Turns the canonical agent (with its final id) into the AIDIP metadata stored beside it, as JSON text. */
export type MetadataWriter = (agent: Agent) => string;

/** What the caller may do with an existing record: `hide` answers as if it did not exist. */
export type RecordAccess = 'allow' | 'hide' | 'forbid';

export type WriteOutcome =
  | RegisterOutcome
  | { kind: 'not-found' }
  | { kind: 'forbidden'; owner: string }
  | ConflictOutcome;

export type DeleteOutcome =
  | { kind: 'deleted'; record: RegistryRecord }
  | { kind: 'not-found' }
  | { kind: 'forbidden'; owner: string };

export interface RegisterOptions {
  /** Agents an owner may hold; absent means no limit. */
  quota?: number;
  actor: string;
}

export type RegisterOutcome = { kind: 'created' | 'updated' | 'unchanged'; record: RegistryRecord };

/**
 * A registration another publisher's entry stands in the way of: `identity` when it is the same agent (docs/
 * registry.md, "Identity"), `id` when the id asked for is held by a different agent.
 */
export interface ConflictOutcome {
  kind: 'conflict';
  reason: 'identity' | 'id';
  /** The entry in the way. */
  id: string;
  /** The agent of the request (its own id) that met it. */
  agent: string;
}

/** Thrown inside a registration transaction to roll it back. */
class QuotaExceeded extends AgentryError {
  static override readonly code: AgentryErrorCode = 'QuotaExceeded';
  constructor(readonly limit: number) {
    super(`Quota of ${limit} agents exceeded.`);
  }
}

/** Thrown inside a write transaction to roll it back. */
class Conflict extends AgentryError {
  static override readonly code: AgentryErrorCode = 'Conflict';
  constructor(readonly outcome: ConflictOutcome) {
    super(`Agent "${outcome.agent}" conflicts with entry "${outcome.id}" (${outcome.reason}).`);
  }
}

/** Crawled and imported agents are held by `crawler:<host>`; every other owner is a publisher (or the admin). */
export function isPublisherOwner(owner: string): boolean {
  return !owner.startsWith('crawler:');
}

async function registerOne(
  db: Kysely<Database>,
  draft: RecordDraft,
  preferredId: string,
  options: RegisterOptions,
  env: WriteEnv,
  deferred: DeferredRows,
): Promise<RegisterOutcome> {
  const incoming = sourceOf(draft, env.at);
  const matched = await matchingEntry(db, draft, incoming);
  // Past this point an entry of the batch may be written again: its deferred rows go first.
  if (matched !== undefined) await deferred.flush(db);
  if (matched !== undefined) {
    if (draft.fetched !== undefined) return attachSource(db, matched, incoming, matched.owner, draft, env);
    if (matched.owner === draft.owner || !isPublisherOwner(matched.owner)) {
      if (matched.owner !== draft.owner) await checkQuota(db, draft.owner, options);
      return attachSource(db, matched, incoming, draft.owner, draft, env);
    }
    throw new Conflict({ kind: 'conflict', reason: 'identity', id: matched.id, agent: draft.agent.id });
  }
  // No entry is this agent: the id asked for. Held by the same owner, it is that entry, its registration replaced
  // (the agent's endpoints moved); by another publisher, a registration is refused (it names its own id, and can
  // name another), while a crawled agent, which cannot, gets one suffixed by a hash of its owner, the same every
  // time; past that (a clash of hashes), random suffixes.
  let id = preferredId;
  for (let attempt = 0; ; attempt++) {
    const existing = await selectRow(db, id);
    if (existing === undefined) break;
    if (existing.owner === draft.owner) {
      await deferred.flush(db);
      return attachSource(db, existing, incoming, draft.owner, draft, env, {
        replaceRegistered: draft.fetched === undefined,
      });
    }
    if (draft.fetched === undefined) {
      throw new Conflict({ kind: 'conflict', reason: 'id', id, agent: draft.agent.id });
    }
    if (attempt >= SUFFIX_ATTEMPTS) throw new Error(`No free id found for "${preferredId}".`);
    id = attempt === 0 ? ownerSuffixedId(preferredId, draft.owner) : suffixedId(preferredId);
  }
  await checkQuota(db, draft.owner, options);
  return insertRow(db, id, incoming, draft, env, deferred);
}

/**
 * What a registration batch writes for its new entries that nothing in the batch reads back: their filter values,
 * history and audit entries, kept until the batch ends (or is about to write an entry of its own again) and then
 * inserted many rows to a statement. A batch of thousands (`loadAgents`) spent most of its statements on them.
 */
class DeferredRows {
  private values = new Map<string, ValueRows>();
  private history: HistoryRow[] = [];
  private audit: Array<Omit<AuditEntry, 'seq'>> = [];

  add(record: RegistryRecord, history: HistoryRow, audit: Omit<AuditEntry, 'seq'>): void {
    this.values.set(record.id, valueRows(record));
    this.history.push(history);
    this.audit.push(audit);
  }

  async flush(db: Kysely<Database>): Promise<void> {
    if (this.history.length === 0) return;
    const values = [...this.values.values()];
    const history = this.history;
    const audit = this.audit;
    this.values = new Map();
    this.history = [];
    this.audit = [];
    // Inserts into tables nothing else in the batch writes: one statement on PostgreSQL (db/write-batch.ts).
    const writes: BatchedWrite[] = [];
    for (const table of VALUE_TABLES) {
      writes.push(
        ...valueRowInserts(
          db,
          table,
          values.flatMap((rows) => rows[table]),
        ),
      );
    }
    writes.push(
      ...valueRowInserts(
        db,
        'agent_access',
        values.flatMap((rows) => rows.access),
      ),
    );
    for (let start = 0; start < history.length; start += HISTORY_ROWS_PER_STATEMENT) {
      writes.push(
        db.insertInto('agent_history').values(history.slice(start, start + HISTORY_ROWS_PER_STATEMENT)),
      );
    }
    writes.push(...auditInserts(db, audit));
    await executeWrites(db, writes);
  }
}

/**
 * The entry this description is about, by docs/registry.md's "Identity": the entry already holding its source (a
 * re-crawl); else one holding any of its strong keys; else, by its weak keys (origin and name), an entry of the
 * same publisher, or any entry when the description is the agent's own origin speaking (verified), that has no
 * description in the same format under another id.
 */
async function matchingEntry(
  db: Kysely<Database>,
  draft: RecordDraft,
  incoming: AgentSource,
): Promise<AgentRow | undefined> {
  if (draft.fetched !== undefined) {
    const holder = await entryOfSource(db, incoming.key);
    if (holder !== undefined) return selectRow(db, holder);
  }
  const keys = sourceKeys(incoming);
  const strong = await holderOfStrongKeys(db, keys.strong);
  if (strong !== undefined) return selectRow(db, strong);
  // A name ties descriptions in other formats (the crawler's merge rule): an entry already holding this format
  // under another id is another agent of the same name.
  for (const entry of await holdersOfWeakKeys(db, keys.weak)) {
    if (entry.owner !== draft.owner && !incoming.verified) continue;
    const sources = await readSources(db, entry.id);
    if (sources.some((source) => source.format === incoming.format && source.handle !== incoming.handle))
      continue;
    return selectRow(db, entry.id);
  }
  return undefined;
}

async function checkQuota(db: Kysely<Database>, owner: string, options: RegisterOptions): Promise<void> {
  if (options.quota !== undefined && (await countOwned(db, owner)) >= options.quota) {
    throw new QuotaExceeded(options.quota);
  }
}

/** The source a draft describes. */
function sourceOf(draft: RecordDraft, at: string): AgentSource {
  const { fetched } = draft;
  const verified = hasVerifiedProvenance(draft.agent);
  if (fetched === undefined) {
    return {
      key: registeredSourceKey(draft.sourceFormat),
      arrival: 'registered',
      by: draft.owner,
      handle: draft.agent.id,
      format: draft.sourceFormat,
      documents: [{ format: draft.sourceFormat, at }],
      agent: draft.agent,
      flags: draft.flags,
      verified,
      at,
    };
  }
  return {
    key: fetchedSourceKey(fetched.arrival, fetched.host, fetched.handle),
    arrival: fetched.arrival,
    by: draft.owner,
    handle: fetched.handle,
    format: draft.sourceFormat,
    documents: fetched.documents,
    agent: draft.agent,
    flags: draft.flags,
    verified,
    at,
  };
}

export interface ListOptions {
  caller: Caller;
  filters: AgentFilters;
  limit: number;
  afterId?: string;
}

export interface AgentPage {
  items: Array<{ record: RegistryRecord; metadata: string }>;
  /** Whether more agents follow the page's last. */
  more: boolean;
}

export type Change =
  | { kind: 'agent'; at: string; record: RegistryRecord }
  | { kind: 'deleted'; at: string; id: string };

/** A position in the `updated_since` order. */
export interface ChangeKey {
  at: string;
  id: string;
}

const SUFFIX_ATTEMPTS = 8;

export class AgentRepository {
  readonly #db: Kysely<Database>;
  readonly #dialect: DatabaseDialect;
  readonly #metadataOf: MetadataWriter;
  readonly #now: () => string;
  readonly #facets: FacetIndex | undefined;

  /** With `facets`, filtered lists and search scopes answer from it once it is loaded (`list`, `searchScope`). */
  constructor(
    db: Kysely<Database>,
    dialect: DatabaseDialect,
    metadataOf: MetadataWriter,
    now: () => string,
    facets?: FacetIndex,
  ) {
    this.#db = db;
    this.#dialect = dialect;
    this.#metadataOf = metadataOf;
    this.#now = now;
    this.#facets = facets;
  }

  /**
   * POST /agents, and the crawl sink: each draft joins the entry that is its agent (docs/registry.md, "Identity")
   * as one more source, or becomes a new entry under its preferred id (`unchanged` when nothing differs). A
   * registration that another publisher's entry stands in the way of is a conflict. All drafts are written in one
   * transaction: when one is over the quota or in conflict, none is written.
   */
  async register(
    drafts: ReadonlyArray<{ draft: RecordDraft; preferredId: string }>,
    options: RegisterOptions,
  ): Promise<RegisterOutcome[] | { kind: 'quota-exceeded'; limit: number } | ConflictOutcome> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        // The quota is a count, then an insert: concurrent registrations of one publisher take turns, or two
        // could each count one under the limit (PostgreSQL; SQLite's write transactions already take turns).
        // Owners in order, so that two requests never wait for each other.
        if (options.quota !== undefined) {
          for (const owner of [...new Set(drafts.map(({ draft }) => draft.owner))].sort()) {
            await this.#dialect.lockKey(trx, `agentry.quota:${owner}`);
          }
        }
        const outcomes: RegisterOutcome[] = [];
        const deferred = new DeferredRows();
        for (const { draft, preferredId } of drafts) {
          outcomes.push(
            await registerOne(trx, draft, preferredId, options, this.#env(options.actor), deferred),
          );
        }
        await deferred.flush(trx);
        return outcomes;
      });
    } catch (error) {
      if (error instanceof QuotaExceeded) return { kind: 'quota-exceeded', limit: error.limit };
      if (error instanceof Conflict) return error.outcome;
      throw error;
    }
  }

  /**
   * PUT /agents/{id}: the description replaces what was registered for the entry (crawled and imported sources
   * stay); `decide` says whether the caller may, on the row as it is now. A description of an agent another
   * publisher's entry holds is a conflict.
   */
  async update(
    id: string,
    draft: Omit<RecordDraft, 'owner' | 'fetched'>,
    decide: (record: RegistryRecord) => RecordAccess,
    actor: string,
  ): Promise<WriteOutcome> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        const existing = await selectRow(trx, id);
        if (existing === undefined) return { kind: 'not-found' };
        const verdict = decide(recordFromRow(existing));
        if (verdict === 'hide') return { kind: 'not-found' };
        if (verdict === 'forbid') return { kind: 'forbidden', owner: existing.owner };
        const full: RecordDraft = { ...draft, owner: existing.owner };
        const env = this.#env(actor);
        const incoming = sourceOf(full, env.at);
        const holder = await holderOfStrongKeys(trx, sourceKeys(incoming).strong, id);
        const holderRow = holder === undefined ? undefined : await selectRow(trx, holder);
        if (
          holderRow !== undefined &&
          isPublisherOwner(holderRow.owner) &&
          holderRow.owner !== existing.owner
        ) {
          throw new Conflict({
            kind: 'conflict',
            reason: 'identity',
            id: holderRow.id,
            agent: draft.agent.id,
          });
        }
        return attachSource(trx, existing, incoming, existing.owner, full, env, { replaceRegistered: true });
      });
    } catch (error) {
      if (error instanceof Conflict) return error.outcome;
      throw error;
    }
  }

  /**
   * Changes the crawled or imported source `key` (`change` returns the source as it is now, or null when it is
   * gone): the entry is merged again from its sources, or deleted with a tombstone when it has none left.
   */
  async changeSource(
    key: string,
    change: (source: AgentSource) => AgentSource | null,
    actor: string,
  ): Promise<RegisterOutcome | DeleteOutcome> {
    return this.#db.transaction().execute(async (trx) => {
      const holder = await entryOfSource(trx, key);
      const existing = holder === undefined ? undefined : await selectRow(trx, holder);
      if (existing === undefined) return { kind: 'not-found' };
      const sources = await readSources(trx, existing.id);
      const current = sources.find((source) => source.key === key);
      if (current === undefined) return { kind: 'not-found' };
      const changed = change(current);
      if (changed === current) return { kind: 'unchanged', record: recordFromRow(existing) };
      const rest = sources.filter((source) => source.key !== key);
      const env = this.#env(actor);
      if (changed === null && rest.length === 0) {
        const record = recordFromRow(existing);
        await deleteEntry(trx, existing, env);
        return { kind: 'deleted', record };
      }
      return rewriteEntry(
        trx,
        existing,
        changed === null ? rest : [...rest, changed],
        existing.owner,
        {},
        env,
      );
    });
  }

  /** Renames a source (crawled agents stored before sources had their own keys are found by their entry's id). */
  async renameSource(agentId: string, from: string, to: string, handle: string): Promise<void> {
    await this.#db
      .updateTable('agent_sources')
      .set({ source_key: to, handle })
      .where('agent_id', '=', agentId)
      .where('source_key', '=', from)
      .execute();
  }

  /** The entry holding the crawled or imported source `key`. */
  async getBySource(key: string): Promise<RegistryRecord | undefined> {
    const holder = await entryOfSource(this.#db, key);
    return holder === undefined ? undefined : this.get(holder);
  }

  /** Where an entry's descriptions came from, primary first. */
  async sources(id: string): Promise<AgentSource[]> {
    const sources = await readSources(this.#db, id);
    const shaping = contributors(sources);
    return [...shaping, ...sources.filter((source) => !shaping.includes(source))];
  }

  /** DELETE /agents/{id}: removes the agent and leaves a tombstone for mirrors. */
  async delete(
    id: string,
    decide: (record: RegistryRecord) => RecordAccess,
    actor: string,
  ): Promise<DeleteOutcome> {
    return this.#db.transaction().execute(async (trx) => {
      const existing = await selectRow(trx, id);
      if (existing === undefined) return { kind: 'not-found' };
      const record = recordFromRow(existing);
      const verdict = decide(record);
      if (verdict === 'hide') return { kind: 'not-found' };
      if (verdict === 'forbid') return { kind: 'forbidden', owner: existing.owner };
      await deleteEntry(trx, existing, this.#env(actor));
      return { kind: 'deleted', record };
    });
  }

  /** The record, whoever may see it; callers check visibility. */
  async get(id: string): Promise<RegistryRecord | undefined> {
    const row = await selectRow(this.#db, id);
    return row === undefined ? undefined : recordFromRow(row);
  }

  /** The stored AIDIP metadata and record of an agent `caller` may see. */
  async getVisible(
    id: string,
    caller: Caller,
  ): Promise<{ record: RegistryRecord; metadata: string } | undefined> {
    let query = this.#db.selectFrom('agents').selectAll().where('agents.id', '=', id);
    const visible = agentVisibility(caller);
    if (visible !== undefined) query = query.where(visible);
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : { record: recordFromRow(row), metadata: row.metadata };
  }

  /** Records by id, in the order asked, leaving out those `caller` may not see or that do not exist. */
  async getMany(
    ids: readonly string[],
    caller: Caller,
  ): Promise<Array<{ record: RegistryRecord; metadata: string }>> {
    if (ids.length === 0) return [];
    const found = new Map<string, AgentRow>();
    // Bounded IN lists keep every statement within the engine's parameter limits.
    for (let start = 0; start < ids.length; start += 500) {
      let query = this.#db
        .selectFrom('agents')
        .selectAll()
        .where('agents.id', 'in', ids.slice(start, start + 500));
      const visible = agentVisibility(caller);
      if (visible !== undefined) query = query.where(visible);
      for (const row of await query.execute()) found.set(row.id, row);
    }
    return ids.flatMap((id) => {
      const row = found.get(id);
      return row === undefined ? [] : [{ record: recordFromRow(row), metadata: row.metadata }];
    });
  }

  /**
   * One page of the agents `caller` may see that match `filters`, in id order, after `afterId`. Filtered, and
   * once the facet index is loaded, the page's ids come from it (`#indexedPage`) and only their rows from the
   * database; else, and unfiltered (a range of the primary key), one statement.
   */
  async list(options: ListOptions): Promise<AgentPage> {
    if (hasFilters(options.filters)) {
      const page = await this.#indexedPage(options);
      if (page !== undefined) return page;
    }
    let query = this.#db.selectFrom('agents').selectAll();
    const visible = agentVisibility(options.caller);
    if (visible !== undefined) query = query.where(visible);
    for (const condition of filterConditions(options.filters)) query = query.where(condition);
    if (options.afterId !== undefined) query = query.where('agents.id', '>', options.afterId);
    const rows = await query
      .orderBy('agents.id')
      .limit(options.limit + 1)
      .execute();
    return {
      items: rows
        .slice(0, options.limit)
        .map((row) => ({ record: recordFromRow(row), metadata: row.metadata })),
      more: rows.length > options.limit,
    };
  }

  /**
   * A filtered page from the facet index, brought up to date with the database first (`current({ exact: true })`,
   * not waiting for the change counter to hear of other connections' commits): the agents meeting the filters in id order after
   * `afterId`, less those hidden from `caller` (asked of the database after that), then the page's rows, read
   * with `caller`'s visibility again. The same page the statement of `list` gives: the same agents in the same
   * order, and `more` when one more agent follows. At 1,000,000 agents the statement intersected the filters'
   * indexes (0.9 s for a tag and a capability); the index walks the postings of the rarer value. An agent of the
   * page removed or hidden between the reads makes it read again; undefined (the statement answers) while the
   * index is not loaded, or where the database orders ids otherwise (a PostgreSQL language collation).
   */
  async #indexedPage(options: ListOptions): Promise<AgentPage | undefined> {
    const index = this.#facets;
    if (index === undefined || !index.loaded || !(await index.sortsLikeDatabase())) return undefined;
    const requirements = filterRequirements(options.filters);
    for (let attempt = 0; attempt < PAGE_ATTEMPTS; attempt++) {
      await index.current({ exact: true });
      const hidden = await hiddenAgentIds(this.#db, options.caller);
      const ids = index.meeting(index.codesOf(requirements), hidden, options.afterId, options.limit + 1);
      const shown = ids.slice(0, options.limit);
      const items = await this.getMany(shown, options.caller);
      if (items.length === shown.length) return { items, more: ids.length > options.limit };
    }
    return undefined;
  }

  /**
   * Agents changed and deleted at or after `since`, oldest first (ties by id), after `after`: what a mirror
   * needs to catch up. Tombstones are not filtered by `filters` (a deleted agent has no values left), only by
   * visibility.
   */
  async changes(options: {
    caller: Caller;
    filters: AgentFilters;
    since: string;
    after?: ChangeKey;
    limit: number;
  }): Promise<{ items: Array<Change & { metadata?: string }>; more: boolean }> {
    const { after, limit } = options;
    let agents = this.#db.selectFrom('agents').selectAll().where('agents.updated_at', '>=', options.since);
    const visible = agentVisibility(options.caller);
    if (visible !== undefined) agents = agents.where(visible);
    for (const condition of filterConditions(options.filters)) agents = agents.where(condition);
    if (after !== undefined) {
      agents = agents.where((eb) =>
        eb.or([
          eb('agents.updated_at', '>', after.at),
          eb.and([eb('agents.updated_at', '=', after.at), eb('agents.id', '>', after.id)]),
        ]),
      );
    }
    let tombstones = this.#db
      .selectFrom('tombstones')
      .selectAll()
      .where('tombstones.deleted_at', '>=', options.since);
    const tombstoneVisible = tombstoneVisibility(options.caller);
    if (tombstoneVisible !== undefined) tombstones = tombstones.where(tombstoneVisible);
    if (after !== undefined) {
      tombstones = tombstones.where((eb) =>
        eb.or([
          eb('tombstones.deleted_at', '>', after.at),
          eb.and([eb('tombstones.deleted_at', '=', after.at), eb('tombstones.agent_id', '>', after.id)]),
        ]),
      );
    }
    const [agentRows, tombstoneRows] = await Promise.all([
      agents
        .orderBy('agents.updated_at')
        .orderBy('agents.id')
        .limit(limit + 1)
        .execute(),
      tombstones
        .orderBy('tombstones.deleted_at')
        .orderBy('tombstones.agent_id')
        .limit(limit + 1)
        .execute(),
    ]);
    const merged: Array<Change & { metadata?: string }> = [
      ...agentRows.map((row) => ({
        kind: 'agent' as const,
        at: row.updated_at,
        record: recordFromRow(row),
        metadata: row.metadata,
      })),
      ...tombstoneRows.map((row) => ({ kind: 'deleted' as const, at: row.deleted_at, id: row.agent_id })),
    ];
    merged.sort((a, b) => compareKeys(changeKey(a), changeKey(b)));
    return { items: merged.slice(0, limit), more: merged.length > limit };
  }

  /**
   * The agents a search for `caller` may rank. With filters: the ids `caller` may see that match them
   * (`candidates`). Without: every indexed agent but those hidden from `caller` (`excluded`), since a registry
   * usually holds far more agents a caller may see than it may not, and a search handed every visible id
   * (10,000s) spent longer on the set than on the ranking; the visible ones when they are fewer. Neither, when
   * nothing is filtered or hidden. Filtered, once the facet index is loaded, the ids come from its postings
   * (brought up to date first) less the hidden agents: at 1,000,000 agents the statement below took 1.2 s for a
   * tag and a capability.
   */
  async searchScope(caller: Caller, filters: AgentFilters): Promise<SearchScope> {
    const visible = agentVisibility(caller);
    if (!hasFilters(filters)) {
      if (visible === undefined) return {};
      const hidden = await this.#db
        .selectFrom('agents')
        .select('agents.id')
        .where('restricted', '=', 1)
        .where((eb) => eb.not(visible(eb)))
        .execute();
      if (hidden.length === 0) return {};
      const excluded = { excluded: new Set(hidden.map((row) => row.id)) };
      // A few hidden agents cost a search little; many may be most of the registry (a private one), and then the
      // agents this caller may see are the smaller set. Counting every agent is asked only then.
      if (hidden.length <= FEW_HIDDEN) return excluded;
      const { total } = await this.#db
        .selectFrom('agents')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow();
      if (hidden.length <= Number(total) / 2) return excluded;
    }
    // Filtered: from the facet index once loaded, brought up to date first; the hidden agents read after that.
    const index = this.#facets;
    if (hasFilters(filters) && index?.loaded === true) {
      await index.current({ exact: true });
      const hidden = await hiddenAgentIds(this.#db, caller);
      const ids = index.meeting(
        index.codesOf(filterRequirements(filters)),
        hidden,
        undefined,
        Number.POSITIVE_INFINITY,
      );
      return { candidates: new IdList(ids) }; // distinct: one per agent of the index
    }
    // Else from the filters' indexes alone (filters.ts), never each agent's row.
    let query = visibleAgentIdsMeeting(this.#db, caller, filters);
    if (query === undefined) {
      query = this.#db.selectFrom('agents').select('agents.id');
      if (visible !== undefined) query = query.where(visible);
    }
    const rows = await query.execute();
    return { candidates: new Set(rows.map((row) => row.id)) };
  }

  async countOwnedBy(owner: string): Promise<number> {
    return countOwned(this.#db, owner);
  }

  /**
   * Tells the search index of the entries the identity migration merged (store/identity-migration.ts): the old
   * ids are removed, the entries they joined indexed again; each merge once.
   */
  async reindexMerged(sync: {
    upsert(records: readonly RegistryRecord[]): Promise<void>;
    remove(ids: readonly string[]): Promise<void>;
  }): Promise<number> {
    const merges = await this.#db
      .selectFrom('agent_merges')
      .select(['from_id', 'into_id'])
      .where('reindexed', '=', 0)
      .execute();
    if (merges.length === 0) return 0;
    await sync.remove(merges.map((merge) => merge.from_id));
    const into = [...new Set(merges.map((merge) => merge.into_id))];
    const records = (await Promise.all(into.map((id) => this.get(id)))).flatMap((record) => record ?? []);
    await sync.upsert(records);
    await this.#db
      .updateTable('agent_merges')
      .set({ reindexed: 1 })
      .where(
        'from_id',
        'in',
        merges.map((merge) => merge.from_id),
      )
      .execute();
    return merges.length;
  }

  /** Every record, in id order, a batch at a time: for re-indexing. */
  async *scan(batchSize = 500): AsyncGenerator<RegistryRecord[]> {
    let after: string | undefined;
    for (;;) {
      let query = this.#db.selectFrom('agents').selectAll().orderBy('id').limit(batchSize);
      if (after !== undefined) query = query.where('id', '>', after);
      const rows = await query.execute();
      if (rows.length === 0) return;
      yield rows.map(recordFromRow);
      after = rows[rows.length - 1]!.id;
      if (rows.length < batchSize) return;
    }
  }

  /** The history of an agent, oldest first. */
  async history(id: string): Promise<HistoryEntry[]> {
    const rows = await this.#db
      .selectFrom('agent_history')
      .selectAll()
      .where('agent_id', '=', id)
      .orderBy('seq')
      .execute();
    return rows.map((row) => {
      const entry: HistoryEntry = {
        revision: row.revision,
        action: row.action,
        actor: row.actor,
        at: row.at,
      };
      if (row.record !== null) entry.record = parseColumn<RegistryRecord>(row.record, 'agent_history.record');
      return entry;
    });
  }

  #env(actor: string): WriteEnv {
    return { actor, at: this.#now(), metadataOf: this.#metadataOf };
  }
}

export interface HistoryEntry {
  revision: number;
  action: HistoryAction;
  actor: string;
  at: string;
  /** The record after the change; absent for a deletion. */
  record?: RegistryRecord;
}

interface WriteEnv {
  actor: string;
  at: string;
  metadataOf: MetadataWriter;
}

async function selectRow(db: Kysely<Database>, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
}

async function countOwned(db: Kysely<Database>, owner: string): Promise<number> {
  const row = await db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('held'))
    .where('owner', '=', owner)
    .executeTakeFirst();
  return Number(row?.held ?? 0);
}

async function insertRow(
  db: Kysely<Database>,
  id: string,
  source: AgentSource,
  draft: RecordDraft,
  env: WriteEnv,
  deferred: DeferredRows,
): Promise<RegisterOutcome> {
  const merged = mergeSources([source]);
  const agent = { ...merged.agent, id };
  const record: RegistryRecord = {
    id,
    agent,
    owner: draft.owner,
    status: statusOf(agent),
    flags: merged.flags,
    quality: initialQuality(merged.primary.verified),
    revision: 1,
    createdAt: env.at,
    updatedAt: env.at,
  };
  if (draft.access !== undefined && draft.access !== null)
    record.access = { groups: [...draft.access.groups] };
  // Writes of different tables, none reading another's: one statement on PostgreSQL (db/write-batch.ts). The
  // rows are there for the rest of the batch, which may find this entry by its keys.
  await executeWrites(db, [
    db.insertInto('agents').values(rowFromRecord(record, env.metadataOf(agent), merged.primary.format, [])),
    // A new agent under a deleted one's id is not deleted any more, nor shared with the groups the deleted one
    // was (its access rows outlive it for its tombstone's visibility): they would meet the new entry's own rows.
    db.deleteFrom('tombstones').where('agent_id', '=', id),
    db.deleteFrom('agent_access').where('agent_id', '=', id),
    // A new entry: no sources yet, and no entry holds its strong keys (else it would have joined that one).
    ...sourceInserts(db, id, [source]),
    ...keyInserts(db, id, entryKeys([source])),
  ]);
  // A new entry has no filter values yet (a deleted agent's went with its row), so none are deleted first.
  deferred.add(record, historyRow(id, 1, 'create', env.actor, env.at, record), {
    at: env.at,
    actor: env.actor,
    action: 'agent.create',
    target: id,
    details: auditDetails(record, source),
  });
  return { kind: 'created', record };
}

/**
 * Adds (or replaces, by its key) one source of an existing entry and merges the entry again; with
 * `replaceRegistered`, the source replaces every registered one (PUT).
 */
async function attachSource(
  db: Kysely<Database>,
  existing: AgentRow,
  source: AgentSource,
  owner: string,
  draft: Pick<RecordDraft, 'access'>,
  env: WriteEnv,
  options: { replaceRegistered?: boolean } = {},
): Promise<RegisterOutcome> {
  const stored = await readSources(db, existing.id);
  const same = stored.find((candidate) => candidate.key === source.key);
  const kept = stored.filter(
    (candidate) =>
      candidate.key !== source.key && !(options.replaceRegistered && candidate.arrival === 'registered'),
  );
  // A source that says what it said before keeps its time: registering the same document again changes nothing.
  const incoming = same !== undefined && sameSource(same, source) ? same : source;
  return rewriteEntry(db, existing, [...kept, incoming], owner, draft, env, source);
}

/** Writes an entry merged from `sources` (a new revision, unless nothing differs). */
async function rewriteEntry(
  db: Kysely<Database>,
  existing: AgentRow,
  sources: AgentSource[],
  owner: string,
  draft: Pick<RecordDraft, 'access'>,
  env: WriteEnv,
  changed?: AgentSource,
): Promise<RegisterOutcome> {
  const previous = recordFromRow(existing);
  const stored = await readSources(db, existing.id);
  const merged = mergeSources(sources);
  const agent = { ...merged.agent, id: existing.id };
  const candidate: RegistryRecord = {
    ...previous,
    agent,
    owner,
    status: statusOf(agent),
    flags: merged.flags,
    quality: { ...previous.quality, verified: merged.primary.verified },
  };
  if (draft.access === null) delete candidate.access;
  else if (draft.access !== undefined) candidate.access = { groups: [...draft.access.groups] };
  if (sameContent(previous, candidate) && sameSources(stored, sources)) {
    return { kind: 'unchanged', record: previous };
  }
  const record: RegistryRecord = { ...candidate, revision: previous.revision + 1, updatedAt: env.at };
  const samples = parseColumn<number[]>(existing.latency_samples, 'agents.latency_samples');
  const row = rowFromRecord(record, env.metadataOf(agent), merged.primary.format, samples);
  const { id: _id, created_at: _created, ...changes } = row;
  await db.updateTable('agents').set(changes).where('id', '=', existing.id).execute();
  await writeSources(db, existing.id, sources);
  await claimKeys(db, existing.id, entryKeys(sources));
  await writeValues(db, record);
  await writeHistory(db, record.id, record.revision, 'update', env.actor, env.at, record);
  await writeAudit(db, {
    at: env.at,
    actor: env.actor,
    action: 'agent.update',
    target: record.id,
    details: auditDetails(record, changed ?? merged.primary),
  });
  return { kind: 'updated', record };
}

/** Removes an entry and leaves a tombstone for mirrors. */
async function deleteEntry(db: Kysely<Database>, existing: AgentRow, env: WriteEnv): Promise<void> {
  const { at, actor } = env;
  await db.deleteFrom('agents').where('id', '=', existing.id).execute();
  await db
    .insertInto('tombstones')
    .values({ agent_id: existing.id, owner: existing.owner, restricted: existing.restricted, deleted_at: at })
    .onConflict((oc) =>
      oc.column('agent_id').doUpdateSet({
        owner: existing.owner,
        restricted: existing.restricted,
        deleted_at: at,
      }),
    )
    .execute();
  await writeHistory(db, existing.id, existing.revision, 'delete', actor, at, null);
  await writeAudit(db, {
    at,
    actor,
    action: 'agent.delete',
    target: existing.id,
    details: { revision: existing.revision, owner: existing.owner },
  });
}

function sameContent(a: RegistryRecord, b: RegistryRecord): boolean {
  return (
    JSON.stringify(a.agent) === JSON.stringify(b.agent) &&
    JSON.stringify(a.access ?? null) === JSON.stringify(b.access ?? null) &&
    a.owner === b.owner
  );
}

/** The same description from the same place, whenever it was read. */
function sameSource(a: AgentSource, b: AgentSource): boolean {
  return (
    a.format === b.format &&
    a.by === b.by &&
    a.handle === b.handle &&
    JSON.stringify(a.agent) === JSON.stringify(b.agent) &&
    JSON.stringify(a.documents.map(({ at: _at, ...place }) => place)) ===
      JSON.stringify(b.documents.map(({ at: _at, ...place }) => place))
  );
}

function sameSources(a: readonly AgentSource[], b: readonly AgentSource[]): boolean {
  const byKey = (list: readonly AgentSource[]) => [...list].sort((x, y) => (x.key < y.key ? -1 : 1));
  const left = byKey(a);
  const right = byKey(b);
  return (
    left.length === right.length &&
    left.every(
      (source, index) => source === right[index] || JSON.stringify(source) === JSON.stringify(right[index]),
    )
  );
}

const VALUE_TABLES: readonly AgentValueTableName[] = [
  'agent_tags',
  'agent_capabilities',
  'agent_languages',
  'agent_transports',
  'agent_auth_kinds',
];

/** An entry's filter values by table, and its access groups, as rows. */
type ValueRows = Record<AgentValueTableName, Array<{ agent_id: string; value: string }>> & {
  access: Array<{ agent_id: string; group_name: string }>;
};

function valueRows(record: RegistryRecord): ValueRows {
  const { agent } = record;
  const rowsOf = (values: Iterable<string>) =>
    [...new Set(values)].filter((value) => value !== '').map((value) => ({ agent_id: record.id, value }));
  return {
    agent_tags: rowsOf((agent.tags ?? []).map(normalizeFilterValue)),
    agent_capabilities: rowsOf((agent.capabilities ?? []).map(normalizeFilterValue)),
    agent_languages: rowsOf((agent.languages ?? []).flatMap(languageKeys)),
    agent_transports: rowsOf(transportValues(agent).map(normalizeFilterValue)),
    agent_auth_kinds: rowsOf(authValues(agent).map(normalizeFilterValue)),
    access: [...new Set(record.access?.groups ?? [])].map((group_name) => ({
      agent_id: record.id,
      group_name,
    })),
  };
}

/**
 * Writes an entry's filter values and access groups. `tables` names the value tables to write: a migration that
 * ran before some of them existed (the identity migration) passes the ones its schema has.
 */
export async function writeValues(
  db: Kysely<Database>,
  record: RegistryRecord,
  tables: readonly AgentValueTableName[] = VALUE_TABLES,
): Promise<void> {
  const rows = valueRows(record);
  for (const table of tables) {
    await db.deleteFrom(table).where('agent_id', '=', record.id).execute();
    await insertValueRows(db, table, rows[table]);
  }
  await db.deleteFrom('agent_access').where('agent_id', '=', record.id).execute();
  await insertValueRows(db, 'agent_access', rows.access);
}

/**
 * In statements of a bounded size: an agent (a crawled one, unchecked by the API's list limits) may list more
 * values than one statement may bind, and a registration batch writes its new entries' values together.
 */
async function insertValueRows<Table extends AgentValueTableName | 'agent_access'>(
  db: Kysely<Database>,
  table: Table,
  rows: ReadonlyArray<
    Table extends 'agent_access' ? ValueRows['access'][number] : ValueRows['agent_tags'][number]
  >,
): Promise<void> {
  for (const insert of valueRowInserts(db, table, rows)) await insert.execute();
}

/** The inserts of `insertValueRows`, to be run with other writes. */
function valueRowInserts<Table extends AgentValueTableName | 'agent_access'>(
  db: Kysely<Database>,
  table: Table,
  rows: ReadonlyArray<
    Table extends 'agent_access' ? ValueRows['access'][number] : ValueRows['agent_tags'][number]
  >,
): BatchedWrite[] {
  const inserts: BatchedWrite[] = [];
  for (let start = 0; start < rows.length; start += VALUE_ROWS_PER_STATEMENT) {
    inserts.push(db.insertInto(table).values(rows.slice(start, start + VALUE_ROWS_PER_STATEMENT) as never));
  }
  return inserts;
}

/** Rows of two values per INSERT: 1,000 bound values, far inside what SQLite (32,766) accepts. */
const VALUE_ROWS_PER_STATEMENT = 500;
/** Six bound values a row: 3,000 a statement. */
const HISTORY_ROWS_PER_STATEMENT = 500;

/** An `agent_history` row as written: the database numbers `seq`. */
type HistoryRow = Omit<AgentHistoryTable, 'seq'>;

function historyRow(
  id: string,
  revision: number,
  action: HistoryAction,
  actor: string,
  at: string,
  record: RegistryRecord | null,
): HistoryRow {
  return {
    agent_id: id,
    revision,
    action,
    actor,
    at,
    record: record === null ? null : JSON.stringify(record),
  };
}

export async function writeHistory(
  db: Kysely<Database>,
  id: string,
  revision: number,
  action: HistoryAction,
  actor: string,
  at: string,
  record: RegistryRecord | null,
): Promise<void> {
  await db
    .insertInto('agent_history')
    .values(historyRow(id, revision, action, actor, at, record))
    .execute();
}

function auditDetails(record: RegistryRecord, source: AgentSource): Record<string, unknown> {
  const details: Record<string, unknown> = {
    revision: record.revision,
    owner: record.owner,
    name: record.agent.name,
    format: source.format,
    source: source.key,
    flags: record.flags.map((flag) => flag.rule),
  };
  if (record.access !== undefined) details['groups'] = record.access.groups;
  return details;
}

function changeKey(change: Change): ChangeKey {
  return { at: change.at, id: change.kind === 'agent' ? change.record.id : change.id };
}

export function compareKeys(a: ChangeKey, b: ChangeKey): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `base-xxxxxx` with the suffix derived from the owner: the same for every registration of that owner. */
export function ownerSuffixedId(base: string, owner: string): string {
  const digest = createHash('sha256').update(`${owner}\u0000${base}`).digest();
  return `${base.slice(0, 120)}-${toSuffix(digest)}`;
}

/** `base-xxxxxx`: a free id beside one another owner holds. */
export function suffixedId(base: string): string {
  return `${base.slice(0, 120)}-${toSuffix(randomBytes(6))}`;
}

const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function toSuffix(bytes: Uint8Array): string {
  let out = '';
  for (let index = 0; index < 6; index++) out += SUFFIX_ALPHABET[bytes[index]! % SUFFIX_ALPHABET.length];
  return out;
}
