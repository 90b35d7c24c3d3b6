/**
 * `agentry migrate`: moves a registry from its SQLite file into PostgreSQL (`moveRegistryDatabase`), for a
 * registry that outgrows one machine and is to run as several replicas on one database. Every row is copied —
 * agents, history, tombstones, tokens, audit, feedback, identity, the crawl queue and its documents, federation
 * state, vectors — in one transaction, and the lexical search index is rebuilt in it; the target is refused when
 * it already holds rows, unless `--replace`. Progress goes to stderr (a line a table and a step; in a log, how far
 * the copy has got every ten seconds too); the summary to stdout.
 */
import {
  type CopyProgress,
  DatabaseCopyError,
  type MoveRegistryOptions,
  type MoveRegistryResult,
  moveRegistryDatabase,
  TargetNotEmptyError,
} from '@agentry/registry';
import type { Command } from 'commander';
import { databaseFlag, printableDatabase } from '../io/database-hint.js';
import { EXIT, UsageError } from '../io/errors.js';
import { progressLine } from '../io/progress.js';
import { databaseUsageError } from '../io/registry-options.js';
import { plural } from '../io/report.js';

interface MigrateCommandOptions {
  from?: string;
  database?: string;
  replace?: boolean;
  json?: boolean;
}

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description(
      "move a registry's SQLite database into PostgreSQL, every row of it (agents, history, tokens, audit, crawl state…)",
    )
    .option('--from <file>', 'the SQLite registry database to move (default: AGENTRY_DB, else ./agentry.db)')
    .option(
      '--database <url>',
      'the PostgreSQL database it moves into, which must exist: postgres://user@host:5432/name (default: DATABASE_URL)',
    )
    .option(
      '--replace',
      'delete what the target database holds and copy over it (default: refuse a non-empty one)',
    )
    .option('--json', 'print the rows copied per table as JSON')
    .addHelpText(
      'after',
      "\nThe copy is one transaction: a move that fails leaves the target as it was. Stop the registry on the file\nfirst (a registry still writing to it waits for the copy, then times out). The source file is not changed\n(but brought to this agentry's schema, as agentry serve would). Then start the registry on the target:\nagentry serve --database <url>.\n\nExit status: 0 moved, 2 not moved (no such file, a database that cannot be opened, a target that is not\nempty, a row the target refused); nothing is written then.\n\nExamples:\n  agentry migrate --from registry.db --database postgres://postgres@127.0.0.1:5432/agentry\n  agentry migrate --from registry.db --database postgres://postgres@127.0.0.1:5432/agentry --replace --json",
    )
    .action(async (options: MigrateCommandOptions) => {
      const from = options.from ?? nonEmpty(process.env['AGENTRY_DB']) ?? 'agentry.db';
      const database = options.database ?? nonEmpty(process.env['DATABASE_URL']);
      if (database === undefined) {
        throw new UsageError(
          'pass --database postgres://user@host:5432/name (or set DATABASE_URL): the database the registry moves into',
        );
      }
      if (!/^postgres(ql)?:\/\//i.test(database)) {
        // DATABASE_URL may name the SQLite file serve uses; then it is what to fix, not a flag never passed.
        const source = options.database === undefined ? 'DATABASE_URL' : '--database';
        throw new UsageError(
          `${source} must be a postgres:// URL (the database the registry moves into), not ${printableDatabase(database)}`,
        );
      }
      const started = performance.now();
      const progress = progressReporter();
      let result: MoveRegistryResult;
      try {
        result = await moveRegistryDatabase({
          from,
          to: database,
          ...(options.replace === true ? { replace: true } : {}),
          onProgress: (step) => progress.update(step),
          onIndexed: (agents) => progress.indexed(agents),
          onStep: (step) => progress.step(step),
        });
      } catch (error) {
        progress.end();
        throw usageError(error, from);
      }
      progress.end();
      const seconds = Math.round(performance.now() - started) / 1000;
      const rows = result.tables.reduce((sum, table) => sum + table.rows, 0);
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify(
            {
              from,
              database: printableDatabase(database),
              seconds,
              rows,
              tables: Object.fromEntries(result.tables.map((table) => [table.table, table.rows])),
              indexed: result.indexed,
              rebuilt: result.rebuilt,
            },
            null,
            2,
          )}\n`,
        );
      } else {
        const agents = result.tables.find((table) => table.table === 'agents')?.rows ?? 0;
        process.stdout.write(
          `agentry: moved ${from} into ${printableDatabase(database)} in ${seconds} s: ${plural(agents, 'agent')}, ${plural(rows, 'row')} in ${plural(result.tables.length, 'table')}; search index rebuilt for ${plural(result.indexed, 'agent')}\n` +
            `  next: agentry serve ${databaseFlag(database)}\n`,
        );
      }
      process.exitCode = EXIT.ok;
    });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** What stops a move, as one line naming the flag that fixes it; anything else is rethrown as it is. */
function usageError(error: unknown, from: string): unknown {
  if (error instanceof TargetNotEmptyError) {
    return new UsageError(
      `the database --database names already holds rows (${error.tables.join(', ')}): pass --replace to delete them and copy over them, or name an empty database`,
    );
  }
  if (error instanceof DatabaseCopyError) {
    const message = error.message.replace(/\.$/, '');
    if (message.includes(from)) return new UsageError(`${message} (--from)`);
    return new UsageError(message);
  }
  return databaseUsageError(error);
}

/** How often a log (not a terminal) is told how far the table or the search index has got. */
const LOG_EVERY_MS = 10_000;

/**
 * A table's line when it is done, and the search index's when it is rebuilt; on a terminal, rows and agents counted
 * in place meanwhile; in a log, how far they have got every ten seconds (a million agents take many minutes), and
 * a line as each silent last step begins.
 */
function progressReporter(): {
  update(step: CopyProgress): void;
  indexed(agents: number): void;
  step(step: Parameters<NonNullable<MoveRegistryOptions['onStep']>>[0]): void;
  end(): void;
} {
  const progress = progressLine();
  const done = (line: string): void => {
    if (progress.tty) {
      progress.draw(line, true);
      progress.end();
    } else progress.log(line);
  };
  let lastLogged = performance.now();
  const show = (line: string): void => {
    if (progress.tty) progress.draw(line);
    else if (performance.now() - lastLogged >= LOG_EVERY_MS) {
      lastLogged = performance.now();
      progress.log(`agentry: ${line}`);
    }
  };
  let agents = 0;
  let indexing = false;
  return {
    update({ table, copied, total, done: tableDone }) {
      if (!tableDone) {
        show(`copying ${table}: ${copied} of ${total} rows`);
        return;
      }
      if (table === 'agents') agents = copied;
      done(`agentry: ${table}: ${plural(copied, 'row')}`);
    },
    indexed(count) {
      if (!indexing && !progress.tty) {
        progress.log(`agentry: rebuilding the search index of ${plural(agents, 'agent')}`);
        lastLogged = performance.now();
      }
      indexing = true;
      show(`rebuilding the search index: ${count} of ${agents} agents`);
    },
    step(step) {
      if (step === 'index-finish') {
        done(
          `agentry: search index: ${plural(agents, 'agent')} written; counting its words and sorting its postings`,
        );
      } else {
        done(`agentry: search index rebuilt; analyzing the tables for PostgreSQL's planner`);
      }
    },
    end: () => progress.end(),
  };
}
