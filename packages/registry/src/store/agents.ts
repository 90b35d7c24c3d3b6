/**
 * Agents: registration, update, deletion and every read. A write is one transaction holding the agent row, its
 * filter values and access groups, a history entry and an audit entry, so none of them exists without the others.
 * Decisions that depend on what is stored (which id, whether the caller may touch it, the quota) are made inside
 * that transaction, on the row as it is then.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Agent, FormatName } from '@agentry/core';
import type { Kysely } from 'kysely';
import { hasVerifiedProvenance } from '../records/provenance-trust.js';
import { initialQuality } from '../records/quality.js';
import { statusOf } from '../records/status.js';
import type { Caller, RegistryRecord, SafetyFlag } from '../records/types.js';
import { writeAudit } from './audit.js';
import {
  type AgentFilters,
  agentVisibility,
  filterConditions,
  hasFilters,
  languageKeys,
  normalizeFilterValue,
  tombstoneVisibility,
} from './filters.js';
import { parseColumn } from './json.js';
import { type AgentRow, recordFromRow, rowFromRecord } from './rows.js';
import type { AgentValueTableName, HistoryAction, RegistryTables } from './schema.js';

/** Hidden agents a search is told to leave out without first counting every agent (see `searchScope`). */
const FEW_HIDDEN = 1000;

/** Which agents a search may rank: only `candidates` when given, never `excluded`; every agent when neither is. */
export interface SearchScope {
  candidates?: ReadonlySet<string>;
  excluded?: ReadonlySet<string>;
}

/** What a registration or update writes, before the store settles the id. */
export interface RecordDraft {
  /** The canonical agent; its `id` is replaced by the one the store assigns. */
  agent: Agent;
  owner: string;
  /** Groups that may see the agent; `null` makes it public; absent keeps what an update replaces (public for a new one). */
  access?: { groups: string[] } | null;
  flags: SafetyFlag[];
  sourceFormat: FormatName;
}

/** Turns the canonical agent (with its final id) into the AIDIP metadata stored beside it, as JSON text. */
export type MetadataWriter = (agent: Agent) => string;

/** What the caller may do with an existing record: `hide` answers as if it did not exist. */
export type RecordAccess = 'allow' | 'hide' | 'forbid';

export type WriteOutcome = RegisterOutcome | { kind: 'not-found' } | { kind: 'forbidden'; owner: string };

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

/** Thrown inside a registration transaction to roll it back. */
class QuotaExceeded extends Error {
  constructor(readonly limit: number) {
    super(`Quota of ${limit} agents exceeded.`);
  }
}

