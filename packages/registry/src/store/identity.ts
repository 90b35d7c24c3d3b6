/**
 * The tables behind "one agent, one entry" (docs/registry.md, "Identity"): each entry's sources and the identity
 * keys it holds. Callers run these inside their write transaction.
 */
import { type Agent, type FormatName, type IdentityKeys, identityKeys } from '@agentry/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AgentSource, SourceArrival, SourceDocument } from '../records/sources.js';
import type { SafetyFlag } from '../records/types.js';
import { parseColumn } from './json.js';
import type { AgentSourcesTable } from './schema.js';

/** An entry's sources, in key order. */
export async function readSources(db: Kysely<Database>, agentId: string): Promise<AgentSource[]> {
  const rows = await db
    .selectFrom('agent_sources')
    .selectAll()
    .where('agent_id', '=', agentId)
    .orderBy('source_key')
    .execute();
  return rows.map(sourceFromRow);
}

/** Replaces an entry's sources with `sources` (`fresh`: the entry is new, and has none to replace). */
export async function writeSources(
  db: Kysely<Database>,
  agentId: string,
  sources: readonly AgentSource[],
  fresh = false,
): Promise<void> {
  if (!fresh) await db.deleteFrom('agent_sources').where('agent_id', '=', agentId).execute();
  for (const insert of sourceInserts(db, agentId, sources)) await insert.execute();
}

/** The inserts of a new entry's sources (`writeSources` with `fresh`), to be run with other writes. */
export function sourceInserts(db: Kysely<Database>, agentId: string, sources: readonly AgentSource[]) {
  if (sources.length === 0) return [];
  return [db.insertInto('agent_sources').values(sources.map((source) => rowFromSource(agentId, source)))];
}

/** The entry holding the crawled or imported source `key`. */
export async function entryOfSource(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('agent_sources')
    .select('agent_id')
    .where('source_key', '=', key)
    .executeTakeFirst();
  return row?.agent_id;
}

/** The identity keys of an entry: those of every source, each as the source names the agent. */
export function entryKeys(sources: readonly AgentSource[]): IdentityKeys {
  const strong = new Set<string>();
  const weak = new Set<string>();
  for (const source of sources) {
    const keys = sourceKeys(source);
    for (const key of keys.strong) strong.add(key);
    for (const key of keys.weak) weak.add(key);
  }
  return { strong: [...strong], weak: [...weak] };
}

export function sourceKeys(source: Pick<AgentSource, 'agent' | 'handle'>): IdentityKeys {
  const agent: Agent = { ...source.agent, id: source.handle };
  return identityKeys(agent);
}

/** The entry that holds one of `strong`, other than `except`; the first key's holder when several do. */
export async function holderOfStrongKeys(
  db: Kysely<Database>,
  strong: readonly string[],
  except?: string,
): Promise<string | undefined> {
  if (strong.length === 0) return undefined;
  const rows: Array<{ key: string; agent_id: string }> = [];
  for (const chunk of keyChunks(strong)) {
    let query = db
      .selectFrom('agent_identities')
      .select(['key', 'agent_id'])
      .where('strong', '=', 1)
      .where('key', 'in', chunk);
    if (except !== undefined) query = query.where('agent_id', '!=', except);
    rows.push(...(await query.execute()));
  }
  for (const key of strong) {
    const row = rows.find((candidate) => candidate.key === key);
    if (row !== undefined) return row.agent_id;
  }
  return undefined;
}

/** Entries holding one of the weak keys, with their owners, oldest first. */
export async function holdersOfWeakKeys(
  db: Kysely<Database>,
  weak: readonly string[],
): Promise<Array<{ id: string; owner: string }>> {
  if (weak.length === 0) return [];
  const rows: Array<{ id: string; owner: string; created_at: string }> = [];
  for (const chunk of keyChunks(weak)) {
    rows.push(
      ...(await db
        .selectFrom('agent_identities')
        .innerJoin('agents', 'agents.id', 'agent_identities.agent_id')
        .select(['agents.id as id', 'agents.owner as owner', 'agents.created_at as created_at'])
        .where('agent_identities.strong', '=', 0)
        .where('agent_identities.key', 'in', chunk)
        .execute()),
    );
  }
  // Oldest first across the chunks, as one ordered query would give them.
  rows.sort((a, b) => byText(a.created_at, b.created_at) || byText(a.id, b.id));
  const seen = new Set<string>();
  return rows.flatMap((row) => {
    if (seen.has(row.id)) return [];
    seen.add(row.id);
    return [{ id: row.id, owner: row.owner }];
  });
}

