/**
 * The migration to "one agent, one entry" (docs/registry.md, "Identity"). Under the old rule every registration
 * and every crawled origin made an entry of its own, so one agent registered as a WoA document and as an A2A card,
 * or registered and crawled, is several entries. This creates the sources and identity tables, gives every stored
 * entry its source and keys, and merges the entries the identity rule says are one agent, as a registration would
 * have joined them:
 *
 * - entries are taken oldest first; each joins the earlier entry holding one of its strong keys, or one holding a
 *   weak key when both are the same publisher's or the joining one is the agent's own origin speaking (verified);
 * - a publisher's entry joins one held by the same publisher or by the crawler; one held by another publisher
 *   stays an entry of its own (that registration would be refused today) and the conflict is written to the audit
 *   log for the operator;
 * - the oldest entry of a group keeps its id, owner (a publisher over the crawler), access, revision history and
 *   creation time; the others' sources, feedback, invocation counts and latency samples move to it, their ids get
 *   a tombstone (mirrors delete them) and a row in `agent_merges`, which the registry reads on start to update its
 *   search index.
 *
 * Ids the old rule suffixed for a second publisher (`weather-k3x9q2`) are read back to the id the agent asked for,
 * and crawled entries to the agent's id at its origin (from the crawler's tables), so their keys are the ones a
 * registration computes now.
 */
import type { Agent, FormatName, IdentityKeys } from '@agentry/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { crawledId, crawlOwner, hostOf } from '../records/ids.js';
import { hasVerifiedProvenance } from '../records/provenance-trust.js';
import { median, withFeedback } from '../records/quality.js';
import {
  type AgentSource,
  fetchedSourceKey,
  mergeSources,
  registeredSourceKey,
  type SourceArrival,
} from '../records/sources.js';
import { statusOf } from '../records/status.js';
import type { QualitySignals, RegistryRecord, SafetyFlag } from '../records/types.js';
import { storedMetadata } from '../records/views.js';
import { forEachAgentPage } from './agent-pages.js';
import { isPublisherOwner, ownerSuffixedId, writeHistory, writeValues } from './agents.js';
import { writeAudit } from './audit.js';
import { claimKeys, entryKeys, sourceKeys, writeSources } from './identity.js';
import { parseColumn } from './json.js';
import { totals } from './quality.js';
import { type AgentRow, recordFromRow, rowFromRecord } from './rows.js';

const ACTOR = 'migration';