async function registerOne(
  db: Kysely<RegistryTables>,
  draft: RecordDraft,
  preferredId: string,
  options: RegisterOptions,
  env: WriteEnv,
): Promise<RegisterOutcome> {
  // The id asked for; when another owner holds it, one suffixed by a hash of the owner, so that the same owner
  // registering the same agent again lands on the same id; past that (a clash of hashes), random suffixes.
  let id = preferredId;
  for (let attempt = 0; ; attempt++) {
    const existing = await selectRow(db, id);
    if (existing === undefined) break;
    if (existing.owner === draft.owner) return updateRow(db, existing, draft, env);
    if (attempt >= SUFFIX_ATTEMPTS) throw new Error(`No free id found for "${preferredId}".`);
    id = attempt === 0 ? ownerSuffixedId(preferredId, draft.owner) : suffixedId(preferredId);
  }
  if (options.quota !== undefined && (await countOwned(db, draft.owner)) >= options.quota) {
    throw new QuotaExceeded(options.quota);
  }
  return insertRow(db, id, draft, env);
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
  readonly #db: Kysely<RegistryTables>;
  readonly #metadataOf: MetadataWriter;
  readonly #now: () => string;

  constructor(db: Kysely<RegistryTables>, metadataOf: MetadataWriter, now: () => string) {
    this.#db = db;
    this.#metadataOf = metadataOf;
    this.#now = now;
  }

  /**
   * POST /agents: each draft becomes a new agent under its preferred id (or a suffixed id when another owner
   * holds it), or updates the agent when the same owner registers the same id again (`unchanged` when nothing
   * differs). All drafts are written in one transaction: when one is over the quota, none is written.
   */
  async register(
    drafts: ReadonlyArray<{ draft: RecordDraft; preferredId: string }>,
    options: RegisterOptions,
  ): Promise<RegisterOutcome[] | { kind: 'quota-exceeded'; limit: number }> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        const outcomes: RegisterOutcome[] = [];
        for (const { draft, preferredId } of drafts) {
          outcomes.push(await registerOne(trx, draft, preferredId, options, this.#env(options.actor)));
        }
        return outcomes;
      });
    } catch (error) {
      if (error instanceof QuotaExceeded) return { kind: 'quota-exceeded', limit: error.limit };
      throw error;
    }
  }

  /** PUT /agents/{id}: replaces the agent; `decide` says whether the caller may, on the row as it is now. */
  async update(
    id: string,
    draft: Omit<RecordDraft, 'owner'>,
    decide: (record: RegistryRecord) => RecordAccess,
    actor: string,
  ): Promise<WriteOutcome> {
    return this.#db.transaction().execute(async (trx) => {
      const existing = await selectRow(trx, id);
      if (existing === undefined) return { kind: 'not-found' };
      const verdict = decide(recordFromRow(existing));
      if (verdict === 'hide') return { kind: 'not-found' };
      if (verdict === 'forbid') return { kind: 'forbidden', owner: existing.owner };
      return updateRow(trx, existing, { ...draft, owner: existing.owner }, this.#env(actor));
    });
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
      const at = this.#now();
      await trx.deleteFrom('agents').where('id', '=', id).execute();
      await trx
        .insertInto('tombstones')
        .values({ agent_id: id, owner: existing.owner, restricted: existing.restricted, deleted_at: at })
        .onConflict((oc) =>
          oc.column('agent_id').doUpdateSet({
            owner: existing.owner,
            restricted: existing.restricted,
            deleted_at: at,
          }),
        )
        .execute();
      await writeHistory(trx, id, existing.revision, 'delete', actor, at, null);
      await writeAudit(trx, {
        at,
        actor,
        action: 'agent.delete',
        target: id,
        details: { revision: existing.revision, owner: existing.owner },
      });
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

  /** One page of the agents `caller` may see that match `filters`, in id order, after `afterId`. */
  async list(options: {
    caller: Caller;
    filters: AgentFilters;
    limit: number;
    afterId?: string;
  }): Promise<{ items: Array<{ record: RegistryRecord; metadata: string }>; more: boolean }> {
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
   * nothing is filtered or hidden.
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
    let query = this.#db.selectFrom('agents').select('agents.id');
    if (visible !== undefined) query = query.where(visible);
    for (const condition of filterConditions(filters)) query = query.where(condition);
    const rows = await query.execute();
    return { candidates: new Set(rows.map((row) => row.id)) };
  }

  async countOwnedBy(owner: string): Promise<number> {
    return countOwned(this.#db, owner);
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

async function selectRow(db: Kysely<RegistryTables>, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
}

async function countOwned(db: Kysely<RegistryTables>, owner: string): Promise<number> {
  const row = await db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('held'))
    .where('owner', '=', owner)
    .executeTakeFirst();
  return Number(row?.held ?? 0);
}

async function insertRow(
  db: Kysely<RegistryTables>,
  id: string,
  draft: RecordDraft,
  env: WriteEnv,
): Promise<RegisterOutcome> {
  const agent = { ...draft.agent, id };
  const record: RegistryRecord = {
    id,
    agent,
    owner: draft.owner,
    status: statusOf(agent),
    flags: draft.flags,
    quality: initialQuality(hasVerifiedProvenance(agent)),
    revision: 1,
    createdAt: env.at,
    updatedAt: env.at,
  };
  if (draft.access !== undefined && draft.access !== null)
    record.access = { groups: [...draft.access.groups] };
  await db
    .insertInto('agents')
    .values(rowFromRecord(record, env.metadataOf(agent), draft.sourceFormat, []))
    .execute();
  // A new agent under a deleted one's id is not deleted any more.
  await db.deleteFrom('tombstones').where('agent_id', '=', id).execute();
  await writeValues(db, record);
  await writeHistory(db, id, 1, 'create', env.actor, env.at, record);
  await writeAudit(db, {
    at: env.at,
    actor: env.actor,
    action: 'agent.create',
    target: id,
    details: auditDetails(record, draft.sourceFormat),
  });
  return { kind: 'created', record };
}

async function updateRow(
  db: Kysely<RegistryTables>,
  existing: AgentRow,
  draft: RecordDraft,
  env: WriteEnv,
): Promise<RegisterOutcome> {
  const previous = recordFromRow(existing);
  const agent = { ...draft.agent, id: existing.id };
  const candidate: RegistryRecord = {
    ...previous,
    agent,
    status: statusOf(agent),
    flags: draft.flags,
    quality: { ...previous.quality, verified: hasVerifiedProvenance(agent) },
  };
  if (draft.access === null) delete candidate.access;
  else if (draft.access !== undefined) candidate.access = { groups: [...draft.access.groups] };
  if (sameContent(previous, candidate) && existing.source_format === draft.sourceFormat) {
    return { kind: 'unchanged', record: previous };
  }
  const record: RegistryRecord = { ...candidate, revision: previous.revision + 1, updatedAt: env.at };
  const samples = parseColumn<number[]>(existing.latency_samples, 'agents.latency_samples');
  const row = rowFromRecord(record, env.metadataOf(agent), draft.sourceFormat, samples);
  const { id: _id, created_at: _created, ...changes } = row;
  await db.updateTable('agents').set(changes).where('id', '=', existing.id).execute();
  await writeValues(db, record);
  await writeHistory(db, record.id, record.revision, 'update', env.actor, env.at, record);
  await writeAudit(db, {
    at: env.at,
    actor: env.actor,
    action: 'agent.update',
    target: record.id,
    details: auditDetails(record, draft.sourceFormat),
  });
  return { kind: 'updated', record };
}

function sameContent(a: RegistryRecord, b: RegistryRecord): boolean {
  return (
    JSON.stringify(a.agent) === JSON.stringify(b.agent) &&
    JSON.stringify(a.access ?? null) === JSON.stringify(b.access ?? null) &&
    a.owner === b.owner
  );
}

const VALUE_TABLES: readonly AgentValueTableName[] = ['agent_tags', 'agent_capabilities', 'agent_languages'];

async function writeValues(db: Kysely<RegistryTables>, record: RegistryRecord): Promise<void> {
  const { agent } = record;
  const values: Record<AgentValueTableName, Set<string>> = {
    agent_tags: new Set((agent.tags ?? []).map(normalizeFilterValue)),
    agent_capabilities: new Set((agent.capabilities ?? []).map(normalizeFilterValue)),
    agent_languages: new Set((agent.languages ?? []).flatMap(languageKeys)),
  };
  for (const table of VALUE_TABLES) {
    await db.deleteFrom(table).where('agent_id', '=', record.id).execute();
    const rows = [...values[table]]
      .filter((value) => value !== '')
      .map((value) => ({ agent_id: record.id, value }));
    // In statements of a bounded size: an agent (a crawled one, unchecked by the API's list limits) may list
    // more values than one statement may bind.
    for (let start = 0; start < rows.length; start += VALUE_ROWS_PER_STATEMENT) {
      await db
        .insertInto(table)
        .values(rows.slice(start, start + VALUE_ROWS_PER_STATEMENT))
        .execute();
    }
  }
  await db.deleteFrom('agent_access').where('agent_id', '=', record.id).execute();
  const groups = [...new Set(record.access?.groups ?? [])].map((group_name) => ({
    agent_id: record.id,
    group_name,
  }));
  for (let start = 0; start < groups.length; start += VALUE_ROWS_PER_STATEMENT) {
    await db
      .insertInto('agent_access')
      .values(groups.slice(start, start + VALUE_ROWS_PER_STATEMENT))
      .execute();
  }
}

/** Rows of two values per INSERT: 1,000 bound values, far inside what SQLite (32,766) accepts. */
const VALUE_ROWS_PER_STATEMENT = 500;

async function writeHistory(
  db: Kysely<RegistryTables>,
  id: string,
  revision: number,
  action: HistoryAction,
  actor: string,
  at: string,
  record: RegistryRecord | null,
): Promise<void> {
  await db
    .insertInto('agent_history')
    .values({
      agent_id: id,
      revision,
      action,
      actor,
      at,
      record: record === null ? null : JSON.stringify(record),
    })
    .execute();
}

function auditDetails(record: RegistryRecord, sourceFormat: string): Record<string, unknown> {
  const details: Record<string, unknown> = {
    revision: record.revision,
    owner: record.owner,
    name: record.agent.name,
    format: sourceFormat,
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
