/**
 * Group commit of finished crawls: the crawls that finish while one transaction is being written are written
 * together in the next, so that a run pays a transaction (and a statement per table) per batch of hosts rather
 * than per host. Each crawl's promise settles when its own rows are committed, so a worker goes on only once what
 * it told the sink is recorded.
 */
import type { CrawlQueue } from './queue.js';
import type { Completion } from './rows.js';

interface Pending {
  completion: Completion;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

const MAX_WAIT_TURNS = 8;

export class CompletionWriter {
  #pending: Pending[] = [];
  #writing: Promise<void> | undefined;

  /**
   * @param batchSize How many crawls a batch waits for (a few turns of the event loop at most) before it is
   *   written: each transaction costs its statements whatever their size.
   */
  constructor(
    private readonly queue: CrawlQueue,
    private readonly batchSize = 1,
  ) {}

  /**
   * Resolves once `completion` is committed: true, or false when its host was removed meanwhile (nothing of it is
   * recorded). Rejects with the reason it could not be written.
   */
  record(completion: Completion): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
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
        const recorded = await this.queue.completeAll(batch.map((item) => item.completion));
        for (const item of batch) item.resolve(recorded.has(item.completion.origin));
      } catch {
        // One host's rows must not cost the others theirs: each is written alone, and fails alone.
        for (const item of batch) {
          try {
            const recorded = await this.queue.completeAll([item.completion]);
            item.resolve(recorded.has(item.completion.origin));
          } catch (error) {
            item.reject(error);
          }
        }
      }
    }
    this.#writing = undefined;
  }
}
