/**
 * The background loop on its own: turns run one after another, sleeping what each asks for; `wake()` cuts a sleep
 * short; a failed turn is reported and retried; `stop()` resolves once the turn under way has ended.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startBackgroundLoop } from '../../src/concurrency/background-loop.js';

const LONG = 3_600_000;

/** Resolves once `check` holds, looking after every turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('startBackgroundLoop', () => {
  test('runs a turn at once, then sleeps what it asked for until woken', async () => {
    let turns = 0;
    const loop = startBackgroundLoop({
      turn: async () => {
        turns++;
        return LONG;
      },
      retryMs: LONG,
    });
    await until(() => turns === 1);
    loop.wake();
    await until(() => turns === 2);
    loop.wake();
    await until(() => turns === 3);
    await loop.stop();
    assert.equal(turns, 3);
  });

  test('a failed turn is reported, and the loop goes on after the retry sleep (cut short here)', async () => {
    const errors: unknown[] = [];
    let turns = 0;
    const loop = startBackgroundLoop({
      turn: async () => {
        turns++;
        if (turns === 1) throw new Error('first turn failed');
        return LONG;
      },
      retryMs: LONG,
      onError: (error) => errors.push(error),
    });
    await until(() => errors.length === 1);
    loop.wake();
    await until(() => turns === 2);
    await loop.stop();
    assert.equal((errors[0] as Error).message, 'first turn failed');
    assert.equal(errors.length, 1);
  });

  test('stop() aborts the turn’s signal and waits for the turn to end; no turn starts after it', async () => {
    let turns = 0;
    let sawAbort = false;
    const loop = startBackgroundLoop({
      turn: async (signal) => {
        turns++;
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        sawAbort = signal.aborted;
        return 0;
      },
      retryMs: LONG,
    });
    await until(() => turns === 1);
    await loop.stop();
    assert.equal(sawAbort, true);
    assert.equal(turns, 1);
  });

  test('an error thrown by a turn that was stopped is not reported', async () => {
    const errors: unknown[] = [];
    const loop = startBackgroundLoop({
      turn: async (signal) => {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        throw new Error('aborted');
      },
      retryMs: LONG,
      onError: (error) => errors.push(error),
    });
    await loop.stop();
    assert.deepEqual(errors, []);
  });
});
