/**
 * The PostgreSQL dialect: the only module that knows the registry's database may be PostgreSQL. It opens a `pg`
 * pool behind Kysely's PostgresDialect and implements `DatabaseDialect` for it — identity columns, the change
 * counter, the health check and the write lock migrations run under — and turns a server that cannot be reached,
 * a database that does not exist or a refused login into one clear line (`DatabaseUnavailableError`).
 *
 * The change counter: a write through this process bumps it at once (a Kysely plugin sees every statement that is
 * not a read); a write by any other connection — another replica, `agentry crawl` beside `agentry serve`, psql —
 * reaches it through LISTEN/NOTIFY: every registry table carries a statement-level trigger that notifies the
 * `agentry_changes` channel, delivered when the writing transaction commits, and one connection of this process
 * listens on it. When that connection is lost, the counter changes on every read until it is back, so that no
 * cache answers from what may be stale. Writes to the crawl queue's tables leave it as it is (`isCrawlBookkeeping`).
 * Statements run often outside transactions are prepared once per connection (postgres-prepared.ts).
 */
import { AgentryError, type AgentryErrorCode } from '@agentry/core';
import {
  type ColumnDefinitionBuilder,
  Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  type RootOperationNode,
  sql,
  TableNode,
  type UnknownRow,
} from 'kysely';
import type pg from 'pg';
import type { Database } from './database.js';
import type { DatabaseDialect, RanAlone } from './dialect.js';
import { preparingPool } from './postgres-prepared.js';

/** The channel every registry table's trigger notifies on a write. */
export const CHANGE_CHANNEL = 'agentry_changes';
/** The advisory lock `exclusively` holds (migrations run under it): one number for every registry process. */
const WRITE_LOCK_KEY = 'agentry.write-lock';
/** The lock `lockKey` takes for a key lives in its own namespace (pg_advisory_xact_lock(int, int)). */
const KEY_LOCK_SPACE = 0x61677279;
/** So do the session locks `runAlone` holds while background work runs. */
const WORK_LOCK_SPACE = 0x61677277;
/** How long the listening connection waits before it reconnects after losing the server. */
const RELISTEN_MS = 1000;

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). */
  url: string;
  /** Connections in the pool (default 10). */
  maxConnections?: number;
  /** How long a statement waits for a lock held by another connection (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Prepare the statements run often, once per connection (postgres-prepared.ts). Default: on, unless the
   * environment says `AGENTRY_POSTGRES_PREPARED=off` — for a pooler that hands one client's statements to several
   * server connections (PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
}

/** The database cannot be reached, does not exist, or refuses the login: one line saying which, and what fixes it. */
export class DatabaseUnavailableError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
}

export interface OpenedPostgres {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /** After migrating: gives every table the change trigger (idempotent). */
  followChanges(): Promise<void>;
  close(): Promise<void>;
}

/** Where a URL points, for messages (never the password). */
function describeTarget(url: URL): { where: string; database: string; user: string } {
  const host = url.hostname === '' ? 'localhost' : url.hostname;
  const port = url.port === '' ? '5432' : url.port;
  return {
    where: `${host}:${port}`,
    database:
      decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres',
    user: decodeURIComponent(url.username) || process.env.PGUSER || process.env.USER || 'postgres',
  };
}

/** Reads a PostgreSQL URL, or throws the one line that says it is not one. */
export function parsePostgresUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUnavailableError(
      `The database URL ${redact(url)} is not a valid URL (--database postgres://user@host:5432/name)`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new DatabaseUnavailableError(`The database URL ${redact(url)} is not a postgres:// URL`);
  }
  return parsed;
}

function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** The one line for a failure to connect, by what the server (or the network) said. */
export function connectionFailure(url: URL, error: unknown): DatabaseUnavailableError {
  const { where, database, user } = describeTarget(url);
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const fix = 'fix --database (or DATABASE_URL)';
  let line: string;
  if (code === '3D000') {
    line = `PostgreSQL database "${database}" does not exist on ${where}: create it (createdb -h ${url.hostname || 'localhost'} ${database}) or ${fix}`;
  } else if (code === '28000' || code === '28P01') {
    line = `PostgreSQL on ${where} refused the login of user "${user}" (${message}): ${fix}`;
  } else if (code === 'ECONNREFUSED') {
    line = `No PostgreSQL server is listening on ${where}: start it, or ${fix}`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    line = `The PostgreSQL host in ${redact(url.href)} cannot be found: ${fix}`;
  } else {
    line = `Cannot connect to PostgreSQL on ${where} (${message}): ${fix}`;
  }
  return new DatabaseUnavailableError(line, { cause: error });
}

