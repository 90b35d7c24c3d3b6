/**
 * The worker pool on its own: tasks from a batched source run `concurrency` at a time, at most `perKey` of a key
 * at once; batches are taken ahead; a stop hands back what was taken and not finished; failures are reported once
 * every worker has stopped. Tasks are released by hand (deferred promises), never by timers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runPool } from '../../src/concurrency/pool.js';

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets every promise callback queued so far run. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A source handing out `batches` one at a time, the last one marked. */
function batches<T>(list: T[][]): {
  take: () => Promise<{ tasks: T[]; last: boolean }>;
  takes: () => number;
} {
  let taken = 0;
  return {
    take: async () => {
      const tasks = list[taken] ?? [];
      taken++;
      return { tasks, last: taken >= list.length };
    },
    takes: () => taken,
  };
}

/** Tasks that run until released by hand, recording what runs at once. */
function gatedTasks() {
  const gates = new Map<string, Deferred<boolean>>();
  const running = new Set<string>();
  const started: string[] = [];
  let most = 0;
  return {
    run: async (task: string): Promise<boolean> => {
      const gate = deferred<boolean>();
      gates.set(task, gate);
      running.add(task);
      started.push(task);
      most = Math.max(most, running.size);
      try {
        return await gate.promise;
      } finally {
        running.delete(task);
      }
    },
    release: (task: string, finished = true) => gates.get(task)!.resolve(finished),
    fail: (task: string, error: unknown) => gates.get(task)!.reject(error),
    running: () => [...running].sort(),
    started: () => [...started],
    most: () => most,
  };
}

describe('runPool', () => {
  test('runs every task once, at most `concurrency` at a time, in the order they were taken', async () => {
    const source = batches([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    const tasks = gatedTasks();
    const done = runPool({ concurrency: 2, take: source.take, run: tasks.run });
    await settle();
    assert.deepEqual(tasks.running(), ['a', 'b']);
    for (const task of ['a', 'b', 'c', 'd', 'e']) {
      await settle();
      tasks.release(task);
    }
    const result = await done;
    assert.deepEqual(result, { unfinished: [] });
    assert.deepEqual(tasks.started(), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(tasks.most(), 2);
  });

  test('takes the next batch ahead, while tasks are still waiting, and stops taking after the last', async () => {
    const source = batches([['a', 'b', 'c', 'd'], ['e']]);
    const tasks = gatedTasks();
    const done = runPool({ concurrency: 2, take: source.take, run: tasks.run });
    await settle();
    assert.equal(source.takes(), 1, 'four taken, two waiting: more than half of the workers');
    tasks.release('a');
    await settle();
    assert.equal(source.takes(), 1, 'c started, d waiting');
    tasks.release('b');
    await settle();
    assert.equal(source.takes(), 2, 'one waiting: the next batch is taken before the workers run out');
    assert.deepEqual(tasks.running(), ['c', 'd']);
    for (const task of ['c', 'd', 'e']) {
      tasks.release(task);
      await settle();
    }
    await done;
    assert.equal(source.takes(), 2, 'nothing is taken after the last batch');
  });

  test('an empty batch ends the source', async () => {
    let takes = 0;
    const result = await runPool({
      concurrency: 3,
      take: async () => {
        takes++;
        return { tasks: takes === 1 ? ['a'] : [], last: false };
      },
      run: async () => true,
    });
    assert.deepEqual(result, { unfinished: [] });
    assert.equal(takes, 2);
  });

  test('runs at most `perKey` tasks of a key at once; tasks of other keys go first', async () => {
    const source = batches([['a1', 'a2', 'b1', 'a3', 'c1']]);
    const tasks = gatedTasks();
    const done = runPool({
      concurrency: 3,
      take: source.take,
      run: tasks.run,
      key: (task) => task[0]!,
      perKey: 1,
    });
    await settle();
    assert.deepEqual(tasks.running(), ['a1', 'b1', 'c1'], 'a2 and a3 wait for a1');
    tasks.release('b1');
    await settle();
    assert.deepEqual(tasks.running(), ['a1', 'c1'], 'a free worker does not start a second task of key a');
    tasks.release('a1');
    await settle();
    assert.deepEqual(tasks.running(), ['a2', 'c1']);
    tasks.release('a2');
    tasks.release('c1');
    await settle();
    assert.deepEqual(tasks.running(), ['a3']);
    tasks.release('a3');
    assert.deepEqual(await done, { unfinished: [] });
    assert.deepEqual(tasks.started(), ['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  test('a stop starts nothing more and hands back what was taken and not finished', async () => {
    const source = batches([['a', 'b', 'c', 'd', 'e']]);
    const tasks = gatedTasks();
    const controller = new AbortController();
    const done = runPool({ concurrency: 2, take: source.take, run: tasks.run, signal: controller.signal });
    await settle();
    controller.abort();
    tasks.release('a');
    tasks.release('b', false);
    const result = await done;
    assert.deepEqual(tasks.started(), ['a', 'b']);
    assert.deepEqual(
      result,
      { unfinished: ['c', 'd', 'e', 'b'] },
      'waiting ones first, then interrupted ones',
    );
  });

  test('a batch being taken when the pool stops is handed back', async () => {
    const second = deferred<{ tasks: string[]; last: boolean }>();
    let takes = 0;
    const tasks = gatedTasks();
    const controller = new AbortController();
    const done = runPool({
      concurrency: 2,
      take: () => (++takes === 1 ? Promise.resolve({ tasks: ['a'], last: false }) : second.promise),
      run: tasks.run,
      signal: controller.signal,
    });
    await settle();
    assert.equal(takes, 2);
    controller.abort();
    tasks.release('a');
    await settle();
    second.resolve({ tasks: ['b', 'c'], last: true });
    assert.deepEqual(await done, { unfinished: ['b', 'c'] });
    assert.deepEqual(tasks.started(), ['a']);
  });

  test('a task that throws ends its worker; the others go on, and the failure is reported at the end', async () => {
    const source = batches([['a', 'b', 'c', 'd']]);
    const tasks = gatedTasks();
    const done = runPool({ concurrency: 2, take: source.take, run: tasks.run });
    await settle();
    const error = new Error('a failed');
    tasks.fail('a', error);
    await settle();
    assert.deepEqual(tasks.running(), ['b'], 'the failed worker takes nothing more');
    tasks.release('b');
    await settle();
    tasks.release('c');
    await settle();
    tasks.release('d');
    const result = await done;
    assert.deepEqual(tasks.started(), ['a', 'b', 'c', 'd']);
    assert.deepEqual(result.unfinished, []);
    assert.equal(result.failure?.reason, error);
  });

  test('a batch that cannot be taken fails the workers waiting for it', async () => {
    const error = new Error('database is locked');
    const result = await runPool({
      concurrency: 2,
      take: async () => {
        throw error;
      },
      run: async () => true,
    });
    assert.deepEqual(result.unfinished, []);
    assert.equal(result.failure?.reason, error);
  });

  test('refuses a concurrency that is not a positive integer', async () => {
    await assert.rejects(
      runPool({ concurrency: 0, take: async () => ({ tasks: [], last: true }), run: async () => true }),
      TypeError,
    );
  });
});
