/**
 * One signal that aborts when either of two does, released when the call ends. `AbortSignal.any` would do, but
 * in Node 20 every signal it makes stays registered (weakly) on its long-lived sources, so a host that combines
 * each call's signal with its own closing signal slows down call after call; here the listeners are removed as
 * soon as the call is over.
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
