/**
 * Replicas on one PostgreSQL database follow each other: two registries (as two `agentry serve` would be) on a fresh
 * database of the local server (dropped at the end). A write through one is seen by the other's reads, filters,
 * facets, AI Catalog, lexical and semantic search — its answer caches and in-memory vectors included — without a
 * restart, also while its LISTEN connection is lost; a replica started later finds everything in the database,
 * none of it held by another replica alone.
 * Each check polls until a generous deadline (the machine is shared); the follow itself takes milliseconds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EmbeddingProvider } from '@agentry/embeddings';
import pg from 'pg';
import { freshPostgresDatabase, type TestPostgres } from '../db/postgres-fixture.js';
import { bagOfWordsEmbedding } from '../search/helpers.js';
import { aidipAgent, asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

const DIMENSIONS = 64;

/** A model without a server: each word one dimension (by hash), unit length. */
const provider: EmbeddingProvider = {
  id: 'bag-of-words-64',
  dimensions: DIMENSIONS,
  async embed(texts) {
    return texts.map((text) => {
      const vector = Float32Array.from(bagOfWordsEmbedding(text, DIMENSIONS));
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  },
};

/** Polls `check` until it holds (returns true) or the deadline passes; the last failure is the message. */
async function eventually(what: string, check: () => Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) assert.fail(`${what}: not seen within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const ids = (value: unknown) => asArray(value).map((entry) => String(entry['id']));

describe('replicas on one PostgreSQL database', () => {
  let database: TestPostgres;
  let first: TestRegistry;
  let second: TestRegistry;
  const replica = (databasePath: string) =>
    startRegistry({ databasePath, embeddingProvider: provider, backgroundEmbedding: false });

  before(async () => {
    database = await freshPostgresDatabase();
    first = await replica(database.url);
    second = await replica(database.url);
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
  });

  /** What the second replica answers, for the checks below. */
  async function seenBySecond(id: string) {
    const [agent, listed, facets, catalog, lexical, semantic] = await Promise.all([
      second.request(`/agents/${encodeURIComponent(id)}`),
      second.request('/agents?tags=tides'),
      second.request('/facets?tags=tides'),
      second.request('/.well-known/ai-catalog.json'),
      second.request('/agents/search', { body: { query: 'estuary tide charts', mode: 'lexical' } }),
      second.request('/agents/search', { body: { query: 'estuary tide charts', mode: 'semantic' } }),
    ]);
    const entries = asArray(asObject(catalog.json)['entries']).map((entry) => String(entry['displayName']));
    return {
      agent: agent.status,
      listed: ids(listed.json),
      facets: Number(asObject(facets.json)['total']),
      catalog: entries,
      lexical: ids(lexical.json),
      semantic: ids(semantic.json),
    };
  }

  test('a write through one is seen by every read and search of the other, caches included', async (t) => {
    // The second replica answers (and caches) before the write.
    const before = await seenBySecond('urn:agent:tides');
    assert.deepEqual(before.listed, []);
    assert.equal(before.facets, 0);
    assert.deepEqual(before.lexical, []);
    assert.equal(before.agent, 404);

    const created = await first.request('/agents', {
      token: first.admin,
      body: aidipAgent({
        id: 'urn:agent:tides',
        name: 'Tide Charts',
        description: 'Charts the tides of an estuary for sailors.',
        tags: ['tides'],
      }),
    });
    assert.equal(created.status, 201, created.text);
    const id = String(asObject(created.json)['id']);
    const written = performance.now();

    let seen = before;
    await eventually('the new agent on the second replica', async () => {
      seen = await seenBySecond(id);
      return (
        seen.agent === 200 &&
        seen.listed.includes(id) &&
        seen.facets === 1 &&
        seen.catalog.includes('Tide Charts') &&
        seen.lexical[0] === id &&
        seen.semantic.includes(id)
      );
    }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}: ${JSON.stringify(seen)}`);
    });
    t.diagnostic(`seen by the other replica ${Math.round(performance.now() - written)} ms after the write`);

    // A removal through the second is seen by the first's searches, lexical and semantic (its vectors too).
    const removed = await second.request(`/agents/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      token: second.admin,
    });
    assert.equal(removed.status, 204, removed.text);
    await eventually('the removal on the first replica', async () => {
      const [lexical, semantic, listed] = await Promise.all([
        first.request('/agents/search', { body: { query: 'estuary tide charts', mode: 'lexical' } }),
        first.request('/agents/search', { body: { query: 'estuary tide charts', mode: 'semantic' } }),
        first.request('/agents?tags=tides'),
      ]);
      return (
        !ids(lexical.json).includes(id) && !ids(semantic.json).includes(id) && !ids(listed.json).includes(id)
      );
    });
    assert.equal((await first.registry.search.stats()).embedded, 0);
  });

  test('a replica whose listening connection is cut still follows, by polling until it listens again', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const cut = await client.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`,
      );
      assert.equal(cut.rowCount, 2);
    } finally {
      await client.end();
    }
    const created = await first.request('/agents', {
      token: first.admin,
      body: aidipAgent({
        id: 'urn:agent:buoys',
        name: 'Buoy Watch',
        description: 'Reads the swell from estuary buoys.',
        tags: ['buoys'],
      }),
    });
    assert.equal(created.status, 201, created.text);
    const id = String(asObject(created.json)['id']);
    await eventually('the agent on the second replica', async () => {
      const [listed, semantic] = await Promise.all([
        second.request('/agents?tags=buoys'),
        second.request('/agents/search', { body: { query: 'swell buoys', mode: 'semantic' } }),
      ]);
      return ids(listed.json).includes(id) && ids(semantic.json).includes(id);
    });
  });

  test('registrations made at once on both replicas are all indexed, and each replica holds every vector', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `Ferry ${String.fromCharCode(97 + i)}`);
    const created = await Promise.all(
      names.map((name, i) =>
        (i % 2 === 0 ? first : second).request('/agents', {
          token: first.admin,
          body: aidipAgent({
            id: `urn:agent:ferry-${i}`,
            name,
            description: 'Runs a ferry timetable across the estuary.',
            tags: ['ferries'],
          }),
        }),
      ),
    );
    for (const answer of created) assert.equal(answer.status, 201, answer.text);
    const all = created.map((answer) => String(asObject(answer.json)['id'])).sort();
    for (const replica of [first, second]) {
      await eventually('every ferry on both replicas', async () => {
        const [lexical, semantic] = await Promise.all([
          replica.request('/agents/search', { body: { query: 'ferry timetable', mode: 'lexical', top: 50 } }),
          replica.request('/agents/search', {
            body: { query: 'ferry timetable', mode: 'semantic', top: 50 },
          }),
        ]);
        const lexicalIds = ids(lexical.json).sort();
        const semanticIds = ids(semantic.json)
          .filter((id) => all.includes(id))
          .sort();
        return (
          JSON.stringify(lexicalIds) === JSON.stringify(all) &&
          JSON.stringify(semanticIds) === JSON.stringify(all)
        );
      });
    }
    // The lexical statistics counted each agent once, whichever replica wrote it.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const totals = await client.query(
        `select (select rows from search_lexical_totals where not restricted) as counted,
                (select count(*) from search_lexical_documents where not restricted) as stored`,
      );
      assert.equal(Number(totals.rows[0].counted), Number(totals.rows[0].stored));
    } finally {
      await client.end();
    }
  });

  test('lexical scores on one replica follow the statistics another replica’s write moves', async () => {
    const register = (via: TestRegistry, id: string, name: string, description: string) =>
      via.request('/agents', {
        token: via.admin,
        body: aidipAgent({ id, name, description, tags: ['lights'] }),
      });
    /** Each hit’s id and score (BM25 in lexical mode), as a replica ranks them. */
    const scores = async (replica: TestRegistry) => {
      const found = await replica.request('/agents/search', {
        body: { query: 'lighthouse lamp', mode: 'lexical' },
      });
      return asArray(found.json).map((hit) => [String(hit['id']), Number(hit['score'])] as const);
    };
    const keeper = await register(
      first,
      'urn:agent:keeper',
      'Lighthouse Keeper',
      'Keeps the lamp lit in storms.',
    );
    assert.equal(keeper.status, 201, keeper.text);
    const keeperId = String(asObject(keeper.json)['id']);
    // The second replica ranks the keeper, and keeps the statistics it ranked with.
    await eventually('the keeper on the second replica', async () =>
      (await scores(second)).some(([id]) => id === keeperId),
    );
    const alone = (await scores(second)).find(([id]) => id === keeperId)![1];

    // The first replica adds another agent with the same words: the keeper's idf and the average length move.
    const tours = await register(
      first,
      'urn:agent:tours',
      'Lighthouse Tours',
      'Climb to the lighthouse lamp.',
    );
    assert.equal(tours.status, 201, tours.text);
    let seen: unknown;
    await eventually('the second replica ranking with the moved statistics', async () => {
      const [onFirst, onSecond] = await Promise.all([scores(first), scores(second)]);
      seen = { onFirst, onSecond };
      return onSecond.length === 2 && JSON.stringify(onFirst) === JSON.stringify(onSecond);
    }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}: ${JSON.stringify(seen)}`);
    });
    const shared = (await scores(second)).find(([id]) => id === keeperId)![1];
    assert.notEqual(shared, alone);
    // The agents go, so that the next test counts its own.
    for (const id of [keeperId, String(asObject(tours.json)['id'])]) {
      const removed = await first.request(`/agents/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        token: first.admin,
      });
      assert.equal(removed.status, 204, removed.text);
    }
  });

  test('a replica started later finds every agent and vector in the database', async () => {
    const created = await second.request('/agents', {
      token: second.admin,
      body: aidipAgent({
        id: 'urn:agent:harbour',
        name: 'Harbour Pilot',
        description: 'Guides ships into the harbour at high water.',
        tags: ['harbour'],
      }),
    });
    assert.equal(created.status, 201, created.text);
    const id = String(asObject(created.json)['id']);
    // The second replica goes away; what it wrote does not.
    await second.close();
    const third = await replica(database.url);
    try {
      assert.equal((await third.registry.search.stats()).embedded, 2 + 12);
      const semantic = await third.request('/agents/search', {
        body: { query: 'ships harbour pilot', mode: 'semantic' },
      });
      assert.equal(ids(semantic.json)[0], id);
      const hybrid = await third.request('/agents/search', { body: { query: 'harbour pilot' } });
      assert.equal(ids(hybrid.json)[0], id);
    } finally {
      await third.close();
    }
  });
});
