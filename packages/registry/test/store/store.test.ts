/**
 * The store on a real SQLite file: every case of store-suite.ts, facet-index-suite.ts and indexed-lists-suite.ts, and the write-ahead log
 * SQLite keeps.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { storedMetadata } from '../../src/records/views.js';
import { RegistryStore } from '../../src/store/store.js';
import { tempDir } from '../fixtures.js';
import { describeFacetIndex } from './facet-index-suite.js';
import { describeIndexedLists } from './indexed-lists-suite.js';
import { agentOf, describeStore, register } from './store-suite.js';

describeStore('sqlite');
describeFacetIndex('sqlite');
describeIndexedLists('sqlite');

describe('write-ahead log', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('stays bounded under a long run of writes: commits copy it back into the database file', async () => {
    const path = join(dir.path, 'log.db');
    const store = await RegistryStore.open({ path, metadataOf: storedMetadata });
    try {
      // Each agent carries ~8 KB of description into its row, its stored metadata and its history: over 1,000 of
      // them write more than 60 MB of pages, four times what the log may hold before a commit checkpoints it.
      const prose = 'Plans, books and reschedules trips across airlines, hotels and trains. '
        .repeat(110)
        .trim();
      for (let i = 0; i < 1000; i++) {
        await register(
          store,
          agentOf({ id: `urn:agent:log-${i}`, name: `Log ${i}`, description: prose }),
          'acme',
        );
      }
      const logBytes = statSync(`${path}-wal`).size;
      const databaseBytes = statSync(path).size;
      assert.ok(logBytes <= 20 * 1024 * 1024, `the log holds ${logBytes} bytes`);
      assert.ok(databaseBytes >= 20 * 1024 * 1024, `the database file holds ${databaseBytes} bytes`);
      assert.equal((await store.agents.get('urn:agent:log-999'))?.agent.description, prose);
    } finally {
      await store.close();
    }
  });
});
