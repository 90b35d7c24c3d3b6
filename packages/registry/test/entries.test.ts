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
import * as registryEntry from '@agentry/registry';
import { AgentLoadConflictError, createRegistry, loadAgents, type Registry } from '@agentry/registry';
import { crawledId, crawlOwner, createCrawler, normalizeOrigin } from '@agentry/registry/crawler';
import pino from 'pino';

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
});
