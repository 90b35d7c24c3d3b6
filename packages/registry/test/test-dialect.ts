/**
 * Which database the suites that run on both dialects use in this test process: SQLite files (the default), or
 * fresh PostgreSQL databases on the local server. A suite's PostgreSQL run (`*-postgres.test.ts`) chooses
 * PostgreSQL and then imports the suite's files, which open their databases through `startRegistry`
 * (test/support.ts) and the search helpers (test/search/helpers.ts); each database is dropped when closed.
 */
import type { DialectName } from '../src/db/index.js';

let chosen: DialectName = 'sqlite';

/** Chooses the dialect for the rest of this process; called before the suite's files are imported. */
export function useTestDialect(dialect: DialectName): void {
  chosen = dialect;
}

export function testDialect(): DialectName {
  return chosen;
}
