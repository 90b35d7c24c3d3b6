/**
 * Copying a registry's database into another one (`agentry migrate`: a SQLite file into PostgreSQL), row for row:
 * ids, sequence numbers, timestamps and binary columns (SQLite `blob` → PostgreSQL `bytea`) as they are stored.
 *
 * The tables are not listed here: they are read from both databases, each already brought to this registry's
 * schema by its migrations (db/migrations.ts), so a table a new migration adds is copied without a change here. A
 * table one side has and the other lacks stops the copy before anything is written, naming it — a table is never
 * left behind in silence. The one kind of table not copied is the lexical search index (`search_lexical*`): its
 * tables are the dialect's own (SQLite's FTS5 tables and their shadow tables; PostgreSQL's `tsvector` rows and
 * their totals), it is derived wholly from `agents`, and so the caller rebuilds it from the copied agents in the
 * copy's transaction (`rebuild`; move-database.ts does). The vectors (`search_vectors`) are copied: they cost an
 * embedding provider's time to make again. Nor is the log of changed agents (`agent_changes`): the target's
 * triggers stamp it as the rows are written (it is listed with the rebuilt tables).

 *
 * Order: a table after the tables its foreign keys point to (read from both databases), else by name.
 *
 * Transactions: the whole copy is one transaction on the target, taken under its write lock (the advisory lock
 * migrations take on PostgreSQL), so a copy that fails half-way leaves the target as it found it (empty, or as it
 * was before `replace`) and can simply be run again, replicas starting meanwhile wait for it instead of reading
 * half a registry, and two copies into one database cannot both find it empty. PostgreSQL holds a transaction of
 * any size without escalating locks. The source is read under its own write lock for the same span: what is
 * copied is one consistent state, and a registry still writing to the file waits (and fails after its busy
 * timeout) rather than having its writes land after the copy, where they would be lost without a word.
 *
 * Rows travel in batches (as many as fit under PostgreSQL's 65,535 parameters, at most 500), read from the source
 * as a stream. Identity columns (`agent_history.seq`, `audit_log.seq`, `feedback.seq`) keep their numbers, and on
 * PostgreSQL their sequences are moved past the highest copied (`continueIdentity`), so the next row written gets
 * the next number.
 */
import { AgentryError, type AgentryErrorCode } from '@agentry/core';
import { type Kysely, sql, type TableMetadata } from 'kysely';
import type { Database } from './database.js';
import type { DatabaseDialect } from './dialect.js';

/** A database to copy from or into: its handle and dialect (an `OpenedDatabase`, migrated). */
export interface CopyEndpoint {
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
}

/**
 * The tables whose rows are not copied but rebuilt from `agents`: the lexical search index, on either dialect, and
 * the log of changed agents (store/agent-changes.ts), which the target's triggers stamp as the rows are written
 * (its positions mean something on one database alone).
 */
export const REBUILT_TABLE = /^(search_lexical($|_)|agent_changes$)/;
/** The migration runner's own record: each database keeps its own (both hold the same list once migrated). */
const MIGRATION_TABLE = /^kysely_migration($|_lock$)/;

/** Rows per INSERT at most. */
const MAX_BATCH_ROWS = 500;
/** Bound parameters per statement PostgreSQL takes (65,535), with room to spare. */
const MAX_PARAMETERS = 60_000;
/** How long the copy waits for another holder of the target's write lock (a replica migrating). */
const LOCK_WAIT_MS = 60_000;

export interface TableCopyPlan {
  readonly table: string;
  /** The source's columns, every one of which the target has. */
  readonly columns: readonly string[];
  /** Columns the target numbers itself (identity / autoincrement): their sequence is moved past the copied rows. */
  readonly identityColumns: readonly string[];
}

export interface DatabaseCopyPlan {
  /** The tables whose rows are copied, in the order they are. */
  readonly tables: readonly TableCopyPlan[];
  /** The source's tables that are rebuilt instead (`REBUILT_TABLE`), by name. */
  readonly rebuilt: readonly string[];
}

export interface CopyProgress {
  readonly table: string;
  /** Rows of the table copied so far. */
  readonly copied: number;
  /** Rows the table holds in the source. */
  readonly total: number;
  /** True once the table is done (told once for every table, an empty one too). */
  readonly done: boolean;
}

