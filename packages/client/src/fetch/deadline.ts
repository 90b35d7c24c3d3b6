/**
 * The time bound of one fetch: a signal that aborts with a `FetchTimeoutError` when the time is up, or with the
 * caller's reason when the caller aborts. Everything that waits (DNS, connect, headers, every body chunk) listens to it,
 * so a server that drips a byte at a time is cut off like one that never answers.
 */
import { FetchTimeoutError } from './errors.js';

export class Deadline {
  readonly signal: AbortSignal;
  readonly #timer: ReturnType<typeof setTimeout>;

  constructor(timeoutMs: number, url: string, callerSignal?: AbortSignal) {
    const controller = new AbortController();
    this.#timer = setTimeout(() => {
      controller.abort(
        new FetchTimeoutError(`No complete answer from ${url} within ${timeoutMs} ms; gave up.`, url),
      );
    }, timeoutMs);
    this.signal =
      callerSignal === undefined ? controller.signal : AbortSignal.any([controller.signal, callerSignal]);
  }

  /** Stops the clock (the answer is complete, or a stream is handed to the caller, who bounds it). */
  clear(): void {
    clearTimeout(this.#timer);
  }
}
