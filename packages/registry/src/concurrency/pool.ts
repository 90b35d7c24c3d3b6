/**
 * A pool of workers over a source that hands out tasks in batches (a queue claimed a batch at a time): `concurrency`
 * tasks run at once, at most `perKey` of one key; the next batch is taken ahead, while tasks are still waiting, so
 * that no worker waits for the source between two tasks. A stop (the signal) lets running tasks end and hands back
 * what was taken but not finished, so that the caller can give it back to the source.
 */

export interface PoolOptions<T> {
  /** Tasks run at once. */
  concurrency: number;
  /** The next batch of tasks; `last` when there are no more after it (an empty batch is always the last). */
  take: () => Promise<{ tasks: readonly T[]; last: boolean }>;
  /** A batch is taken ahead once this many tasks or fewer are waiting (default: half of `concurrency`). */
  takeAheadAt?: number;
  /**
   * Runs one task: true when it finished, false when it was interrupted (by the signal), which ends its worker and
   * hands the task back as unfinished. A task that throws ends its worker too; the others go on.
   */
  run: (task: T) => Promise<boolean>;
  /** With `perKey`: tasks of the same key beyond `perKey` at once wait, and tasks of other keys go first. */
  key?: (task: T) => string;
  perKey?: number;
  /** Stops the pool: no task starts after it aborts. */
  signal?: AbortSignal;
}

export interface PoolResult<T> {
  /** Tasks taken but not finished: never started, or interrupted. */
  unfinished: T[];
  /** The first worker's failure (a task's, or a batch's that it was waiting for), when there was one. */
  failure?: { reason: unknown };
}

/** Runs every task the source hands out, `concurrency` at a time; resolves once every worker has stopped. */
export async function runPool<T>(options: PoolOptions<T>): Promise<PoolResult<T>> {
  const { concurrency, take, run, signal, key } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new TypeError(`A pool's concurrency must be a positive integer (got ${concurrency}).`);
  const takeAheadAt = options.takeAheadAt ?? concurrency / 2;
  const perKey = key === undefined ? Number.POSITIVE_INFINITY : (options.perKey ?? 1);
  const waiting: T[] = [];
  const interrupted: T[] = [];
  const running = new Map<string, number>();
  let exhausted = false;
  let taking: Promise<void> | undefined;
  let takeFailure: { reason: unknown } | undefined;
  /** Settles when a task ends: what a worker waits for when every waiting task's key is at its limit. */
  let ended: { promise: Promise<void>; resolve: () => void } | undefined;

  const takeAhead = (): void => {
    taking ??= (async () => {
      const batch = await take();
      exhausted = batch.last || batch.tasks.length === 0;
      waiting.push(...batch.tasks);
    })()
      .catch((reason: unknown) => {
        takeFailure = { reason };
      })
      .finally(() => {
        taking = undefined;
      });
  };
  /** The index of the first waiting task whose key is under its limit, or -1. */
  const runnable = (): number => {
    if (key === undefined) return waiting.length > 0 ? 0 : -1;
    return waiting.findIndex((task) => (running.get(key(task)) ?? 0) < perKey);
  };
  const next = async (): Promise<T | undefined> => {
    for (;;) {
      if (takeFailure !== undefined) throw takeFailure.reason;
      if (signal?.aborted) return undefined;
      if (!exhausted && waiting.length <= takeAheadAt) takeAhead();
      const index = runnable();
      if (index >= 0) {
        const task = waiting.splice(index, 1)[0]!;
        // Counted as it is handed out: another worker choosing in the same turn sees it running.
        if (key !== undefined) running.set(key(task), (running.get(key(task)) ?? 0) + 1);
        return task;
      }
      if (waiting.length > 0) {
        // Every waiting task's key is at its limit: one of them ends, or another batch comes.
        if (ended === undefined) {
          let resolve!: () => void;
          const promise = new Promise<void>((settle) => {
            resolve = settle;
          });
          ended = { promise, resolve };
        }
        await (taking === undefined ? ended.promise : Promise.race([ended.promise, taking]));
        continue;
      }
      if (taking === undefined) return undefined;
      await taking;
    }
  };
  const worker = async (): Promise<void> => {
    for (let task = await next(); task !== undefined; task = await next()) {
      const taskKey = key?.(task);
      let finished: boolean;
      try {
        finished = await run(task);
      } finally {
        if (taskKey !== undefined) {
          const count = (running.get(taskKey) ?? 1) - 1;
          if (count === 0) running.delete(taskKey);
          else running.set(taskKey, count);
        }
        const waiter = ended;
        ended = undefined;
        waiter?.resolve();
      }
      if (!finished) {
        interrupted.push(task);
        break;
      }
    }
  };
  // Every worker is waited for, even after one failed, so that nothing runs on after the pool has returned.
  const workers = await Promise.allSettled(Array.from({ length: concurrency }, worker));
  // A batch still being taken when the workers stopped ends among the waiting tasks, and is handed back with them.
  while (taking !== undefined) await taking;
  const result: PoolResult<T> = { unfinished: [...waiting.splice(0), ...interrupted] };
  const failed = workers.find((settled) => settled.status === 'rejected');
  if (failed !== undefined) result.failure = { reason: failed.reason };
  return result;
}
