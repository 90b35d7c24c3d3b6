/**
 * Reading many wide rows cheaply: the database packs each row's columns into one JSON array, and the rows are
 * rebuilt from it here. A re-crawl reads every document row of the hosts it claims (80,000 rows of 16 columns for
 * 10,000 origins), and better-sqlite3 makes an object per row a property at a time, which cost a re-crawl more than
 * anything else it does that a first crawl does not. One packed column per row, parsed by `JSON.parse`, is about 3×
 * cheaper (see docs/crawler.md). Only column values JSON carries exactly may be packed: text, integers, null.
 */
import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/** The expression that packs `columns` of the row into one JSON array, in this database's dialect. */
export function packedColumns<Database>(
  db: Kysely<Database>,
  columns: readonly string[],
): RawBuilder<unknown> {
  const values = sql.join(columns.map((column) => sql.ref(column)));
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`json_build_array(${values})`
    : sql`json_array(${values})`;
}

/**
 * The row that `packedColumns` packed: SQLite answers the array as JSON text, PostgreSQL's driver parses `json`
 * values itself.
 */
export function unpackRow<Row>(columns: readonly (keyof Row & string)[], packed: unknown): Row {
  const values = typeof packed === 'string' ? (JSON.parse(packed) as unknown) : packed;
  if (!Array.isArray(values) || values.length !== columns.length) {
    throw new Error(
      `a packed row has ${Array.isArray(values) ? values.length : 'no'} values for ${columns.length} columns`,
    );
  }
  const row: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    row[column] = values[i];
  });
  return row as Row;
}