export async function createIdentityTables(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createTable('agent_sources')
    .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('source_key', 'text', (col) => col.notNull())
    .addColumn('arrival', 'text', (col) => col.notNull())
    .addColumn('brought_by', 'text', (col) => col.notNull())
    .addColumn('handle', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('documents', 'text', (col) => col.notNull())
    .addColumn('agent', 'text', (col) => col.notNull())
    .addColumn('flags', 'text', (col) => col.notNull())
    .addColumn('verified', 'integer', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('agent_sources_pk', ['agent_id', 'source_key'])
    .execute();
  // The crawl sink finds a crawled agent's entry by its source.
  await db.schema.createIndex('agent_sources_key').on('agent_sources').column('source_key').execute();

  await db.schema
    .createTable('agent_identities')
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('strong', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('agent_identities_pk', ['key', 'agent_id'])
    .execute();
  await db.schema.createIndex('agent_identities_agent').on('agent_identities').column('agent_id').execute();

  await db.schema
    .createTable('agent_merges')
    .addColumn('from_id', 'text', (col) => col.primaryKey())
    .addColumn('into_id', 'text', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('reindexed', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

/** What the first pass keeps of an entry: enough to group, without its description. */
interface Member {
  id: string;
  owner: string;
  createdAt: string;
  arrival: SourceArrival;
  /** The agent's id as its source named it. */
  handle: string;
  format: string;
  keys: IdentityKeys;
  verified: boolean;
}

interface Group {
  members: Member[];
  /** `format handle` of each member: a name does not tie two descriptions of one format under different ids. */
  described: Set<string>;
  owner: string;
  strong: Set<string>;
  weak: Set<string>;
}

export async function mergeDuplicateEntries(db: Kysely<Database>, now: string): Promise<void> {
  const handles = await crawledHandles(db);
  const imported = await importedHosts(db);

  // First pass: every entry's source and keys, in creation order.
  const members: Member[] = [];
  await forEachAgentPage(db, async (rows) => {
    for (const row of rows) {
      const source = sourceOfRow(row, handles, imported);
      members.push({
        id: row.id,
        owner: row.owner,
        createdAt: row.created_at,
        arrival: source.arrival,
        handle: source.handle,
        format: source.format,
        keys: sourceKeys(source),
        verified: source.verified,
      });
    }
  });
  members.sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.id, b.id));

  // Grouping, as registrations arriving in that order would have been joined.
  const groups: Group[] = [];
  const byStrong = new Map<string, Group>();
  const byWeak = new Map<string, Group[]>();
  const conflicts: Array<{ member: Member; holder: Group }> = [];
  for (const member of members) {
    const strongHolder = member.keys.strong
      .map((key) => byStrong.get(key))
      .find((group) => group !== undefined);
    const weakHolder =
      strongHolder === undefined
        ? member.keys.weak
            .flatMap((key) => byWeak.get(key) ?? [])
            .find(
              (group) =>
                (group.owner === member.owner || member.verified) &&
                ![...group.described].some(
                  (entry) =>
                    entry.startsWith(`${member.format} `) && entry !== `${member.format} ${member.handle}`,
                ),
            )
        : undefined;
    const holder = strongHolder ?? weakHolder;
    let group: Group | undefined;
    if (holder !== undefined) {
      const joins =
        member.arrival !== 'registered' || holder.owner === member.owner || !isPublisherOwner(holder.owner);
      if (joins) {
        group = holder;
        group.members.push(member);
        group.described.add(`${member.format} ${member.handle}`);
        if (member.arrival === 'registered') group.owner = member.owner;
      } else conflicts.push({ member, holder });
    }
    if (group === undefined) {
      group = {
        members: [member],
        described: new Set([`${member.format} ${member.handle}`]),
        owner: member.owner,
        strong: new Set(),
        weak: new Set(),
      };
      groups.push(group);
    }
    for (const key of member.keys.strong) {
      if (!byStrong.has(key)) {
        byStrong.set(key, group);
        group.strong.add(key);
      }
    }
    for (const key of member.keys.weak) {
      const holders = byWeak.get(key) ?? [];
      if (!holders.includes(group)) holders.push(group);
      byWeak.set(key, holders);
      group.weak.add(key);
    }
  }

  // Second pass: entries alone in their group get their source and keys; groups are merged into their oldest.
  const groupOf = new Map<string, Group>();
  for (const group of groups) for (const member of group.members) groupOf.set(member.id, group);
  await forEachAgentPage(db, async (rows) => {
    for (const row of rows) {
      const group = groupOf.get(row.id);
      if (group === undefined || group.members.length > 1) continue;
      const source = sourceOfRow(row, handles, imported);
      await writeSources(db, row.id, [source]);
      await claimKeys(db, row.id, entryKeys([source]));
    }
  });
  for (const group of groups)
    if (group.members.length > 1) await mergeGroup(db, group, handles, imported, now);
  for (const { member, holder } of conflicts) {
    await writeAudit(db, {
      at: now,
      actor: ACTOR,
      action: 'agent.identity-conflict',
      target: member.id,
      details: {
        holder: holder.members[0]!.id,
        holder_owner: holder.owner,
        owner: member.owner,
        note: 'the same agent as an entry another publisher registered first; kept as it was',
      },
    });
  }
}

async function mergeGroup(
  db: Kysely<Database>,
  group: Group,
  handles: ReadonlyMap<string, string>,
  imported: ReadonlySet<string>,
  now: string,
): Promise<void> {
  const ids = group.members.map((member) => member.id);
  const rows = await db.selectFrom('agents').selectAll().where('id', 'in', ids).execute();
  const rowById = new Map(rows.map((row) => [row.id, row]));
  const ordered = ids.map((id) => rowById.get(id)!);
  const survivor = ordered[0]!;
  const absorbed = ordered.slice(1);

  // One source per key: of two registrations in one format, the later one is what the publisher says now.
  const sources = new Map<string, AgentSource>();
  for (const row of [...ordered].sort((a, b) => compare(a.updated_at, b.updated_at))) {
    const source = sourceOfRow(row, handles, imported);
    sources.set(source.key, source);
  }
  const merged = mergeSources([...sources.values()]);
  const agent = { ...merged.agent, id: survivor.id };

  for (const row of absorbed) {
    await db.updateTable('feedback').set({ agent_id: survivor.id }).where('agent_id', '=', row.id).execute();
  }
  const previous = recordFromRow(survivor);
  const qualities = ordered.map((row) => parseColumn<QualitySignals>(row.quality, 'agents.quality'));
  const samples = ordered
    .flatMap((row) => parseColumn<number[]>(row.latency_samples, 'agents.latency_samples'))
    .slice(-51);
  let quality: QualitySignals = {
    ratings: 0,
    invocations: sum(qualities.map((q) => q.invocations)),
    failures: sum(qualities.map((q) => q.failures)),
    verified: merged.primary.verified,
  };
  const latency = median(samples);
  if (latency !== undefined) quality.latencyP50Ms = latency;
  const lastSeen = qualities
    .flatMap((q) => q.lastSeenAt ?? [])
    .sort()
    .pop();
  if (lastSeen !== undefined) quality.lastSeenAt = lastSeen;
  const liveness = qualities
    .flatMap((q) => q.liveness ?? [])
    .sort((a, b) => compare(a.checkedAt, b.checkedAt))
    .pop();
  if (liveness !== undefined) quality.liveness = liveness;
  quality = withFeedback(quality, await totals(db, survivor.id));

  const record: RegistryRecord = {
    ...previous,
    agent,
    owner: group.owner,
    status: statusOf(agent),
    flags: merged.flags,
    quality,
    revision: previous.revision + 1,
    updatedAt: now,
  };
  const row = rowFromRecord(record, storedMetadata(agent), merged.primary.format, samples);
  const { id: _id, created_at: _created, ...changes } = row;
  await db.updateTable('agents').set(changes).where('id', '=', survivor.id).execute();

  for (const gone of absorbed) {
    await db.deleteFrom('agents').where('id', '=', gone.id).execute();
    await db
      .insertInto('tombstones')
      .values({ agent_id: gone.id, owner: gone.owner, restricted: gone.restricted, deleted_at: now })
      .onConflict((oc) =>
        oc
          .column('agent_id')
          .doUpdateSet({ owner: gone.owner, restricted: gone.restricted, deleted_at: now }),
      )
      .execute();
    await writeHistory(db, gone.id, gone.revision, 'delete', ACTOR, now, null);
    await db.insertInto('agent_merges').values({ from_id: gone.id, into_id: survivor.id, at: now }).execute();
  }
  await writeSources(db, survivor.id, [...sources.values()]);
  await claimKeys(db, survivor.id, entryKeys([...sources.values()]));
  // The value tables of this migration's time: later ones (transports, auth kinds) are filled by their own.
  await writeValues(db, record, ['agent_tags', 'agent_capabilities', 'agent_languages']);
  await writeHistory(db, survivor.id, record.revision, 'update', ACTOR, now, record);
  await writeAudit(db, {
    at: now,
    actor: ACTOR,
    action: 'agent.merge',
    target: survivor.id,
    details: { revision: record.revision, owner: record.owner, merged: absorbed.map((gone) => gone.id) },
  });
}

/** An entry stored under the old rule, as the one source it was made from. */
function sourceOfRow(
  row: AgentRow,
  handles: ReadonlyMap<string, string>,
  imported: ReadonlySet<string>,
): AgentSource {
  const stored = parseColumn<Agent>(row.canonical, 'agents.canonical');
  const format = (stored.provenance?.sourceFormat ?? row.source_format) as FormatName;
  const flags = parseColumn<SafetyFlag[]>(row.flags, 'agents.flags');
  const verified = hasVerifiedProvenance(stored);
  if (isPublisherOwner(row.owner)) {
    const handle = askedId(row.id, row.owner);
    return {
      key: registeredSourceKey(row.source_format as FormatName),
      arrival: 'registered',
      by: row.owner,
      handle,
      format: row.source_format as FormatName,
      documents: [{ format: row.source_format as FormatName, at: row.updated_at }],
      agent: { ...stored, id: handle },
      flags,
      verified,
      at: row.updated_at,
    };
  }
  const host = row.owner.slice('crawler:'.length);
  const arrival = imported.has(host) ? 'imported' : 'crawled';
  const handle = handles.get(row.id) ?? row.id;
  const document = { format, at: stored.provenance?.fetchedAt ?? row.updated_at };
  return {
    key: fetchedSourceKey(arrival, host, handle),
    arrival,
    by: row.owner,
    handle,
    format,
    documents: [
      stored.provenance?.sourceUrl === undefined
        ? document
        : { ...document, url: stored.provenance.sourceUrl },
    ],
    agent: { ...stored, id: handle },
    flags,
    verified,
    at: row.updated_at,
  };
}

/** The id a publisher's agent asked for: the old rule's owner suffix (`weather-k3x9q2`) taken off. */
function askedId(id: string, owner: string): string {
  const base = /^(.+)-[a-z0-9]{6}$/.exec(id)?.[1];
  return base !== undefined && ownerSuffixedId(base, owner) === id ? base : id;
}

/** Registry id → the agent's id at its origin, for every crawled agent the crawler's tables know. */
async function crawledHandles(db: Kysely<Database>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!(await hasTable(db, 'crawl_agents'))) return out;
  const rows = await db.selectFrom('crawl_agents').select(['origin', 'agent_id']).execute();
  for (const row of rows) {
    const preferred = crawledId(row.origin, row.agent_id);
    out.set(preferred, row.agent_id);
    out.set(ownerSuffixedId(preferred, crawlOwner(row.origin)), row.agent_id);
  }
  return out;
}

/** Hosts of the registries imported into this one: their agents arrived by import, not by crawl. */
async function importedHosts(db: Kysely<Database>): Promise<Set<string>> {
  if (!(await hasTable(db, 'federation_sources'))) return new Set();
  const rows = await db.selectFrom('federation_sources').select('base_url').execute();
  return new Set(rows.map((row) => hostOf(row.base_url)));
}

async function hasTable(db: Kysely<Database>, name: string): Promise<boolean> {
  const tables = await db.introspection.getTables();
  return tables.some((table) => table.name === name);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
