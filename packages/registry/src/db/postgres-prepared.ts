/**
 * Named prepared statements for the statements a PostgreSQL registry runs again and again. Sent unnamed (Kysely's
 * way), every statement is parsed and planned anew by the server: for `GET /agents/{id}`'s one statement
 * (store/visible-agent.ts) that was 280 µs of the server's CPU against 70 µs prepared once per connection and
 * bound since, and the client's time fell from 210 to 120 µs (measured on one connection, 200,000 agents). So a
 * pool handed to Kysely through `preparingPool` names a statement once its text has been run a few times
 * (`NAME_AFTER`), and each connection prepares it the first time it runs it there.
 *
 * What could go wrong, and what is done about it:
 * - A migration that changes a table (another replica's, during a rolling upgrade) can change the columns a
 *   prepared `select *` returns: PostgreSQL then refuses to run it ("cached plan must not change result type",
 *   0A000). A statement prepared on a connection and missing from it (26000) is refused too. Either way the
 *   statement is run again unnamed at once, and its text gets a new name, which each connection prepares afresh.
 *   That retry is safe outside a transaction only (inside one the refusal aborts the transaction), so statements
 *   inside transactions are never named: the hot reads run outside them.
 * - Texts that vary (an `IN` list of every length) are run too rarely each to be named, and a connection holds
 *   `MAX_NAMED_PER_CONNECTION` at most, so the server's memory for plans stays bounded.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/** Runs of one text, outside transactions, before it is named. */
const NAME_AFTER = 3;
/** Texts whose runs are counted; the first counted is forgotten when more come. */
const MAX_COUNTED_TEXTS = 2000;
/** Statements one connection prepares at most; past them it runs the rest unnamed. */
const MAX_NAMED_PER_CONNECTION = 200;
/** The server's refusals of a named statement that running it unnamed answers. */
const STALE_STATEMENT = new Set(['0A000', '26000']);

/** The process's names for the texts it runs: a text's name changes when a connection finds it stale. */
class StatementNames {
  readonly #texts = new Map<string, { runs: number; name?: string }>();
  #next = 0;

  /** Counts a run of `text`, and gives its name once it has run `NAME_AFTER` times. */
  nameFor(text: string): string | undefined {
    let seen = this.#texts.get(text);
    if (seen === undefined) {
      if (this.#texts.size >= MAX_COUNTED_TEXTS) {
        const first = this.#texts.keys().next().value;
        if (first !== undefined) this.#texts.delete(first);
      }
      seen = { runs: 0 };
      this.#texts.set(text, seen);
    }
    if (seen.name !== undefined) return seen.name;
    seen.runs++;
    // A number never given before: a connection may still hold an older text under a name given earlier.
    if (seen.runs >= NAME_AFTER) seen.name = `agentry_${this.#next++}`;
    return seen.name;
  }

  /** The text's name was found stale: the next run names it anew. */
  renew(text: string): void {
    const seen = this.#texts.get(text);
    if (seen !== undefined) seen.name = `agentry_${this.#next++}`;
  }
}

/** Whether a statement starts or ends a transaction on its connection. */
function transactionEffect(text: string): 'begin' | 'end' | undefined {
  const head = text.trimStart().slice(0, 20).toLowerCase();
  if (head.startsWith('begin') || head.startsWith('start transaction')) return 'begin';
  if (head.startsWith('rollback to')) return undefined;
  if (
    head.startsWith('commit') ||
    head.startsWith('rollback') ||
    head.startsWith('end') ||
    head.startsWith('abort')
  )
    return 'end';
  return undefined;
}

/** The client Kysely is handed for one pooled connection: the same one every time that connection is checked out. */
class PreparingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient;
  readonly #names: StatementNames;
  readonly #named = new Set<string>();
  #inTransaction = false;

  constructor(client: pg.PoolClient, names: StatementNames) {
    this.#client = client;
    this.#names = names;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    const client = this.#client as unknown as {
      query(statement: unknown, values?: unknown[]): Promise<PostgresQueryResult<R>> | PostgresCursor<R>;
    };
    if (typeof statement !== 'string') return client.query(statement) as PostgresCursor<R>;
    const values = [...(parameters ?? [])];
    const effect = transactionEffect(statement);
    if (effect !== undefined) this.#inTransaction = effect === 'begin';
    const name = this.#inTransaction || effect !== undefined ? undefined : this.#names.nameFor(statement);
    if (name === undefined || (!this.#named.has(name) && this.#named.size >= MAX_NAMED_PER_CONNECTION)) {
      return client.query(statement, values) as Promise<PostgresQueryResult<R>>;
    }
    this.#named.add(name);
    return (client.query({ name, text: statement, values }) as Promise<PostgresQueryResult<R>>).catch(
      (error: unknown) => {
        if (!STALE_STATEMENT.has(String((error as { code?: unknown }).code))) throw error;
        this.#names.renew(statement);
        return client.query(statement, values) as Promise<PostgresQueryResult<R>>;
      },
    );
  }

  release(): void {
    // Kysely ends its transactions before it hands a connection back (a `begin` that failed started none).
    this.#inTransaction = false;
    this.#client.release();
  }
}

/** `pool` as Kysely's `PostgresDialect` takes it, naming the statements its connections run often. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const names = new StatementNames();
  const clients = new WeakMap<pg.PoolClient, PreparingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let preparing = clients.get(client);
      if (preparing === undefined) {
        preparing = new PreparingClient(client, names);
        clients.set(client, preparing);
      }
      return preparing;
    },
    end: () => pool.end(),
  };
}
