/**
 * Keeps every agent embedded while the registry runs. Agents wait for a vector when their embedding failed (the
 * provider was down), after a change of model (`--embeddings openai` on a file made with `use-lite`), or when
 * another process indexed them without a provider (`agentry crawl --embeddings none`); until then search ranks
 * them lexically only. This embeds them in the background: at start, a while after a failure (backing off while
 * the provider stays down), and on a regular look for new ones. A batch at a time, so registrations interleave.
 * Replicas sharing a PostgreSQL database take turns (`runAlone`): one embeds while the others' looks are skipped,
 * so each agent is embedded once, not once per replica.
 */
import type { Logger } from 'pino';
import { recurring, retryDelay } from '../background/recurring.js';
import type { DatabaseDialect, RanAlone } from '../db/dialect.js';
import type { SearchIndex } from './types.js';

export interface BackgroundEmbeddingOptions {
  /** How often to look for agents waiting for a vector (default 60 s). */
  intervalMs?: number;
  /** The first wait after a failure (default 30 s); doubled after each further one, up to `intervalMs` × 10. */
  retryMs?: number;
  /** Texts per provider call (default 64). */
  batchSize?: number;
}

/** The key replicas embedding in the background take turns under. */
export const BACKGROUND_EMBEDDING_KEY = 'background-embedding';

export interface BackgroundEmbedding {
  /** An embedding just failed: try again after the retry wait, unless a try is already due sooner. */
  failed(): void;
  /** Stops; resolves once the batch under way, if any, is written. */
  close(): Promise<void>;
}

const PROGRESS_EVERY_MS = 10_000;

/**
 * @param runAlone Runs a look unless another process on the database is running one (the database dialect's
 *   `runAlone`, which `createRegistry` passes); without it every look runs.
 */
export function embedInBackground(
  search: SearchIndex,
  logger: Logger,
  options: BackgroundEmbeddingOptions = {},
  runAlone: DatabaseDialect['runAlone'] = runAnyway,
): BackgroundEmbedding {
  const intervalMs = Math.max(1, options.intervalMs ?? 60_000);
  const retryMs = Math.max(1, options.retryMs ?? 30_000);
  const batchSize = Math.max(1, options.batchSize ?? 64);
  let failures = 0;

  async function run(isClosed: () => boolean): Promise<number> {
    const turn = await runAlone(BACKGROUND_EMBEDDING_KEY, () => embedPending(isClosed)).catch(
      (error: unknown) => ({ ran: true as const, value: failed(error, 0) }),
    );
    // Another replica is embedding: its vectors reach this one as its writes do; look again at the next interval.
    return turn.ran ? turn.value : intervalMs;
  }

  function failed(error: unknown, embedded: number): number {
    failures++;
    const wait = retryDelay(retryMs, failures, intervalMs * 10);
    logger.warn(
      { err: error, embedded, retryInMs: wait },
      'embedding agents that have no vector failed; they are searched lexically until it succeeds',
    );
    return wait;
  }

  async function embedPending(isClosed: () => boolean): Promise<number> {
    const started = Date.now();
    let lastReport = started;
    let embedded = 0;
    try {
      for (;;) {
        if (isClosed()) return intervalMs;
        const done = await search.embedPending({ batchSize, limit: batchSize });
        if (done === 0) break;
        embedded += done;
        if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
          lastReport = Date.now();
          logger.info({ embedded }, 'embedding agents that had no vector');
        }
      }
      failures = 0;
      if (embedded > 0) {
        logger.info({ embedded, ms: Date.now() - started }, 'embedded agents that had no vector');
      }
      return intervalMs;
    } catch (error) {
      return failed(error, embedded);
    }
  }

  const runs = recurring(run);
  return {
    failed() {
      runs.runWithin(retryMs);
    },
    close: () => runs.close(),
  };
}

/** Every look runs: one process on its database. */
async function runAnyway<T>(_key: string, work: () => Promise<T>): Promise<RanAlone<T>> {
  return { ran: true, value: await work() };
}
