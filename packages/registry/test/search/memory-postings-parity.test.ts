/**
 * The in-memory lexical index (lexical/memory-postings.ts) against the SQLite FTS5 engine (lexical/sqlite.ts) on a
 * real SQLite file, over the same agents: the bench's generated agents and the shared benchmarks' tools (real
 * descriptions: long prose, identifiers, emoji, other scripts), some restricted, some replaced and deleted. The
 * same queries (the bench's, the benchmarks' own requests, prefixes and phrases) must give the same agents in the
 * same order with the same scores, and the same explanations; the text analysis must cut and fold characters as
 * FTS5 does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { generateAgent, generateQuery } from '../../../../bench/registry/agents.js';
import { DATASETS, loadDataset, searchDocumentOfAgent } from '../../../../bench/search-quality/datasets.js';
import type { Database as RegistryDatabase } from '../../src/db/database.js';
import { lexicalFields } from '../../src/search/document-text.js';
import { searchMigrations } from '../../src/search/index.js';
import { EXTRA_WORD_CHARACTERS, FOLDS, SEPARATOR_CHARACTERS } from '../../src/search/lexical/fts5-unicode.js';
import { MemoryPostings } from '../../src/search/lexical/memory-postings.js';
import { matchedWords, textTerms } from '../../src/search/lexical/memory-text.js';
import { parseLexicalQuery } from '../../src/search/lexical/query.js';
import { createSqliteLexicalIndex } from '../../src/search/lexical/sqlite.js';
import type { LexicalFields, LexicalMatch, LexicalSearchOptions } from '../../src/search/lexical/types.js';
import { sharedPath } from '../safety/corpora.js';

const GENERATED = 400;

interface Entry {
  id: string;
  fields: LexicalFields;
  restricted: boolean;
}

function corpus(): { entries: Entry[]; queries: string[] } {
  const entries: Entry[] = [];
  const queries: string[] = [];
  for (let i = 0; i < GENERATED; i++) {
    const { document } = generateAgent(i);
    const id = String(document['id']);
    entries.push({ id, fields: lexicalFields(searchDocumentOfAgent({ id, document })), restricted: false });
  }
  for (let i = 0; i < 60; i++) queries.push(generateQuery(i));
  for (const spec of DATASETS.filter((set) => set.name !== 'metatool-multi')) {
    const dataset = loadDataset(sharedPath('bench'), spec, 40);
    for (const agent of dataset.agents) {
      if (entries.some((entry) => entry.id === agent.id)) continue;
      entries.push({ id: agent.id, fields: lexicalFields(searchDocumentOfAgent(agent)), restricted: false });
    }
    queries.push(...dataset.queries.map((query) => query.text));
  }
  // Every ninth agent is restricted (hidden from some callers).
  entries.forEach((entry, i) => {
    entry.restricted = i % 9 === 4;
  });
  queries.push(
    'weath* forec*',
    '"exchange rate" convert',
    '"pull request" review',
    'getWeather',
    'translate "web page" to French',
    'café naïve',
    'search*',
    'data',
    'a',
  );
  return { entries, queries };
}

describe('in-memory lexical index against FTS5', () => {
  const lexical = createSqliteLexicalIndex();
  const memory = new MemoryPostings({ compactFrom: 10 });
  let dir: string;
  let db: Kysely<RegistryDatabase>;
  const { entries, queries } = corpus();
  const live = new Map<string, Entry>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentry-memory-postings-'));
    db = new Kysely<RegistryDatabase>({
      dialect: new SqliteDialect({ database: new Database(join(dir, 'registry.db')) }),
    });
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => searchMigrations },
    }).migrateToLatest();
    if (error) throw error;
    const write = async (batch: readonly Entry[]) => {
      await lexical.write(db, batch);
      for (const entry of batch) {
        memory.set(entry.id, entry.fields, entry.restricted);
        live.set(entry.id, entry);
      }
    };
    await write(entries);
    // Replaced (new text, and access changed both ways), then deleted: rows keep their place in FTS5's order.
    const replaced = entries.slice(0, 60).map((entry, i) => ({
      id: entry.id,
      fields: entries[entries.length - 1 - i]!.fields,
      restricted: i % 5 === 0 ? !entry.restricted : entry.restricted,
    }));
    await write(replaced);
    const deleted = entries.filter((_, i) => i % 13 === 6).map((entry) => entry.id);
    await lexical.remove(db, deleted);
    for (const id of deleted) {
      memory.delete(id);
      live.delete(id);
    }
  });

  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  function assertSame(actual: readonly LexicalMatch[], expected: readonly LexicalMatch[], label: string) {
    assert.deepEqual(
      actual.map((hit) => hit.id),
      expected.map((hit) => hit.id),
      label,
    );
    actual.forEach((hit, i) => {
      const want = expected[i]!.score;
      assert.ok(
        Math.abs(hit.score - want) <= 1e-6 * Math.abs(want),
        `${label}: ${hit.id} ${hit.score} vs ${want}`,
      );
    });
  }

  it('holds the same agents', async () => {
    assert.equal(memory.size, await lexical.count(db));
    assert.equal(memory.size, live.size);
  });

  it('ranks every query as FTS5 does: same agents, order and scores', async () => {
    let hits = 0;
    for (const text of queries) {
      const query = parseLexicalQuery(text);
      const expected = await lexical.search(db, query, { limit: 100 });
      assertSame(memory.search(query, { limit: 100 }), expected, text);
      hits += expected.length;
    }
    assert.ok(hits > queries.length * 20, `the queries match (${hits} hits)`);
  });

  it('ranks within candidates and without excluded agents as FTS5 does, restricted agents included', async () => {
    const ids = [...live.keys()];
    const scopes: Array<Omit<LexicalSearchOptions, 'limit'>> = [
      { candidates: new Set(ids.filter((_, i) => i % 3 === 0)) },
      { candidates: new Set(ids.filter((_, i) => i % 17 === 1)) },
      { excluded: new Set(ids.filter((_, i) => i % 4 === 0)) },
    ];
    for (const [s, scope] of scopes.entries()) {
      for (const text of queries.filter((_, i) => i % 3 === s)) {
        const query = parseLexicalQuery(text);
        const expected = await lexical.search(db, query, { ...scope, limit: 40 });
        assertSame(memory.search(query, { ...scope, limit: 40 }), expected, `${text} (scope ${s})`);
      }
    }
  });

  it('names the matched words as FTS5 highlights them', async () => {
    for (const text of queries.filter((_, i) => i % 2 === 0)) {
      const query = parseLexicalQuery(text);
      const hits = memory.search(query, { limit: 10 });
      const explained = await lexical.explain(
        db,
        query,
        hits.map((hit) => hit.id),
      );
      for (const hit of hits) {
        assert.deepEqual(
          matchedWords(query, live.get(hit.id)!.fields),
          explained.get(hit.id),
          `${text}: ${hit.id}`,
        );
      }
    }
  });

  it('cuts, folds and stems characters as FTS5 does', () => {
    const probe = new Database(':memory:');
    probe.exec(`CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61 remove_diacritics 2');
                CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
    // Every code point the table names, and a spread of the others.
    const codePoints = new Set<number>();
    for (const ranges of [EXTRA_WORD_CHARACTERS, SEPARATOR_CHARACTERS]) {
      for (const range of ranges.split(' ')) {
        const [low, high = low] = range.split('-').map((hex) => Number.parseInt(hex, 16));
        for (let cp = low!; cp <= high!; cp++) codePoints.add(cp);
      }
    }
    for (const hex of Object.keys(FOLDS)) codePoints.add(Number.parseInt(hex, 16));
    for (let cp = 0; cp < 0x110000; cp += cp < 0x3000 ? 1 : 37)
      if (cp < 0xd800 || cp >= 0xe000) codePoints.add(cp);
    const texts = [...codePoints].map((cp) => `ab${String.fromCodePoint(cp)}ing`);
    texts.push('été café naïve ÆSIR Øre łódź straße ǅemal ά λόγος Ωμέγα हिन्दी 🧠🔧 İstanbul ﬁle ＡＢＣ');
    const insert = probe.prepare('INSERT INTO t (rowid, w) VALUES (?, ?)');
    probe.transaction(() => {
      for (const [i, text] of texts.entries()) insert.run(i + 1, text);
    })();
    const terms = new Map<number, string[]>();
    for (const row of probe.prepare('SELECT doc, term FROM v ORDER BY doc, offset').all() as Array<{
      doc: number;
      term: string;
    }>) {
      const list = terms.get(row.doc - 1) ?? [];
      list.push(row.term);
      terms.set(row.doc - 1, list);
    }
    const differing = texts.filter((text, i) => textTerms(text).join(' ') !== (terms.get(i) ?? []).join(' '));
    assert.deepEqual(differing.slice(0, 10), []);
    probe.close();
  });
});
