/**
 * A piece of background work the registry repeats: one run at a time, the next one when the run asks for it (an
 * interval, or a retry after a failure), sooner when something asks for a run now. Timers do not keep the process
 * up, and closing waits for the run under way.
 */

export interface Recurring {
  /** Run within `delayMs`, unless a run is already due sooner; a run due while one is under way follows it. */
  runWithin(delayMs: number): void;
  /** No more runs; resolves once the one under way, if any, has ended. */
  close(): Promise<void>;
  readonly closed: boolean;
}

/**
 * `work` is one run; it resolves with the delay until the next run (it must not throw: a failure is the work's to
 * report, and its answer says when to try again). The first run starts at once.
 */
export function recurring(work: (isClosed: () => boolean) => Promise<number>): Recurring {
  let timer: NodeJS.Timeout | undefined;
  let dueAt = Number.POSITIVE_INFINITY;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  const isClosed = () => closed;

  function runWithin(delayMs: number): void {
    if (closed) return;
    const at = Date.now() + delayMs;
    if (timer !== undefined && dueAt <= at) return;
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      dueAt = Number.POSITIVE_INFINITY;
      start();
    }, delayMs);
    timer.unref();
  }

  function start(): void {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = work(isClosed)
      .then((nextInMs) => runWithin(nextInMs))
      .finally(() => {
        running = undefined;
        if (again && !closed) {
          again = false;
          start();
        }
      });
  }

  runWithin(0);
  return {
    runWithin,
    get closed() {
      return closed;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}

/**
 * The wait before trying again after the `failures`-th failure in a row (1 for the first): `retryMs`, doubled after
 * each further failure, never more than `capMs`.
 */
export function retryDelay(retryMs: number, failures: number, capMs: number): number {
  return Math.min(retryMs * 2 ** (failures - 1), capMs);
}
