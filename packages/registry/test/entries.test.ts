/**
 * The registry's entries as a user imports them, by the package's name (resolved through package.json `exports` to
 * the built dist/): `@agentry/registry/crawler` makes a crawler over a registry's database that crawls a loopback
 * origin into the registry, and `loadAgents` from `@agentry/registry` seeds a registry that then finds what it was
 * given. The main entry holds neither the crawler nor the internals it used to export.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { readDocument } from '@agentry/core';
import type { EmbeddingProvider } from '@agentry/embeddings';
import * as registryEntry from '@agentry/registry';
import { AgentLoadConflictError, createRegistry, loadAgents, type Registry } from '@agentry/registry';
import { crawledId, crawlOwner, createCrawler, normalizeOrigin } from '@agentry/registry/crawler';
import pino from 'pino';
import { bagOfWordsEmbedding } from '../../embeddings/test/helpers.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const summarizerWoa = readFileSync(join(repoRoot, 'examples', 'documents', 'summarizer.woa.json'), 'utf8');

let dir: string;
let registry: Registry;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentry-entries-'));
  registry = await createRegistry({
    databasePath: join(dir, 'registry.db'),
    embeddings: 'none',
    adminToken: 'entries-admin-token-0123456789abcdef',
    logger: pino({ level: 'silent' }),
  });
});

after(async () => {
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('@agentry/registry/crawler, imported by the package name', () => {
  test('the main entry exports neither the crawler nor internals', () => {
    for (const name of [
      'createCrawler',
      'crawlOrigin',
      'crawlMigrations',
      'federationMigrations',
      'hashToken',
      'storedMetadata',
      'searchDocumentOf',
      'createCrawlSink',
    ]) {
      assert.equal(name in registryEntry, false, `${name} is not in @agentry/registry`);
    }
  });

  test("a crawler over a registry's database crawls a loopback origin into it", async () => {
    const origin = createServer((request, response) => {
      if (request.url === '/.well-known/woa.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(summarizerWoa);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
    const url = normalizeOrigin(`http://127.0.0.1:${(origin.address() as AddressInfo).port}/`);
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    const crawler = createCrawler({
      db: registry.store.db,
      fetcher,
      sink: registry.crawlSink,
      liveness: false,
    });
    try {
      assert.deepEqual(await crawler.add([url]), [url]);
      const summary = await crawler.runOnce();
      assert.equal(summary.origins, 1);
      assert.equal(summary.failed, 0);
      assert.equal(summary.added, 2); // the document's summarizer and keywords
      const record = await registry.store.agents.get(crawledId(url, 'summarizer'));
      assert.equal(record?.owner, crawlOwner(url));
      assert.equal(record?.agent.name, 'Summarizer');
      assert.equal((await crawler.host(url))?.origin, url);
    } finally {
      await crawler.stop();
      await fetcher.close();
      origin.closeAllConnections();
      await new Promise<void>((done) => origin.close(() => done()));
    }
  });
});

describe('loadAgents', () => {
  const described = (id: string, description: string) =>
    readDocument({
      id,
      name: id,
      description,
      endpoint: `https://agents.example.com/${id}/invoke`,
      operations: [{ name: 'run', description }],
    }).agents;

  test('stores and indexes agents, so that search finds them at once', async () => {
    const records = await loadAgents(
      registry,
      [...described('tide-tables', 'Predicts ocean tide heights for harbours.')],
      { owner: 'seaside' },
    );
    assert.deepEqual(
      records.map((record) => [record.id, record.owner]),
      [['tide-tables', 'seaside']],
    );
    const response = await registry.fetch(
      new Request('http://127.0.0.1/agents/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'ocean tide heights' }),
      }),
    );
    assert.equal(response.status, 200);
    const results = (await response.json()) as Array<{ id: string }>;
    assert.equal(results[0]?.id, 'tide-tables');
  });

  test('refuses an id another publisher holds, and writes nothing of the batch', async () => {
    await assert.rejects(
      loadAgents(
        registry,
        [
          ...described('lighthouse-log', 'Keeps a lighthouse keeper log.'),
          ...described('tide-tables', 'Another publisher claims this id.'),
        ],
        { owner: 'landlocked' },
      ),
      (error: unknown) => error instanceof AgentLoadConflictError && error.code === 'Conflict',
    );
    assert.equal(await registry.store.agents.get('lighthouse-log'), undefined);
  });

  test('a batch stores and indexes its agents exactly as loading them one at a time does', async () => {
    // Both registries embed with the same bag-of-words stand-in, so semantic search is compared too.
    const embeddingProvider: EmbeddingProvider = {
      id: 'bag-of-words-64',
      dimensions: 64,
      embed: async (texts) => texts.map((text) => Float32Array.from(bagOfWordsEmbedding(text, 64))),
    };
    const open = (name: string) =>
      createRegistry({
        databasePath: join(dir, `${name}.db`),
        embeddingProvider,
        backgroundEmbedding: false,
        adminToken: 'entries-admin-token-0123456789abcdef',
        logger: pino({ level: 'silent' }),
      });
    const tagged = (id: string, description: string, tags: string[], capabilities: string[]) =>
      readDocument({
        id,
        name: id,
        description,
        tags,
        capabilities,
        endpoint: `https://agents.example.com/${id}/invoke`,
        operations: [{ name: 'run', description }],
      }).agents;
    const agents = [
      ...tagged(
        'tide-tables',
        'Predicts ocean tide heights for harbours.',
        ['ocean', 'maps'],
        ['forecasting'],
      ),
      ...tagged('swell-watch', 'Forecasts ocean swell for surfers.', ['ocean'], ['forecasting', 'alerts']),
      ...tagged(
        'fr-translator',
        'Translates text between English and French.',
        ['language'],
        ['translation'],
      ),
      ...tagged('harbour-fees', 'Computes harbour fees for ships.', ['maps', 'finance'], ['pricing']),
      // The same agent again, described anew: the batch's second registration of an entry it just created.
      ...tagged(
        'swell-watch',
        'Forecasts ocean swell and wind for surfers.',
        ['ocean', 'wind'],
        ['forecasting'],
      ),
    ];
    const bulk = await open('bulk');
    const single = await open('single');
    try {
      const loaded = await loadAgents(bulk, agents, { owner: 'seaside' });
      const oneByOne = [];
      for (const agent of agents) oneByOne.push(...(await loadAgents(single, [agent], { owner: 'seaside' })));
      assert.deepEqual(
        loaded.map((record) => [record.id, record.revision]),
        oneByOne.map((record) => [record.id, record.revision]),
      );
      const answers = async (registry: Registry) => {
        const out: unknown[] = [];
        for (const mode of ['lexical', 'semantic', 'hybrid']) {
          for (const query of ['ocean swell', 'harbour fees', 'translate french text']) {
            const response = await registry.fetch(
              new Request('http://127.0.0.1/agents/search', {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ query, mode, filters: mode === 'hybrid' ? { tags: ['ocean'] } : {} }),
              }),
            );
            assert.equal(response.status, 200);
            const results = (await response.json()) as Array<{ id: string }>;
            out.push([mode, query, results.map((result) => result.id)]);
          }
        }
        for (const filter of [
          'tags=maps',
          'tags=wind',
          'capabilities=forecasting',
          'tags=ocean&capabilities=alerts',
        ]) {
          const response = await registry.fetch(new Request(`http://127.0.0.1/agents?${filter}`));
          assert.equal(response.status, 200);
          const listed = (await response.json()) as Array<{ id: string }>;
          out.push([filter, listed.map((item) => item.id)]);
        }
        const history = await registry.store.agents.history('swell-watch');
        out.push(history.map((entry) => [entry.revision, entry.action, entry.record?.agent.description]));
        const audit = await registry.store.audit.list({ limit: 20 });
        out.push(audit.map((entry) => [entry.action, entry.target]).reverse());
        return out;
      };
      const fromBulk = await answers(bulk);
      assert.deepEqual(fromBulk, await answers(single));
      // What was compared is what a user expects: the second description stands, and each query finds agents.
      assert.deepEqual(fromBulk[1], ['lexical', 'harbour fees', ['harbour-fees', 'tide-tables']]);
      assert.deepEqual(fromBulk.at(-3), ['tags=ocean&capabilities=alerts', []]);
      assert.deepEqual(fromBulk.at(-2), [
        [1, 'create', 'Forecasts ocean swell for surfers.'],
        [2, 'update', 'Forecasts ocean swell and wind for surfers.'],
      ]);
    } finally {
      await bulk.close();
      await single.close();
    }
  });
});
