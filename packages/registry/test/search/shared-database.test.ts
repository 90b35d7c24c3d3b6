/**
 * Two search indexes on one SQLite file through two connections, as `agentry serve` and `agentry crawl` (or two
 * registry processes) share a database: what one writes, the other ranks by meaning at its next search, without a
 * restart. Its vectors and demotions are held in memory, so without the change log it would not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOpenAIEmbeddingProvider } from '@agentry/embeddings';
import type { SearchIndex } from '../../src/search/index.js';
import {
  createSearchIndex,
  doc,
  embeddingsHandler,
  type LoopbackServer,
  openTestDatabase,
  startServer,
  type TestDatabase,
} from './helpers.js';

describe('search indexes sharing one database', () => {
  let server: LoopbackServer;
  /** While set, texts containing "slow" are answered only when it resolves. */
  let gate: Promise<void> | undefined;
  before(async () => {
    const answer = embeddingsHandler(64);
    server = await startServer((body, request, response) => {
      if (gate !== undefined && body.includes('slow')) void gate.then(() => answer(body, request, response));
      else answer(body, request, response);
    });
  });
  after(() => server.close());

  /** Two indexes on one file: `serving` reads, `crawling` writes, each through its own connection. */
  async function pair(): Promise<{
    serving: SearchIndex;
    crawling: SearchIndex;
    close(): Promise<void>;
  }> {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-shared-search-'));
    const databases: TestDatabase[] = [await openTestDatabase(dir), await openTestDatabase(dir)];
    const provider = () => createOpenAIEmbeddingProvider({ baseUrl: server.url, model: 'bow' });
    return {
      serving: await createSearchIndex(databases[0]!.db, provider()),
      crawling: await createSearchIndex(databases[1]!.db, provider()),
      async close() {
        for (const database of databases) await database.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  const semanticIds = async (index: SearchIndex, query: string) =>
    (await index.search(query, { top: 5, mode: 'semantic' })).map((hit) => hit.id);

  it('ranks by meaning an agent the other connection indexed', async () => {
    const { serving, crawling, close } = await pair();
    try {
      await serving.upsert([doc('hotels', { name: 'Hotel booking', description: 'rooms stays nights' })]);
      await crawling.upsert([doc('forecast', { name: 'Forecaster', description: 'rain sun wind outlook' })]);

      assert.deepEqual(await semanticIds(serving, 'outlook for rain'), ['forecast', 'hotels']);
      const [top] = await serving.search('outlook for rain', { top: 1 });
      assert.equal(top?.id, 'forecast');
      assert.ok(top?.semantic !== undefined && top.semantic > 0.3, 'the hybrid hit has its semantic score');
      assert.equal((await serving.stats()).embedded, 2);
    } finally {
      await close();
    }
  });

  it('follows a re-indexed agent to its new text, and drops a removed one', async () => {
    const { serving, crawling, close } = await pair();
    try {
      await crawling.upsert([doc('travel', { name: 'Forecaster', description: 'rain sun wind outlook' })]);
      await crawling.upsert([doc('hotels', { name: 'Hotel booking', description: 'rooms stays nights' })]);
      assert.equal(
        (await serving.search('cheap airline tickets', { top: 1, mode: 'semantic' }))[0]?.semantic,
        0,
      );

      await crawling.upsert([doc('travel', { name: 'Flight finder', description: 'cheap airline tickets' })]);
      const [moved] = await serving.search('cheap airline tickets', { top: 1, mode: 'semantic' });
      assert.equal(moved?.id, 'travel');
      assert.ok(moved!.semantic! > 0.5, `similarity to the new text, got ${moved!.semantic}`);

      await crawling.remove(['travel']);
      assert.deepEqual(await semanticIds(serving, 'cheap airline tickets'), ['hotels']);
      assert.equal((await serving.stats()).embedded, 1);
    } finally {
      await close();
    }
  });

  it('shows a demotion made, and lifted, through the other connection', async () => {
    const { serving, crawling, close } = await pair();
    try {
      const twin = (id: string) => doc(id, { name: 'Weather', description: 'rain forecast' });
      await serving.upsert([twin('a'), twin('b')]);
      await crawling.upsert([
        { ...twin('a'), demotion: { penalty: 1, reasons: ['unreachable (3 probes)'] } },
      ]);

      const demoted = await serving.search('rain forecast', { top: 2 });
      assert.deepEqual(
        demoted.map((hit) => hit.id),
        ['b', 'a'],
      );
      const saysWhy = (why: readonly string[]) => why.some((line) => line.includes('unreachable (3 probes)'));
      assert.ok(saysWhy(demoted[1]!.why), JSON.stringify(demoted[1]!.why));

      await crawling.upsert([twin('a')]);
      const lifted = await serving.search('rain forecast', { top: 2 });
      assert.ok(!lifted.some((hit) => saysWhy(hit.why)));
    } finally {
      await close();
    }
  });

  it('applies every change when its own writes and the other connection’s interleave', async () => {
    const { serving, crawling, close } = await pair();
    try {
      await serving.upsert([doc('own-1', { description: 'alpha bravo' })]);
      await crawling.upsert([doc('other-1', { description: 'charlie delta' })]);
      await serving.upsert([doc('own-2', { description: 'echo foxtrot' })]);
      await crawling.upsert([doc('other-2', { description: 'golf hotel' })]);
      await serving.upsert([doc('own-3', { description: 'india juliett' })]);

      assert.equal((await serving.stats()).embedded, 5);
      for (const [query, id] of [
        ['alpha bravo', 'own-1'],
        ['charlie delta', 'other-1'],
        ['echo foxtrot', 'own-2'],
        ['golf hotel', 'other-2'],
        ['india juliett', 'own-3'],
      ] as const) {
        assert.equal((await semanticIds(serving, query))[0], id, query);
      }
    } finally {
      await close();
    }
  });

  it('follows the other connection while a write of its own waits on the model', async () => {
    const { serving, crawling, close } = await pair();
    let open = (): void => undefined;
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    try {
      await serving.upsert([doc('first', { description: 'alpha bravo' })]);
      const ownWrite = serving.upsert([doc('slow', { description: 'slow charlie' })]);
      await crawling.upsert([doc('other', { description: 'delta echo' })]);

      // The search answers while the own write still waits for its vector, and already ranks the other's agent.
      assert.deepEqual(await semanticIds(serving, 'delta echo'), ['other', 'first']);
      open();
      await ownWrite;
      assert.equal((await semanticIds(serving, 'slow charlie'))[0], 'slow');
      assert.equal((await serving.stats()).embedded, 3);
    } finally {
      open();
      gate = undefined;
      await close();
    }
  });

  it('reads a large write of the other connection page by page, missing none', async () => {
    const { serving, crawling, close } = await pair();
    try {
      // More agents than one page of the log (2,000), all stamped by one transaction.
      const agents = Array.from({ length: 2_300 }, (_, i) =>
        doc(`agent-${String(i).padStart(4, '0')}`, { description: `word${i} common` }),
      );
      await crawling.upsert(agents);
      assert.equal((await serving.stats()).embedded, 2_300);
      // Semantic ranking only ranks agents with a vector in memory: the first and the last of the write.
      for (const id of ['agent-0000', 'agent-2299']) {
        const hits = await serving.search('common', { top: 1, mode: 'semantic', candidates: new Set([id]) });
        assert.equal(hits[0]?.id, id);
      }
    } finally {
      await close();
    }
  });
});
