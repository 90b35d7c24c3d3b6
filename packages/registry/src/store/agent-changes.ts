/**
 * Which agents changed, in commit order: the log the facet index (facet-index.ts) follows to stay exact. One row
 * per agent (`agent_changes`: its id and the position of the last write that touched it), kept after the agent is
 * removed, so the table grows with the agents, not with the writes.
 *
 * The database fills it itself: triggers on `agents` and on every table the facet index reads (the value tables
 * and `agent_sources`) stamp the agent of each row inserted, updated or deleted. So every write stamps it, whoever
 * makes it — the store's registrations, updates and deletions, crawl merges, status changes, imports, restriction
 * changes, the bulk load, `agentry migrate`'s copy, a migration's backfill, a statement typed into `psql` — and no
 * code path can forget it. (The search index's `search_changes` is stamped by the search index's own write, a
 * separate transaction after the store's commit, and only for writes that reach the search index.)
 *
 * What a position is depends on the dialect:
 * - SQLite runs one write transaction at a time, so a counter (one above the highest stamped) follows commit order:
 *   a reader at position P reads the rows above P, and its new position is the highest it read.
 * - PostgreSQL commits transactions side by side, and a number taken at write time may commit after a higher one.
 *   The stamp is the writing transaction's id (`pg_current_xact_id()`), and a reader's position is the oldest
 *   transaction still running when it read (`pg_snapshot_xmin`, read before the rows): every transaction that
 *   commits later has an id at or above it. A reader reads the rows stamped at or above its position, so it may
 *   read an agent again (harmless: it reloads it), never miss one. A transaction left open for long holds the
 *   position back and the agents written meanwhile are read again at each catch-up until it ends.
 */
import { type Kysely, type QueryExecutorProvider, sql } from 'kysely';
import type { DialectName } from '../db/dialect.js';

/**
 * The tables whose rows hold facet values, with the column naming their agent and the columns an update stamps
 * on: an agent's quality and latency samples change at every call through the gateway, and a source's key when it
 * is renamed, which no facet shows.
 */
const STAMPED_TABLES: ReadonlyArray<
  readonly [table: string, agentColumn: string, updateOf: readonly string[]]
> = [
  ['agents', 'id', ['id', 'status']],
  ['agent_tags', 'agent_id', ['agent_id', 'value']],
  ['agent_capabilities', 'agent_id', ['agent_id', 'value']],
  ['agent_languages', 'agent_id', ['agent_id', 'value']],
  ['agent_transports', 'agent_id', ['agent_id', 'value']],
  ['agent_auth_kinds', 'agent_id', ['agent_id', 'value']],
  ['agent_sources', 'agent_id', ['agent_id', 'arrival', 'format']],
];

/** The log's table. */
export const AGENT_CHANGES_TABLE = 'agent_changes';

/** Creates the log and the triggers that stamp it (migration 2026-11-28-012-agent-changes). */
export async function createAgentChangeLog(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await sql`create table agent_changes (agent_id text primary key, seq bigint not null)`.execute(db);
  await sql`create index agent_changes_seq on agent_changes (seq)`.execute(db);
  if (dialect === 'postgres') await createPostgresTriggers(db);
  else await createSqliteTriggers(db);
}

async function createSqliteTriggers(db: Kysely<unknown>): Promise<void> {
  // An update, then an insert when there was no row: neither can conflict, so the conflict policy of the
  // statement that fired the trigger (which SQLite applies to the trigger's statements too) never matters.
  const stamp = (agent: string): string => `
    update agent_changes set seq = (select coalesce(max(seq), 0) + 1 from agent_changes) where agent_id = ${agent};
    insert into agent_changes (agent_id, seq)
      select ${agent}, (select coalesce(max(seq), 0) + 1 from agent_changes)
      where not exists (select 1 from agent_changes where agent_id = ${agent});`;
  for (const [table, column, updateOf] of STAMPED_TABLES) {
    for (const [name, event, body] of [
      ['insert', 'insert', stamp(`new.${column}`)],
      ['delete', 'delete', stamp(`old.${column}`)],
      ['update', `update of ${updateOf.join(', ')}`, stamp(`old.${column}`) + stamp(`new.${column}`)],
    ] as const) {
      await sql
        .raw(`create trigger ${table}_stamp_${name} after ${event} on ${table} begin ${body} end`)
        .execute(db);
    }
  }
}

