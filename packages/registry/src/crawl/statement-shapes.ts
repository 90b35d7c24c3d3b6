/**
 * Multi-row statements built by Kysely once per shape (statement and row count), then run again with new
 * parameters only. Building an insert of a hundred rows walks every value through Kysely's operation tree, at a
 * cost close to SQLite's for running it; the SQL text of a shape never changes, and reusing the same text also lets a
 * driver that keeps prepared statements (the store's) prepare it once. Row counts are taken from a few sizes
 * (powers of two) so that a run needs a handful of shapes, not one per batch size.
 */

import { isDeepStrictEqual } from 'node:util';
import { type Compilable, CompiledQuery } from 'kysely';

/** The sizes rows are sent in: `rows` is cut into chunks of these, largest first. */
export function* shapedChunks<T>(rows: readonly T[], largest: number): Generator<T[]> {
  let at = 0;
  for (let size = largest; size >= 1; size = Math.floor(size / 2)) {
    while (rows.length - at >= size) {
      yield rows.slice(at, at + size);
      at += size;
    }
  }
}

/** What runs a compiled query: a Kysely instance or transaction. */
export interface QueryRunner {
  executeQuery(query: CompiledQuery): Promise<unknown>;
}

export class StatementShapes {
  /** SQL text by shape; `null` for a shape whose parameters did not come out as expected (built every time). */
  readonly #sql = new Map<string, string | null>();

  /** Shapes built anew at every run because their parameters were not the rows' values (for tests). */
  get unshaped(): string[] {
    return [...this.#sql].flatMap(([shape, sql]) => (sql === null ? [shape] : []));
  }

  /**
   * Runs the statement `build` makes, whose parameters are `parameters` in order. The first run of a shape checks
   * that Kysely binds exactly those parameters, in that order; a shape that does not is never reused.
   */
  async run(
    db: QueryRunner,
    shape: string,
    parameters: readonly unknown[],
    build: () => Compilable,
  ): Promise<void> {
    const known = this.#sql.get(shape);
    if (known !== undefined && known !== null) {
      await db.executeQuery(CompiledQuery.raw(known, [...parameters]));
      return;
    }
    const compiled = build().compile();
    if (known === undefined)
      this.#sql.set(shape, isDeepStrictEqual(compiled.parameters, parameters) ? compiled.sql : null);
    await db.executeQuery(compiled);
  }
}
