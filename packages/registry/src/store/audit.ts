/** The audit log: one entry per write (who, what, on what, when), written in the transaction of the write. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { parseColumn } from './json.js';

export interface AuditEntry {
  seq: number;
  at: string;
  /** Token id, or `anonymous`. */
  actor: string;
  /** `agent.create`, `agent.update`, `agent.delete`, `agent.feedback`, `token.create`, `token.revoke`. */
  action: string;
  target: string;
  details: Record<string, unknown>;
}

export async function writeAudit(db: Kysely<Database>, entry: Omit<AuditEntry, 'seq'>): Promise<void> {
  await writeAuditEntries(db, [entry]);
}

/** Audit entries in order, many to a statement (a registration batch's new agents). */
export async function writeAuditEntries(
  db: Kysely<Database>,
  entries: ReadonlyArray<Omit<AuditEntry, 'seq'>>,
): Promise<void> {
  for (const insert of auditInserts(db, entries)) await insert.execute();
}

/** The inserts of `writeAuditEntries`, to be run with other writes. */
export function auditInserts(db: Kysely<Database>, entries: ReadonlyArray<Omit<AuditEntry, 'seq'>>) {
  const inserts = [];
  for (let start = 0; start < entries.length; start += AUDIT_ROWS_PER_STATEMENT) {
    inserts.push(
      db.insertInto('audit_log').values(
        entries.slice(start, start + AUDIT_ROWS_PER_STATEMENT).map((entry) => ({
          at: entry.at,
          actor: entry.actor,
          action: entry.action,
          target: entry.target,
          details: JSON.stringify(entry.details),
        })),
      ),
    );
  }
  return inserts;
}

/** Five bound values a row: 2,500 a statement, far inside what SQLite (32,766) and PostgreSQL (65,535) accept. */
const AUDIT_ROWS_PER_STATEMENT = 500;

export interface AuditQuery {
  /** Entries before this sequence number (newest first paging). */
  before?: number;
  limit: number;
  target?: string;
  action?: string;
}

export class AuditLog {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Newest first. */
  async list(query: AuditQuery): Promise<AuditEntry[]> {
    let select = this.#db.selectFrom('audit_log').selectAll();
    if (query.before !== undefined) select = select.where('seq', '<', query.before);
    if (query.target !== undefined) select = select.where('target', '=', query.target);
    if (query.action !== undefined) select = select.where('action', '=', query.action);
    const rows = await select.orderBy('seq', 'desc').limit(query.limit).execute();
    return rows.map((row) => ({
      seq: row.seq,
      at: row.at,
      actor: row.actor,
      action: row.action,
      target: row.target,
      details: parseColumn<Record<string, unknown>>(row.details, 'audit_log.details'),
    }));
  }
}