export interface CopyDatabaseOptions {
  /**
   * Copy into a target that already holds rows, deleting them first (in the same transaction). Without it a
   * target with any row in a copied table is refused (`TargetNotEmptyError`) and nothing is written.
   */
  readonly replace?: boolean;
  /** Rows per INSERT (default: as many as fit, at most 500). */
  readonly batchRows?: number;
  /** Told after each batch, and once more for every table (an empty one too) when it is done. */
  readonly onProgress?: (progress: CopyProgress) => void;
  /**
   * Rebuilds what is not copied (`rebuilt`: the lexical search index) from the copied rows, in the copy's
   * transaction (`trx`), after every row is in. `replacedAgents`: the agents the target held before `replace`
   * deleted them, whose entries in the rebuilt tables are to go (none without `replace`).
   */
  readonly rebuild?: (trx: Kysely<Database>, replacedAgents: readonly string[]) => Promise<void>;
}

export interface DatabaseCopyResult {
  /** Rows copied, per table, in the order copied. */
  readonly tables: ReadonlyArray<{ readonly table: string; readonly rows: number }>;
  /** The source's tables not copied but to be rebuilt from `agents` (the lexical search index). */
  readonly rebuilt: readonly string[];
}

/** The databases' schemas do not match, or a row could not be written: nothing was copied. */
export class DatabaseCopyError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
}

/** The target already holds rows (and `replace` was not asked for): nothing was copied. */
export class TargetNotEmptyError extends DatabaseCopyError {
  /** The target's tables that hold rows. */
  readonly tables: readonly string[];

  constructor(tables: readonly string[]) {
    super(`The target database is not empty: ${tables.join(', ')} hold rows`);
    this.tables = tables;
  }
}

/** Any table, by name: the copy handles tables it learns of at run time. */
type AnyTables = Record<string, Record<string, unknown>>;
/** The registry's database, seen as holding any table. */
type AnyDatabase = Kysely<Database & AnyTables>;

/**
 * What a copy from `source` into `target` would do: which tables it copies, in which order, with which columns,
 * and which it rebuilds. Throws `DatabaseCopyError` when a table (or a column) of one side has nowhere to go on
 * the other.
 */
export async function planDatabaseCopy(
  source: CopyEndpoint,
  target: CopyEndpoint,
): Promise<DatabaseCopyPlan> {
  const [sourceTables, targetTables] = await Promise.all([tablesOf(source.db), tablesOf(target.db)]);
  const targetByName = new Map(targetTables.map((table) => [table.name, table]));
  const sourceNames = new Set(sourceTables.map((table) => table.name));

  const rebuilt: string[] = [];
  const copied: TableCopyPlan[] = [];
  const problems: string[] = [];
  for (const table of sourceTables) {
    if (REBUILT_TABLE.test(table.name)) {
      rebuilt.push(table.name);
      continue;
    }
    const into = targetByName.get(table.name);
    if (into === undefined) {
      problems.push(`table ${table.name} is in the source but not in the target`);
      continue;
    }
    const targetColumns = new Map(into.columns.map((column) => [column.name, column]));
    const columns = table.columns.map((column) => column.name);
    const missing = columns.filter((column) => !targetColumns.has(column));
    if (missing.length > 0) problems.push(`the target's ${table.name} has no ${missing.join(', ')}`);
    const unfilled = into.columns.filter(
      (column) =>
        !columns.includes(column.name) &&
        !column.isNullable &&
        !column.hasDefaultValue &&
        !column.isAutoIncrementing,
    );
    if (unfilled.length > 0) {
      problems.push(
        `the source's ${table.name} has no ${unfilled.map((column) => column.name).join(', ')}, which the target requires`,
      );
    }
    copied.push({
      table: table.name,
      columns,
      identityColumns: into.columns
        .filter((column) => column.isAutoIncrementing)
        .map((column) => column.name),
    });
  }
  for (const table of targetTables) {
    if (!sourceNames.has(table.name) && !REBUILT_TABLE.test(table.name)) {
      problems.push(`table ${table.name} is in the target but not in the source`);
    }
  }
  if (problems.length > 0) {
    throw new DatabaseCopyError(
      `The databases' schemas differ, so nothing was copied: ${problems.join('; ')} (are both migrated by this agentry?)`,
    );
  }

  const references = [...(await source.dialect.foreignKeys()), ...(await target.dialect.foreignKeys())];
  return { tables: dependencyOrder(copied, references), rebuilt: rebuilt.sort() };
}