type PgModule = typeof pg;
let pgModule: Promise<PgModule> | undefined;
/** pg loads when a PostgreSQL database is opened, not with the registry: SQLite registries never need it. */
function loadPg(): Promise<PgModule> {
  pgModule ??= import('pg').then((module) => module.default);
  return pgModule;
}

/** bigint counts (`count(*)`) and sums come back as numbers, as they do from SQLite; they stay below 2^53. */
function numericTypes(driver: PgModule) {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === driver.types.builtins.INT8 || oid === driver.types.builtins.NUMERIC)
        return (value: string) => Number(value);
      return driver.types.getTypeParser(oid, format);
    },
  };
}

/**
 * Opens a pool on `url` and checks it can connect (throwing `DatabaseUnavailableError` when not). Nothing is
 * created: the database must exist.
 */
export async function openPostgres(options: PostgresOptions): Promise<OpenedPostgres> {
  const url = parsePostgresUrl(options.url);
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  const driver = await loadPg();
  const pool = new driver.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    types: numericTypes(driver),
    // A statement waiting for a row or table lock gives up as SQLite's busy timeout does.
    options: `-c lock_timeout=${busyTimeoutMs}`,
  });
  // An idle connection the server drops is replaced by the next checkout; the error is not the process's end.
  pool.on('error', () => {});
  // Nor is the error of a connection checked out of the pool (pg takes the pool's handler off it for as long as it
  // is out): a transaction between two statements, or runAlone's lock holder, whose server process is terminated
  // or whose server restarts. Without a handler of its own, pg's 'error' event would end the process; with one,
  // the statement it runs next fails (the transaction rolls back as any failed one does), and the pool discards the
  // connection when it comes back, since it is no longer queryable.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw connectionFailure(url, error);
  }

  const changes = new ChangeFollower(options.url, driver);
  const db = new Kysely<Database>({
    // The statements run most are prepared once per connection (postgres-prepared.ts).
    dialect: new PostgresDialect({
      pool:
        (options.preparedStatements ?? process.env['AGENTRY_POSTGRES_PREPARED'] !== 'off')
          ? preparingPool(pool)
          : pool,
    }),
    plugins: [new WriteCounter(() => changes.bump())],
  });
  const dialect = postgresDialect(db, pool, () => changes.count());
  return {
    db,
    dialect,
    async followChanges() {
      await dialect.exclusively((trx) => installChangeTriggers(trx), busyTimeoutMs);
      await changes.start();
    },
    async close() {
      await changes.stop();
      await db.destroy();
    },
  };
}

function postgresDialect(db: Kysely<Database>, pool: pg.Pool, changeCount: () => number): DatabaseDialect {
  return {
    name: 'postgres',
    changeCount,
    identity: (column: ColumnDefinitionBuilder) => column.primaryKey().generatedByDefaultAsIdentity(),
    blobType: 'bytea',
    async integrityCheck(): Promise<string[]> {
      // PostgreSQL keeps its own pages consistent (and checksums them when asked to); what a registry can find
      // wrong is an index left invalid by a failed build, and a server it cannot reach.
      const invalid = await sql<{ name: string }>`select indexrelid::regclass::text as name from pg_index
        where not indisvalid`.execute(db);
      return invalid.rows.length === 0 ? ['ok'] : invalid.rows.map((row) => `invalid index ${row.name}`);
    },
    async exclusively<T>(work: (trx: Kysely<Database>) => Promise<T>, waitMs: number): Promise<T> {
      return db.transaction().execute(async (trx) => {
        await sql`select set_config('lock_timeout', ${String(Math.max(1, Math.floor(waitMs)))}, true)`.execute(
          trx,
        );
        await sql`select pg_advisory_xact_lock(hashtext(${WRITE_LOCK_KEY}))`.execute(trx);
        return work(trx);
      });
    },
    async lockKey(trx: Kysely<Database>, key: string): Promise<void> {
      await sql`select pg_advisory_xact_lock(${KEY_LOCK_SPACE}, hashtext(${key}))`.execute(trx);
    },
    async foreignKeys() {
      const declared = await sql<{
        table: string;
        references: string;
      }>`select c.conrelid::regclass::text as "table",
          c.confrelid::regclass::text as "references"
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where c.contype = 'f' and n.nspname = current_schema()`.execute(db);
      return declared.rows;
    },
    async continueIdentity(trx: Kysely<Database>, table: string, column: string): Promise<void> {
      await sql`select setval(pg_get_serial_sequence(${table}, ${column}),
        (select coalesce(max(${sql.ref(column)}), 0) + 1 from ${sql.table(table)}), false)`.execute(trx);
    },
    async runAlone<T>(key: string, work: () => Promise<T>): Promise<RanAlone<T>> {
      // One connection holds the lock for the whole run (a session lock belongs to the connection that took it);
      // the work's own statements go through the pool's other connections. It is idle meanwhile, so its errors
      // (the server restarted, the connection was cut) are caught here rather than left to crash the process:
      // the lock went with the connection, which is then thrown away rather than pooled again.
      const client = await pool.connect();
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
      };
      client.on('error', onError);
      try {
        const taken = await client.query<{ locked: boolean }>(
          'select pg_try_advisory_lock($1, hashtext($2)) as locked',
          [WORK_LOCK_SPACE, key],
        );
        if (taken.rows[0]?.locked !== true) return { ran: false };
        try {
          return { ran: true, value: await work() };
        } finally {
          if (lost === undefined) {
            await client
              .query('select pg_advisory_unlock($1, hashtext($2))', [WORK_LOCK_SPACE, key])
              .catch((error: Error) => {
                lost = error;
              });
          }
        }
      } finally {
        client.removeListener('error', onError);
        client.release(lost);
      }
    },
  };
}

