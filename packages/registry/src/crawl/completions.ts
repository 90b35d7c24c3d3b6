/**
 * Group commit of finished crawls: the crawls that finish while one transaction is being written are written
 * together in the next, so that a run pays a transaction (and a statement per table) per batch of hosts rather
 * than per host. Each crawl's promise settles when its own rows are committed, so a worker goes on only once what
 * it told the sink is recorded.
 */
import type { CompletionResults, CrawlQueue } from './queue.js';
import type { Completion } from './rows.js';

/** What became of a crawl told to the writer: recorded, dropped for a claim lost meanwhile, or its host removed. */
export type CompletionFate = 'recorded' | 'lost' | 'removed';

interface Pending {
  completion: Completion;
  resolve: (fate: CompletionFate) => void;
  reject: (error: unknown) => void;
}

const MAX_WAIT_TURNS = 8;

export class CompletionWriter {
  #pending: Pending[] = [];
  #writing: Promise<void> | undefined;

  /**
   * @param instanceId The crawler whose claims the crawls were made under: a crawl is written only while it holds
   *   its host's claim.
   * @param batchSize How many crawls a batch waits for (a few turns of the event loop at most) before it is
   *   written: each transaction costs its statements whatever their size.
   */
  constructor(
    private readonly queue: CrawlQueue,
    private readonly instanceId: string,
    private readonly batchSize = 1,
  ) {}

  /**
   * Resolves once `completion` is committed (`recorded`), or dropped: `lost` when its claim passed to another
   * crawler meanwhile, `removed` when its host was removed (nothing of it is recorded either way). Rejects with the
   * reason it could not be written.
   */
  record(completion: Completion): Promise<CompletionFate> {
    return new Promise<CompletionFate>((resolve, reject) => {
      this.#pending.push({ completion, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Let the crawls that finish in the next few turns of the event loop join the batch.
    for (let turn = 0; turn < MAX_WAIT_TURNS && this.#pending.length < this.batchSize; turn++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        const results = await this.queue.completeAll(
          batch.map((item) => item.completion),
          this.instanceId,
        );
        for (const item of batch) item.resolve(fateOf(results, item.completion.origin));
      } catch {
        // One host's rows must not cost the others theirs: each is written alone, and fails alone.
        for (const item of batch) {
          try {
            const results = await this.queue.completeAll([item.completion], this.instanceId);
            item.resolve(fateOf(results, item.completion.origin));
          } catch (error) {
            item.reject(error);
          }
        }
      }
    }
    this.#writing = undefined;
  }
}

function fateOf(results: CompletionResults, origin: string): CompletionFate {
  if (results.recorded.has(origin)) return 'recorded';
  return results.lost.has(origin) ? 'lost' : 'removed';
}
