/**
 * Which agents' search entries changed, in commit order, so that an index can follow writes made through another
 * connection: `agentry crawl` writing into the file a running `agentry serve` reads, or a second registry process
 * on the same file. The vectors, the demotions and a large lexical index's copy (lexical/memory-mirror.ts) are held
 * in memory and would otherwise go stale until a restart; the stored lexical engine needs none of this.
 *
 * Every write transaction stamps the agents it touched with one sequence number, one above the highest so far.
 * SQLite runs one write transaction at a time, so the numbers follow commit order (a database whose writers commit
 * side by side would need numbers given at commit). An index remembers the highest
 * number it has applied and reads what lies above. One row per agent, kept after the agent is removed (it then
 * says "gone"), so the table grows with the agents, not with the writes.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { Database } from '../db/database.js';
import { chunks } from './chunks.js';

export const changeLogMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('search_changes')
      .addColumn('agent_id', 'text', (col) => col.primaryKey())
      .addColumn('seq', 'integer', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('search_changes_seq').on('search_changes').column('seq').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('search_changes').execute();
  },
};

/**
 * How far an index has read the log: every change up to `seq`, or, with `agentId`, the changes of `seq` up to that
 * agent (a page may end inside one write's changes).
 */
export interface ChangePosition {
  seq: number;
  agentId?: string;
}

export interface ChangedEntry {
  id: string;
  seq: number;
  /** The agent's vector row as it is now; undefined when it has none (removed, or never embedded). */
  provider?: string;
  vector?: Uint8Array;
  /** Its demotion as it is now; undefined when it has none. */
  demotion?: { penalty: number; reasons: string };
}

/**
 * Stamps `ids` as changed by the running write transaction; returns the number they were stamped with. The number
 * is read in the statement that stamps the first rows (one round trip, not two: on PostgreSQL the write lock is
 * held meanwhile), and the later rows of a large write take the number it returned.
 */
export async function markChanged(trx: Kysely<Database>, ids: readonly string[]): Promise<number> {
  let seq: number | undefined;
  for (const chunk of chunks([...new Set(ids)])) {
    const stamp =
      seq ??
      sql<number>`(select coalesce(max(${sql.ref('seq')}), 0) + 1 from ${sql.table('search_changes')})`;
    const stamped = await trx
      .insertInto('search_changes')
      .values(chunk.map((agent_id) => ({ agent_id, seq: stamp })))
      .onConflict((conflict) =>
        conflict.column('agent_id').doUpdateSet((eb) => ({ seq: eb.ref('excluded.seq') })),
      )
      .returning('seq')
      .execute();
    seq ??= Number(stamped[0]?.seq);
  }
  if (seq === undefined) return (await latestChange(trx)) + 1;
  return seq;
}

/** The highest number stamped so far (0 for none). */
export async function latestChange(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('search_changes')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** The next `limit` changes after `after`, each with the agent's vector row and demotion as they are now. */
export async function changesAfter(
  db: Kysely<Database>,
  after: ChangePosition,
  limit: number,
): Promise<ChangedEntry[]> {
  const rows = await db
    .selectFrom('search_changes as c')
    .leftJoin('search_vectors as v', 'v.agent_id', 'c.agent_id')
    .leftJoin('search_demotions as d', 'd.agent_id', 'c.agent_id')
    .select(['c.agent_id', 'c.seq', 'v.provider', 'v.vector', 'd.penalty', 'd.reasons'])
    .where((eb) => {
      const later = eb('c.seq', '>', after.seq);
      if (after.agentId === undefined) return later;
      return eb.or([later, eb.and([eb('c.seq', '=', after.seq), eb('c.agent_id', '>', after.agentId)])]);
    })
    .orderBy('c.seq')
    .orderBy('c.agent_id')
    .limit(limit)
    .execute();
  return rows.map((row) => {
    const entry: ChangedEntry = { id: row.agent_id, seq: Number(row.seq) };
    if (row.provider !== null) entry.provider = row.provider;
    if (row.vector !== null) entry.vector = row.vector;
    if (row.penalty !== null && row.reasons !== null) {
      entry.demotion = { penalty: row.penalty, reasons: row.reasons };
    }
    return entry;
  });
}
