/**
 * Writes whose results nobody reads, sent in as few statements as the database allows. On PostgreSQL every
 * statement is a round trip to the server, and a transaction holds its locks (and its connection) across each; a
 * registration's inserts into a dozen tables went one after another. There they go as one statement, each write a
 * data-modifying `WITH` clause of the last: PostgreSQL runs every one of them to completion, all against one
 * snapshot, so the writes of one batch must touch different rows and none may need to see another's (inserts into
 * different tables, a delete of rows none of them inserts). On SQLite, in process, they run one after another.
 */
import { type Compilable, type Kysely, PostgresAdapter, sql } from 'kysely';

/** Bound values a statement at most: PostgreSQL takes 65,535. */
const MAX_PARAMETERS = 30_000;

export interface BatchedWrite extends Compilable {
  execute(): Promise<unknown>;
}

export async function executeWrites<DB>(db: Kysely<DB>, writes: readonly BatchedWrite[]): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    for (const write of writes) await write.execute();
    return;
  }
  let group: BatchedWrite[] = [];
  let parameters = 0;
  for (const write of writes) {
    const count = write.compile().parameters.length;
    if (group.length > 0 && parameters + count > MAX_PARAMETERS) {
      await executeTogether(db, group);
      group = [];
      parameters = 0;
    }
    group.push(write);
    parameters += count;
  }
  if (group.length > 0) await executeTogether(db, group);
}

/** One statement: `with w0 as (…), w1 as (…) <last>`, the parameters of each numbered anew. */
async function executeTogether<DB>(db: Kysely<DB>, writes: readonly BatchedWrite[]): Promise<void> {
  if (writes.length === 1) {
    await writes[0]!.execute();
    return;
  }
  // The pieces of a tagged template: text between bound values, which Kysely numbers in order.
  const fragments: string[] = [''];
  const values: unknown[] = [];
  const append = (text: string) => {
    fragments[fragments.length - 1] += text;
  };
  writes.forEach((write, index) => {
    const last = index === writes.length - 1;
    append(last ? ' ' : `${index === 0 ? 'with' : ','} w${index} as (`);
    const compiled = write.compile();
    // Kysely binds every value, so `$n` in a compiled statement is always a placeholder.
    const pieces = compiled.sql.split(/\$(\d+)/);
    pieces.forEach((piece, at) => {
      if (at % 2 === 0) append(piece);
      else {
        values.push(compiled.parameters[Number(piece) - 1]);
        fragments.push('');
      }
    });
    if (!last) append(')');
  });
  const template = Object.assign([...fragments], { raw: [...fragments] }) as unknown as TemplateStringsArray;
  await sql(template, ...values).execute(db);
}
