/**
 * The order of an index's writes: each runs after those queued before it, so the in-memory vectors follow the
 * database in order. An upsert is prepared (its agents embedded, outside any transaction) ahead of its turn, while
 * the write before it commits, so the model and the database work side by side.
 *
 * Concurrent registrations each upsert one agent; embedding them one by one would cost a model call each, and
 * writing them one by one a transaction each. The upserts that arrive while every preparing slot is busy, or while
 * the batch made before theirs still waits for its turn to write, wait as one batch and are prepared together when
 * both have passed. So one batch is prepared while the one before it commits (the model and the database work side
 * by side), and the rest gather: however many registrations arrive during a commit, they take one transaction
 * after it, not one each (on PostgreSQL each costs round trips to the server, most of a registration's time under
 * load). Batches write in the order they were made.
 */
import { Limiter } from '../concurrency/limiter.js';

export interface WriteQueueOptions<Item, Prepared> {
  /** Batches prepared at once (as many as the provider embeds at once, e.g. USE-lite's worker threads). */
  preparing: number;
  prepare(batch: readonly Item[]): Promise<Prepared>;
  /** Writes a prepared batch, in its turn. */
  commit(prepared: Prepared): Promise<void>;
}

export interface WriteQueue<Item> {
  /** Queues items to prepare and commit, joining the batch waiting for a preparing slot if there is one. */
  upsert(items: readonly Item[]): Promise<void>;
  /** Runs `work` after every write queued before it. */
  serialised<T>(work: () => Promise<T>): Promise<T>;
}

export function createWriteQueue<Item, Prepared>(
  options: WriteQueueOptions<Item, Prepared>,
): WriteQueue<Item> {
  let writes: Promise<unknown> = Promise.resolve();
  /** Items waiting behind the running write, merged into one batch (so one model call embeds them all). */
  let waiting: { items: Item[]; done: Promise<void> } | undefined;
  /** Settles when the latest batch's turn to write has come: the next batch is prepared from then on. */
  let latestTurn: Promise<void> = Promise.resolve();
  const preparing = new Limiter(Math.max(1, options.preparing));

  function serialised<T>(work: () => Promise<T>): Promise<T> {
    // Anything queued after a waiting batch must not be overtaken by items joining it.
    waiting = undefined;
    const run = writes.then(work);
    writes = run.catch(() => undefined);
    return run;
  }

  async function prepareInTurn(batch: Item[], turnBefore: Promise<void>): Promise<Prepared> {
    // Always a tick later, so the upserts of the same tick join the batch first; and not before the batch ahead
    // writes, so that what arrives meanwhile joins this batch rather than queueing a transaction of its own.
    await Promise.resolve();
    await turnBefore;
    return preparing.run(() => {
      if (waiting?.items === batch) waiting = undefined;
      return options.prepare(batch);
    });
  }

  function upsert(items: readonly Item[]): Promise<void> {
    if (waiting !== undefined) {
      waiting.items.push(...items);
      return waiting.done;
    }
    const batch = [...items];
    const turnBefore = latestTurn;
    let turnCame!: () => void;
    latestTurn = new Promise<void>((resolve) => {
      turnCame = resolve;
    });
    const prepared = prepareInTurn(batch, turnBefore);
    prepared.catch(() => undefined); // awaited by its write below
    const done = serialised(async () => {
      turnCame();
      return options.commit(await prepared);
    });
    waiting = { items: batch, done };
    return done;
  }

  return { upsert, serialised };
}
