/**
 * Every stored agent, a page at a time, for the migrations that visit each one. Keyset paging in id order: a page
 * starts after the last id of the one before, so a visitor may rewrite the rows it is given without a page being
 * skipped or read twice, and no page costs more than the first.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AgentRow } from './rows.js';

/** Agents read at a time. */
const PAGE = 500;

/** Calls `visit` with every stored agent's row, `PAGE` at a time in id order; the next page waits for it. */
export async function forEachAgentPage(
  db: Kysely<Database>,
  visit: (rows: readonly AgentRow[]) => Promise<void>,
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('agents')
      .selectAll()
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    await visit(rows);
    after = rows[rows.length - 1]!.id;
  }
}