async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  // A statement's rows at once (its transition tables), in agent order: two writes stamping the same agents wait
  // for each other rather than each holding a row the other needs. An agent already stamped by this transaction
  // is left as it is (no new row version). A trigger with transition tables takes no column list, so an update
  // stamps the agents whose rows differ in the columns that matter, before or after it.
  const stampFrom = (agents: string): string => `
    insert into agent_changes (agent_id, seq)
      select distinct agent, pg_current_xact_id()::text::bigint from (${agents}) as changed (agent) order by 1
      on conflict (agent_id) do update set seq = excluded.seq
      where agent_changes.seq is distinct from excluded.seq;`;
  for (const [table, column, updateOf] of STAMPED_TABLES) {
    const columns = updateOf.join(', ');
    const differing = `select ${column} from (
      (select ${columns} from new_rows except select ${columns} from old_rows)
      union (select ${columns} from old_rows except select ${columns} from new_rows)) as differing`;
    for (const [name, body] of [
      ['written', stampFrom(`select ${column} from new_rows`)],
      ['removed', stampFrom(`select ${column} from old_rows`)],
      ['updated', stampFrom(differing)],
    ] as const) {
      await sql
        .raw(
          `create function agentry_stamp_${table}_${name}() returns trigger language plpgsql as $$
          begin ${body} return null; end $$`,
        )
        .execute(db);
    }
    for (const [event, referencing, name] of [
      ['insert', 'new table as new_rows', 'written'],
      ['delete', 'old table as old_rows', 'removed'],
      ['update', 'old table as old_rows new table as new_rows', 'updated'],
    ] as const) {
      await sql
        .raw(
          `create trigger ${table}_stamp_${event} after ${event} on ${table}
          referencing ${referencing} for each statement execute function agentry_stamp_${table}_${name}()`,
        )
        .execute(db);
    }
  }
}

/** Where a reader of the log stands (see the module header for what it means on each dialect). */
export type ChangeLogPosition = number;

/** The position to read from after reading everything the database holds now: taken before that read. */
export async function agentChangePosition(
  db: QueryExecutorProvider,
  dialect: DialectName,
): Promise<ChangeLogPosition> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{
      horizon: string;
    }>`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`.execute(db);
    return Number(rows[0]!.horizon);
  }
  const { rows } = await sql<{ seq: number | null }>`select max(seq) as seq from agent_changes`.execute(db);
  return Number(rows[0]?.seq ?? 0);
}

/** The agents changed since `position` (removed ones too), and the position after them. */
export async function agentsChangedSince(
  db: QueryExecutorProvider,
  dialect: DialectName,
  position: ChangeLogPosition,
): Promise<{ ids: string[]; position: ChangeLogPosition }> {
  if (dialect === 'postgres') {
    // One statement, one snapshot: the rows it reads and its horizon, at or below the id of every transaction
    // whose rows it could not see (running then, or begun since). One round trip: the facet index reads the log
    // at every filtered list (facet-index.ts, `current({ exact: true })`).
    const { rows } = await sql<{
      horizon: string;
      agent_id: string | null;
    }>`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, changed.agent_id
      from (select 1) as one left join agent_changes as changed on changed.seq >= ${position}`.execute(db);
    const horizon = Number(rows[0]!.horizon);
    const ids = rows.flatMap((row) => (row.agent_id === null ? [] : [row.agent_id]));
    return { ids, position: Math.max(position, horizon) };
  }
  const { rows } = await sql<{
    agent_id: string;
    seq: number;
  }>`select agent_id, seq from agent_changes where seq > ${position}`.execute(db);
  let latest = position;
  for (const row of rows) latest = Math.max(latest, Number(row.seq));
  return { ids: rows.map((row) => row.agent_id), position: latest };
}
