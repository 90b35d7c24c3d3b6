/**
 * The migration to one agent, one entry, over a database file written by the registry before it (commit 009dfff),
 * kept gzipped in fixtures/pre-identity.db.gz. That file holds what the old rule made of one agent served by
 * `agentry host examples/summarizer/agent.ts` on 127.0.0.1:35225:
 *
 * - `summarizer`: its WoA document, registered by acme;
 * - `document-summarizer`: its A2A card, registered by acme (rated 5);
 * - `summarizer-2a8dga`: its WoA document again, registered by globex (the old rule's owner suffix);
 * - `127-0-0-1-35225-summarizer`: the crawl of its origin;
 * - `flights.example.com`, another agent; `gone`, deleted (a tombstone). `summarizer` was rated 4.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { asArray, asObject, startRegistry, type TestRegistry, tempDir } from '../support.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'pre-identity.db.gz');
const ORIGIN = 'http://127.0.0.1:35225';

describe('migrating a database written under the old rule', () => {
  const dir = tempDir();
  const databasePath = join(dir.path, 'registry.db');
  let r: TestRegistry;

  before(async () => {
    writeFileSync(databasePath, gunzipSync(readFileSync(FIXTURE)));
    r = await startRegistry({ databasePath }, { path: dir.path, remove: () => {} });
  });
  after(async () => {
    await r.close();
    dir.remove();
  });

  test('the entries of one agent become one, with every source', async () => {
    const ids = asArray((await r.request('/agents?limit=100')).json).map((item) => item['id']);
    assert.deepEqual(ids, ['flights.example.com', 'summarizer', 'summarizer-2a8dga']);
    const entry = asObject((await r.request('/agents/summarizer')).json);
    const registry = asObject(entry['registry']);
    assert.equal(registry['owner'], 'acme');
    assert.equal(registry['revision'], 2);
    const sources = asArray(registry['sources']);
    assert.deepEqual([...new Set(sources.map((source) => `${source['arrived']} ${source['by']}`))].sort(), [
      'crawled crawler:127.0.0.1:35225',
      'registered acme',
    ]);
    assert.deepEqual(
      sources
        .filter((source) => source['arrived'] === 'registered')
        .map((source) => source['format'])
        .sort(),
      ['a2a', 'woa'],
    );
    // The old file kept the crawl's primary document only.
    const crawled = sources.filter((source) => source['arrived'] === 'crawled');
    assert.equal(crawled.length, 1);
    assert.ok(String(crawled[0]?.['url']).startsWith(`${ORIGIN}/`), String(crawled[0]?.['url']));
    assert.equal(crawled[0]?.['verified'], true);
    const quality = asObject(registry['quality']);
    assert.equal(quality['ratings'], 2, "the card's rating moved to the entry");
    assert.equal(quality['verified'], true, 'the crawl of its origin vouches for it');
    for (const gone of ['document-summarizer', '127-0-0-1-35225-summarizer']) {
      assert.equal((await r.request(`/agents/${gone}`)).status, 404, gone);
    }
  });

  test('mirrors see the merged ids deleted; history and audit say what the migration did', async () => {
    const changes = asArray((await r.request('/agents?updated_since=2026-01-01T00:00:00Z&limit=100')).json);
    const deleted = changes.filter((item) => item['deleted'] === true).map((item) => item['id']);
    assert.deepEqual(deleted.sort(), ['127-0-0-1-35225-summarizer', 'document-summarizer', 'gone']);

    const history = asArray(
      asObject((await r.request('/agents/summarizer/history', { token: r.admin })).json)['entries'],
    );
    assert.deepEqual(history.map((item) => [item['action'], item['actor']]).at(-1), ['update', 'migration']);
    const audit = asArray(
      asObject((await r.request('/admin/audit?limit=100', { token: r.admin })).json)['entries'],
    );
    const merge = audit.find((item) => item['action'] === 'agent.merge');
    assert.equal(merge?.['target'], 'summarizer');
    assert.deepEqual((asObject(merge?.['details'])['merged'] as string[]).sort(), [
      '127-0-0-1-35225-summarizer',
      'document-summarizer',
    ]);
    const conflict = audit.find((item) => item['action'] === 'agent.identity-conflict');
    assert.equal(conflict?.['target'], 'summarizer-2a8dga', "globex's copy stays its own, for the operator");
    assert.equal(asObject(conflict?.['details'])['holder'], 'summarizer');
  });

  test('search, resolve and the catalog show the agent once; the merged ids left the index', async () => {
    const searched = asArray(
      (await r.request('/agents/search', { body: { query: 'summarizes English text' } })).json,
    );
    const ids = searched.map((item) => item['id']);
    assert.deepEqual(
      ids.filter((id) => id === 'summarizer'),
      ['summarizer'],
    );
    assert.ok(!ids.includes('document-summarizer') && !ids.includes('127-0-0-1-35225-summarizer'));
    const catalog = asArray(asObject((await r.request('/.well-known/ai-catalog.json')).json)['entries']);
    assert.equal(catalog.filter((item) => item['url'] === `${r.url}/agents/summarizer?format=a2a`).length, 1);
    assert.equal(catalog.length, 3);

    const raw = new Database(databasePath, { readonly: true });
    try {
      const merges = raw
        .prepare('select from_id, into_id, reindexed from agent_merges order by from_id')
        .all();
      assert.deepEqual(merges, [
        { from_id: '127-0-0-1-35225-summarizer', into_id: 'summarizer', reindexed: 1 },
        { from_id: 'document-summarizer', into_id: 'summarizer', reindexed: 1 },
      ]);
      // The crawled source is keyed by the agent's id at its origin, as a re-crawl looks it up.
      const keys = raw
        .prepare(`select source_key from agent_sources where agent_id = 'summarizer' order by 1`)
        .all();
      assert.deepEqual(keys, [
        { source_key: 'crawled 127.0.0.1:35225 summarizer' },
        { source_key: 'registered a2a' },
        { source_key: 'registered woa' },
      ]);
    } finally {
      raw.close();
    }
  });

  test('a publisher registering the agent again meets its entry; another one gets 409', async () => {
    const acme = (await r.token('publisher', { publisher: 'acme' })).token;
    const globex = (await r.token('publisher', { publisher: 'globex' })).token;
    const card = asObject((await r.request('/agents/summarizer?format=a2a')).json);
    const again = await r.request('/agents', { token: acme, body: card });
    assert.equal(again.status, 200, again.text);
    assert.equal(asObject(again.json)['id'], 'summarizer');
    const refused = await r.request('/agents', { token: globex, body: card });
    assert.equal(refused.status, 409, refused.text);
  });
});
