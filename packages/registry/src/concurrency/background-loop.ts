/**
 * A task run again and again in the background until stopped: each turn says how long to sleep before the next,
 * a failed turn is reported and followed by a longer sleep, and `wake()` cuts a sleep short.
 */

export interface BackgroundLoopOptions {
  /** One turn: resolves with the milliseconds to sleep before the next. `signal` aborts when the loop is stopped. */
  turn: (signal: AbortSignal) => Promise<number>;
  /** The sleep after a turn that failed. */
  retryMs: number;
  onError?: (error: unknown) => void;
}

export interface BackgroundLoop {
  /** Ends the current sleep: the next turn starts now. */
  wake(): void;
  /** Stops the loop; resolves once the turn under way has ended. */
  stop(): Promise<void>;
}

export function startBackgroundLoop(options: BackgroundLoopOptions): BackgroundLoop {
  const controller = new AbortController();
  const { signal } = controller;
  let alarm = new AbortController();
  const done = (async () => {
    while (!signal.aborted) {
      try {
        const wait = await options.turn(signal);
        await sleep(wait, [signal, alarm.signal]);
      } catch (error) {
        if (signal.aborted) break;
        options.onError?.(error);
        await sleep(options.retryMs, [signal, alarm.signal]);
      }
      if (alarm.signal.aborted) alarm = new AbortController();
    }
  })();
  return {
    wake: () => alarm.abort(),
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/**
 * Waits `ms`, or until one of the signals aborts. (Not `AbortSignal.any`: on Node 20 each call keeps a listener on
 * the long-lived loop signal, and the loop would add one per turn.)
 */
function sleep(ms: number, signals: readonly AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    }
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}
