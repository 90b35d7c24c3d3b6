/**
 * Keeps a registry a mirror of others while it runs (`agentry serve --import <url>`): each source is imported at
 * start and then every interval, incrementally (`importRegistry`: only what changed since the last completed
 * import). A source that fails is logged and tried again sooner, backing off while it stays down; the others go on.
 * Replicas sharing a PostgreSQL database take turns per source (`runAlone`): one imports it while the others'
 * turns are skipped, and the next import of it, by any replica, asks only for what changed since.
 */
import type { Logger } from 'pino';
import { type Recurring, recurring, retryDelay } from '../background/recurring.js';
import type { DatabaseDialect, RanAlone } from '../db/dialect.js';
import type { RegistryImport, RegistryImportResult } from './sync.js';

export interface BackgroundImportOptions {
  /** The registries to mirror: base URLs, each imported as `agentry import` would. */
  sources: readonly string[];
  /** Between imports of a source (default 1 hour). */
  intervalMs?: number;
  /** The first wait after a failure (default 1 minute), doubled after each further one, up to the interval. */
  retryMs?: number;
}

/** The key replicas importing `baseUrl` in the background take turns under. */
export function backgroundImportKey(baseUrl: string): string {
  return `background-import:${baseUrl}`;
}

type ImportOne = (options: Omit<RegistryImport, 'fetcher'>) => Promise<RegistryImportResult>;

/**
 * @param runAlone Runs an import unless another process on the database is importing the same source (the
 *   database dialect's `runAlone`, which `createRegistry` passes); without it every import runs.
 */
export function importInBackground(
  importOne: ImportOne,
  logger: Logger,
  options: BackgroundImportOptions,
  runAlone: DatabaseDialect['runAlone'] = runAnyway,
): { close(): Promise<void> } {
  const intervalMs = Math.max(1, options.intervalMs ?? 3_600_000);
  const retryMs = Math.max(1, Math.min(options.retryMs ?? 60_000, intervalMs));
  const stop = new AbortController();
  const mirrors: Recurring[] = [...new Set(options.sources)].map((baseUrl) => {
    let failures = 0;
    return recurring(async () => {
      try {
        const turn = await runAlone(backgroundImportKey(baseUrl), () =>
          importOne({ baseUrl, signal: stop.signal }),
        );
        // Another replica is importing this source: the next import here asks only for what it did not bring.
        if (!turn.ran) return intervalMs;
        const result = turn.value;
        failures = 0;
        logger.info(
          {
            source: baseUrl,
            kind: result.kind,
            since: result.updatedSince ?? null,
            imported: result.imported,
            deleted: result.tombstoned,
            unreadable: result.problems.length,
          },
          'imported a registry',
        );
        return intervalMs;
      } catch (error) {
        if (stop.signal.aborted) return intervalMs;
        failures++;
        const wait = retryDelay(retryMs, failures, intervalMs);
        logger.warn({ err: error, source: baseUrl, retryInMs: wait }, 'importing a registry failed');
        return wait;
      }
    });
  });
  return {
    async close() {
      stop.abort();
      await Promise.all(mirrors.map((mirror) => mirror.close()));
    },
  };
}

/** Every import runs: one process on its database. */
async function runAnyway<T>(_key: string, work: () => Promise<T>): Promise<RanAlone<T>> {
  return { ran: true, value: await work() };
}
