/**
 * The abort signals of calls. Two things shape this module:
 * - `AbortSignal.any` would combine a call's signal with the host's closing signal, but in Node 20 every signal it
 *   makes stays registered (weakly) on its long-lived sources, so a host slows down call after call; `linkSignals`
 *   removes its listeners as soon as the call is over.
 * - Making an AbortSignal costs more than the rest of a small call, and most handlers never read theirs, so a
 *   call's signal (`callSignal`) is made the first time something reads it, and its caller's signal is not asked
 *   for before then (the Node adapter makes that one lazily too).
 */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Detaches from the sources; the signal stays as it is. */
  release(): void;
}

export function linkSignals(first: AbortSignal, second: AbortSignal): LinkedSignal {
  if (first.aborted) return { signal: first, release() {} };
  if (second.aborted) return { signal: second, release() {} };
  const controller = new AbortController();
  const onFirst = (): void => {
    release();
    controller.abort(first.reason);
  };
  const onSecond = (): void => {
    release();
    controller.abort(second.reason);
  };
  const release = (): void => {
    first.removeEventListener('abort', onFirst);
    second.removeEventListener('abort', onSecond);
  };
  first.addEventListener('abort', onFirst, { once: true });
  second.addEventListener('abort', onSecond, { once: true });
  return { signal: controller.signal, release };
}

export interface CallSignal {
  /** Aborted when the caller goes away or the host closes; made on first read. */
  readonly signal: AbortSignal;
  /** Whether the call was aborted, without making its signal. */
  readonly aborted: boolean;
  /** The call is over: detach from the sources (the signal, if made, stays as it is). */
  release(): void;
}

/** Where a call's own signal comes from (a `CallRequest`), read only when the call's signal is first needed. */
export interface SignalSource {
  readonly signal?: AbortSignal | undefined;
}

export function callSignal(caller: SignalSource, closing: AbortSignal): CallSignal {
  return new LazyCallSignal(caller, closing);
}

class LazyCallSignal implements CallSignal {
  readonly #caller: SignalSource;
  readonly #closing: AbortSignal;
  #linked: LinkedSignal | undefined;
  #released = false;

  constructor(caller: SignalSource, closing: AbortSignal) {
    this.#caller = caller;
    this.#closing = closing;
  }

  get signal(): AbortSignal {
    this.#linked ??= this.#link();
    return this.#linked.signal;
  }

  get aborted(): boolean {
    if (this.#linked !== undefined) return this.#linked.signal.aborted;
    return this.#closing.aborted || this.#caller.signal?.aborted === true;
  }

  release(): void {
    this.#released = true;
    this.#linked?.release();
  }

  #link(): LinkedSignal {
    const source = this.#caller.signal;
    if (source === undefined) return { signal: this.#closing, release() {} };
    if (this.#released) {
      // Read after the call ended: it will not be aborted any more, as if it had been linked and released.
      const settled = firstAborted(source, this.#closing) ?? new AbortController().signal;
      return { signal: settled, release() {} };
    }
    return linkSignals(source, this.#closing);
  }
}

function firstAborted(first: AbortSignal, second: AbortSignal): AbortSignal | undefined {
  if (first.aborted) return first;
  return second.aborted ? second : undefined;
}
