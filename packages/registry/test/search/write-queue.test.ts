import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createWriteQueue } from '../../src/search/write-queue.js';

/** A promise with its resolve, to hold a step until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('write queue', () => {
  it('commits in the order queued, while a later batch is prepared during an earlier commit', async () => {
    const events: string[] = [];
    const firstCommit = gate();
    const queue = createWriteQueue<string, string[]>({
      preparing: 2,
      async prepare(batch) {
        events.push(`prepare ${batch.join(',')}`);
        return [...batch];
      },
      async commit(batch) {
        events.push(`commit ${batch.join(',')}`);
        if (batch[0] === 'a') await firstCommit.promise;
        events.push(`committed ${batch.join(',')}`);
      },
    });
    const first = queue.upsert(['a']);
    await new Promise((resolve) => setImmediate(resolve));
    const second = queue.upsert(['b']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(events, ['prepare a', 'commit a', 'prepare b']);
    firstCommit.open();
    await Promise.all([first, second]);
    assert.deepEqual(events, [
      'prepare a',
      'commit a',
      'prepare b',
      'committed a',
      'commit b',
      'committed b',
    ]);
  });

  it('joins the upserts that arrive while every preparing slot is busy into one batch', async () => {
    const prepared: string[][] = [];
    const firstPrepare = gate();
    const queue = createWriteQueue<string, string[]>({
      preparing: 1,
      async prepare(batch) {
        prepared.push([...batch]);
        if (batch[0] === 'a') await firstPrepare.promise;
        return [...batch];
      },
      async commit() {},
    });
    const writes = [queue.upsert(['a'])];
    await new Promise((resolve) => setImmediate(resolve));
    writes.push(queue.upsert(['b']), queue.upsert(['c', 'd']));
    firstPrepare.open();
    await Promise.all(writes);
    assert.deepEqual(prepared, [['a'], ['b', 'c', 'd']]);
  });

  it('joins the upserts that arrive while the batch ahead waits for its turn to write into one write', async () => {
    const events: string[] = [];
    const firstCommit = gate();
    const queue = createWriteQueue<string, string[]>({
      // Slots to spare: what holds the later upserts back is the batch ahead, not the model.
      preparing: 4,
      async prepare(batch) {
        events.push(`prepare ${batch.join(',')}`);
        return [...batch];
      },
      async commit(batch) {
        events.push(`commit ${batch.join(',')}`);
        if (batch[0] === 'a') await firstCommit.promise;
      },
    });
    const writes = [queue.upsert(['a'])];
    await new Promise((resolve) => setImmediate(resolve));
    writes.push(queue.upsert(['b']));
    await new Promise((resolve) => setImmediate(resolve));
    // While a commits, b is prepared and waits for its turn; c, d and e arrive one by one meanwhile.
    for (const item of ['c', 'd', 'e']) {
      writes.push(queue.upsert([item]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(events, ['prepare a', 'commit a', 'prepare b']);
    firstCommit.open();
    await Promise.all(writes);
    assert.deepEqual(
      events.filter((event) => event.startsWith('commit')),
      ['commit a', 'commit b', 'commit c,d,e'],
      'three writes, the last of the three upserts that arrived during the first',
    );
    assert.deepEqual(
      events.filter((event) => event.startsWith('prepare')),
      ['prepare a', 'prepare b', 'prepare c,d,e'],
    );
  });

  it('does not let an upsert join a batch queued before other work', async () => {
    const order: string[] = [];
    const queue = createWriteQueue<string, string[]>({
      preparing: 1,
      prepare: async (batch) => [...batch],
      async commit(batch) {
        order.push(batch.join(','));
      },
    });
    const writes: Promise<unknown>[] = [queue.upsert(['a'])];
    writes.push(queue.serialised(async () => order.push('remove')));
    writes.push(queue.upsert(['b']));
    await Promise.all(writes);
    assert.deepEqual(order, ['a', 'remove', 'b']);
  });

  it('goes on after a failed write', async () => {
    const queue = createWriteQueue<string, string[]>({
      preparing: 1,
      prepare: async (batch) => [...batch],
      async commit(batch) {
        if (batch[0] === 'bad') throw new Error('refused');
      },
    });
    await assert.rejects(queue.upsert(['bad']), /refused/);
    await queue.upsert(['good']);
  });
});
