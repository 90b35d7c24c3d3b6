/**
 * The time bound of one fetch: when the time is up it aborts with a `FetchTimeoutError`, and when the caller aborts,
 * with the caller's reason. Everything that waits (DNS, connect, headers, every body chunk) listens to it, so a server
 * that drips a byte at a time is cut off like one that never answers.
 *
 * It is cheap to start and stop, as every request over the network does: the step being waited on registers a callback
 * (`watch`, `race`) rather than an `AbortSignal` listener, an `AbortSignal` is built only for an API that needs one
 * (`signal`, for a stream's request), and a deadline of a second or more has no timer of its own: one shared clock
 * ticking every 50 ms while deadlines are running expires them, at most one tick late. Shorter ones get a timer.
 */
import { FetchTimeoutError } from './errors.js';

type OnAbort = (reason: unknown) => void;

/** Deadlines at least this long are expired by the shared clock. */
const CLOCK_FROM_MS = 1000;
const TICK_MS = 50;

export class Deadline {
  readonly #timeoutMs: number | undefined;
  readonly #url: string;
  readonly #callerSignal: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the shared clock expires it (`performance.now()` time); undefined when it is not on the clock. */
  #expiresAt: number | undefined;
  #aborted = false;
  #reason: unknown;
  #watcher: OnAbort | undefined;
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;
  #onCallerAbort: (() => void) | undefined;

  /** `timeoutMs` undefined: no time bound, only the caller's signal. */
  constructor(timeoutMs: number | undefined, url: string, callerSignal?: AbortSignal) {
    this.#timeoutMs = timeoutMs;
    this.#url = url;
    this.#callerSignal = callerSignal;
    if (callerSignal?.aborted === true) {
      this.#aborted = true;
      this.#reason = callerSignal.reason;
      return;
    }
    if (timeoutMs !== undefined) {
      if (timeoutMs >= CLOCK_FROM_MS) {
        this.#expiresAt = performance.now() + timeoutMs;
        Deadline.#running.add(this);
        Deadline.#keepTicking();
      } else {
        this.#timer = setTimeout(() => this.#expire(), timeoutMs);
      }
    }
    if (callerSignal !== undefined) {
      this.#onCallerAbort = () => this.#abort(callerSignal.reason);
      callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The timeout error or the caller's reason, once aborted. */
  get reason(): unknown {
    return this.#reason;
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  /**
   * An `AbortSignal` that aborts when the deadline does (built on first use). It keeps following the caller's signal
   * after `clear()`, so a stream handed to the caller still stops when the caller aborts.
   */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
      const caller = this.#callerSignal;
      this.#signal =
        caller === undefined ? this.#controller.signal : AbortSignal.any([this.#controller.signal, caller]);
    }
    return this.#signal;
  }

  /**
   * Calls `onAbort` with the reason if the deadline passes (or the caller aborts) while it is watched: at once when
   * that already happened. One watcher at a time; `unwatch` ends it.
   */
  watch(onAbort: OnAbort): void {
    if (this.#aborted) onAbort(this.#reason);
    else this.#watcher = onAbort;
  }

  unwatch(): void {
    this.#watcher = undefined;
  }

  /** Settles with the promise, or rejects with the reason as soon as the deadline aborts. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.#aborted) {
      promise.catch(() => undefined);
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#watcher = reject;
      promise.then(
        (value) => {
          this.#watcher = undefined;
          resolve(value);
        },
        (error: unknown) => {
          this.#watcher = undefined;
          reject(error);
        },
      );
    });
  }

  /** Stops the clock (the answer is complete, or a stream is handed to the caller, who bounds it). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#expiresAt !== undefined) {
      this.#expiresAt = undefined;
      Deadline.#running.delete(this);
      // The clock keeps ticking until a tick finds nothing to watch, but holds the process open only while it has.
      if (Deadline.#running.size === 0) Deadline.#clock?.unref();
    }
    this.#watcher = undefined;
    if (this.#onCallerAbort !== undefined) {
      this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
      this.#onCallerAbort = undefined;
    }
  }

  // The shared clock: the deadlines it watches, and the interval timer while there are any.
  static readonly #running = new Set<Deadline>();
  static #clock: ReturnType<typeof setInterval> | undefined;

  static #keepTicking(): void {
    if (Deadline.#clock === undefined) Deadline.#clock = setInterval(Deadline.#tick, TICK_MS);
    else if (Deadline.#running.size === 1) Deadline.#clock.ref();
  }

  static #tick(this: void): void {
    if (Deadline.#running.size === 0) {
      clearInterval(Deadline.#clock);
      Deadline.#clock = undefined;
      return;
    }
    const now = performance.now();
    for (const deadline of Deadline.#running) {
      if (deadline.#expiresAt !== undefined && deadline.#expiresAt <= now) deadline.#expire();
    }
  }

  #expire(): void {
    const url = this.#url;
    this.#abort(
      new FetchTimeoutError(`No complete answer from ${url} within ${this.#timeoutMs} ms; gave up.`, url),
    );
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const watcher = this.#watcher;
    this.clear();
    this.#controller?.abort(reason);
    watcher?.(reason);
  }
}