/**
 * Copies every row of `source` into `target` (both migrated by this registry: `openDatabase`), as the module
 * header says: one transaction on the target, tables in dependency order, rows in batches, identity sequences
 * moved on, then `rebuild` for what is not copied (`rebuilt`).
 */
export async function copyDatabase(
  source: CopyEndpoint,
  target: CopyEndpoint,
  options: CopyDatabaseOptions = {},
): Promise<DatabaseCopyResult> {
  const plan = await planDatabaseCopy(source, target);
  const counted: Array<{ table: string; rows: number }> = [];
  await target.dialect.exclusively(async (trx) => {
    const into = trx.withTables<AnyTables>();
    const nonEmpty: string[] = [];
    for (const { table } of plan.tables) {
      if ((await into.selectFrom(table).select(sql`1`.as('one')).limit(1).execute()).length > 0) {
        nonEmpty.push(table);
      }
    }
    if (nonEmpty.length > 0 && options.replace !== true) throw new TargetNotEmptyError(nonEmpty);
    const replacedAgents =
      nonEmpty.length === 0
        ? []
        : (await trx.selectFrom('agents').select('id').execute()).map((row) => row.id);
    // Dependents first, so that no foreign key points at a deleted row.
    for (const { table } of [...plan.tables].reverse()) await into.deleteFrom(table).execute();

    await source.dialect.exclusively(async (sourceDb) => {
      const from = sourceDb.withTables<AnyTables>();
      for (const table of plan.tables) {
        const total = await countRows(from, table.table);
        const rows = await copyTable(from, into, table, total, options);
        counted.push({ table: table.table, rows });
      }
    }, LOCK_WAIT_MS);

    for (const { table, identityColumns } of plan.tables) {
      for (const column of identityColumns) await target.dialect.continueIdentity(trx, table, column);
    }
    await options.rebuild?.(trx, replacedAgents);
  }, LOCK_WAIT_MS);
  return { tables: counted, rebuilt: plan.rebuilt };
}

async function copyTable(
  from: AnyDatabase,
  into: AnyDatabase,
  { table, columns }: TableCopyPlan,
  total: number,
  options: CopyDatabaseOptions,
): Promise<number> {
  const batchRows = Math.max(
    1,
    Math.min(
      Math.floor(options.batchRows ?? MAX_BATCH_ROWS),
      Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)),
    ),
  );
  let copied = 0;
  let batch: Array<Record<string, unknown>> = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    try {
      await into.insertInto(table).values(batch).execute();
    } catch (error) {
      throw new DatabaseCopyError(
        `Rows of ${table} could not be written to the target (nothing was copied): ${(error as Error).message}`,
        { cause: error },
      );
    }
    copied += batch.length;
    batch = [];
    options.onProgress?.({ table, copied, total, done: false });
  };
  for await (const row of from.selectFrom(table).select(columns).stream()) {
    batch.push(row);
    if (batch.length >= batchRows) await flush();
  }
  await flush();
  options.onProgress?.({ table, copied, total, done: true });
  return copied;
}

async function countRows(db: AnyDatabase, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('rows'))
    .executeTakeFirst();
  return Number(row?.rows ?? 0);
}

/** The database's tables (not its views), the migration runner's own left out. */
async function tablesOf(db: Kysely<Database>): Promise<TableMetadata[]> {
  const tables = await db.introspection.getTables();
  return tables.filter((table) => !table.isView && !MIGRATION_TABLE.test(table.name));
}

interface ForeignKey {
  readonly table: string;
  readonly references: string;
}

/** `tables` with each after the ones it references (by name among equals); a cycle keeps name order. */
function dependencyOrder(
  tables: readonly TableCopyPlan[],
  references: readonly ForeignKey[],
): TableCopyPlan[] {
  const byName = new Map(tables.map((table) => [table.table, table]));
  const ordered: TableCopyPlan[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const visit = (name: string): void => {
    if (placed.has(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const key of references) {
      if (key.table === name && key.references !== name && byName.has(key.references)) visit(key.references);
    }
    visiting.delete(name);
    placed.add(name);
    ordered.push(byName.get(name)!);
  };
  for (const name of [...byName.keys()].sort()) visit(name);
  return ordered;
}