/** Gives every table of the current schema the trigger that notifies `CHANGE_CHANNEL` (skips those that have it). */
async function installChangeTriggers(db: Kysely<Database>): Promise<void> {
  // The payload names the table written, so that followers can pass over the crawl queue's bookkeeping.
  await sql`create or replace function agentry_notify_change() returns trigger language plpgsql as $$
    begin perform pg_notify(${sql.lit(CHANGE_CHANNEL)}, TG_TABLE_NAME); return null; end $$`.execute(db);
  const missing = await sql<{ name: string }>`select c.relname as name from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')
      and c.relname not like 'kysely_migration%'
      and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'agentry_notify_change')`.execute(
    db,
  );
  for (const { name } of missing.rows) {
    await sql`create trigger agentry_notify_change after insert or update or delete or truncate on ${sql.id(name)}
      for each statement execute function agentry_notify_change()`.execute(db);
  }
}

/** Bumps the change counter after every statement that may write (anything but a select). */
class WriteCounter implements KyselyPlugin {
  readonly #bump: () => void;
  readonly #writes = new WeakSet<object>();

  constructor(bump: () => void) {
    this.#bump = bump;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (mayWrite(args.node)) this.#writes.add(args.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.#writes.has(args.queryId)) this.#bump();
    return args.result;
  }
}

/**
 * The crawl queue's tables (claims, their renewals, due times, fetched documents): no answer, cache or index reads
 * them (what a crawl finds reaches readers through the agents it writes, which move the counter), and a replica
 * crawling writes them several times a minute (a renewal every third of the lease, a claim and a completion per
 * host): were they to move the counter, every replica's answer caches would be emptied as often.
 */
export function isCrawlBookkeeping(table: string | undefined): boolean {
  return table?.startsWith('crawl_') === true;
}

/** The one table an insert, update or delete writes, when it says so plainly (no WITH clause, no join). */
function writtenTable(node: RootOperationNode): string | undefined {
  if (node.kind === 'InsertQueryNode' && node.with === undefined) return node.into?.table.identifier.name;
  if (node.kind === 'UpdateQueryNode' && node.with === undefined && node.from === undefined) {
    return node.table !== undefined && TableNode.is(node.table)
      ? node.table.table.identifier.name
      : undefined;
  }
  if (node.kind === 'DeleteQueryNode' && node.with === undefined && node.using === undefined) {
    const [only, ...more] = node.from.froms;
    return more.length === 0 && only !== undefined && TableNode.is(only)
      ? only.table.identifier.name
      : undefined;
  }
  return undefined;
}

function mayWrite(node: RootOperationNode): boolean {
  if (isCrawlBookkeeping(writtenTable(node))) return false;
  if (node.kind === 'SelectQueryNode') return false;
  if (node.kind === 'RawNode') {
    const head = node.sqlFragments[0]?.trimStart().slice(0, 6).toLowerCase();
    return head !== 'select';
  }
  return true;
}

/** The counter: own writes bump it; a listening connection bumps it for every other connection's commits. */
class ChangeFollower {
  readonly #url: string;
  #count = 0;
  #listening = false;
  #stopped = false;
  #client: pg.Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #driver: PgModule;

  constructor(url: string, driver: PgModule) {
    this.#url = url;
    this.#driver = driver;
  }

  bump(): void {
    this.#count++;
  }

  count(): number {
    // Not following other connections: every read may be stale.
    if (!this.#listening) this.#count++;
    return this.#count;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    const client = new this.#driver.Client({ connectionString: this.#url });
    client.on('notification', (message) => {
      if (!isCrawlBookkeeping(message.payload)) this.bump();
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch {
      this.#lost(client);
      return;
    }
    if (this.#stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#listening = true;
    // Commits between the last change seen and now arrived unseen.
    this.bump();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== undefined && this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    client.end().catch(() => {});
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped) void this.start();
    }, RELISTEN_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#listening = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