/**
 * The inserts that give a new entry its keys, to be run with other writes; the caller has found that no entry holds
 * any of its strong keys.
 */
export function keyInserts(db: Kysely<Database>, agentId: string, keys: IdentityKeys) {
  return keyRowInserts(db, [
    ...keys.strong.map((key) => ({ key, agent_id: agentId, strong: 1 })),
    ...keys.weak.map((key) => ({ key, agent_id: agentId, strong: 0 })),
  ]);
}

/**
 * Makes `keys` the keys entry `agentId` holds. A strong key another entry already holds stays that entry's: two
 * entries never share one.
 */
export async function claimKeys(db: Kysely<Database>, agentId: string, keys: IdentityKeys): Promise<void> {
  await db.deleteFrom('agent_identities').where('agent_id', '=', agentId).execute();
  const heldElsewhere = new Set<string>();
  for (const chunk of keyChunks(keys.strong)) {
    const rows = await db
      .selectFrom('agent_identities')
      .select('key')
      .where('strong', '=', 1)
      .where('key', 'in', chunk)
      .execute();
    for (const row of rows) heldElsewhere.add(row.key);
  }
  const values = [
    ...keys.strong
      .filter((key) => !heldElsewhere.has(key))
      .map((key) => ({ key, agent_id: agentId, strong: 1 })),
    ...keys.weak.map((key) => ({ key, agent_id: agentId, strong: 0 })),
  ];
  await insertKeyRows(db, values);
}

/** Inserts key rows 300 at a time: three values a row bind 900, far inside what SQLite (32,766) accepts. */
async function insertKeyRows(
  db: Kysely<Database>,
  values: ReadonlyArray<{ key: string; agent_id: string; strong: number }>,
): Promise<void> {
  for (const insert of keyRowInserts(db, values)) await insert.execute();
}

function keyRowInserts(
  db: Kysely<Database>,
  values: ReadonlyArray<{ key: string; agent_id: string; strong: number }>,
) {
  const inserts = [];
  for (let start = 0; start < values.length; start += 300) {
    inserts.push(db.insertInto('agent_identities').values(values.slice(start, start + 300)));
  }
  return inserts;
}

/** Text in code-unit order, as SQLite compares it. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Keys in lists of a bounded size: an agent the registry crawled may name endless endpoints (one key each), more
 * than one statement may bind.
 */
function* keyChunks(keys: readonly string[]): Generator<string[]> {
  for (let start = 0; start < keys.length; start += 500) yield keys.slice(start, start + 500);
}

export function sourceFromRow(row: AgentSourcesTable): AgentSource {
  return {
    key: row.source_key,
    arrival: row.arrival as SourceArrival,
    by: row.brought_by,
    handle: row.handle,
    format: row.format as FormatName,
    documents: parseColumn<SourceDocument[]>(row.documents, 'agent_sources.documents'),
    agent: parseColumn<Agent>(row.agent, 'agent_sources.agent'),
    flags: parseColumn<SafetyFlag[]>(row.flags, 'agent_sources.flags'),
    verified: row.verified === 1,
    at: row.at,
  };
}

export function rowFromSource(agentId: string, source: AgentSource): AgentSourcesTable {
  return {
    agent_id: agentId,
    source_key: source.key,
    arrival: source.arrival,
    brought_by: source.by,
    handle: source.handle,
    format: source.format,
    documents: JSON.stringify(source.documents),
    agent: JSON.stringify(source.agent),
    flags: JSON.stringify(source.flags),
    verified: source.verified ? 1 : 0,
    at: source.at,
  };
}
