/** An abortable wait. An abort rejects with the signal's own reason, as `fetch` does. */
import { setTimeout as delay } from 'node:timers/promises';

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw signal.reason;
  if (ms <= 0) return;
  try {
    await delay(ms, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}
