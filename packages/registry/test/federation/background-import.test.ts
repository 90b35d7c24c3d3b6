/**
 * A registry mirroring another while it runs (`imports`): a source that is down at first is tried again and
 * imported once it answers, without a restart; closing the registry stops the mirroring.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { OFFICIAL_META } from '../../src/federation/mcp-registry.js';
import { createRegistry } from '../../src/index.js';
import { sharedJson } from '../crawl/support/documents.js';
import { silentLogger, tempDir } from '../support.js';

test('a mirrored registry that is down at first is imported once it answers', async () => {
  const seed = sharedJson('corpora', 'mcp-registry', 'seed.json') as Array<Record<string, unknown>>;
  const servers = seed.slice(10, 13).map((server) => ({
    server,
    _meta: { [OFFICIAL_META]: { status: 'active', updatedAt: '2025-11-01T00:00:00Z', isLatest: true } },
  }));
  let refusals = 2;
  let requests = 0;
  const source = createServer((_request, response) => {
    requests++;
    if (refusals > 0) {
      refusals--;
      response.writeHead(503).end('starting');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ servers, metadata: {} }));
  });
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
  const dir = tempDir();
  const registry = await createRegistry({
    databasePath: join(dir.path, 'mirror.db'),
    embeddings: 'none',
    logger: silentLogger,
    adminToken: 'mirror-admin',
    imports: { sources: [baseUrl], intervalMs: 3_600_000, retryMs: 20, fetcher },
  });
  try {
    const listed = async () =>
      ((await (await registry.fetch(new Request('http://mirror.test/agents?limit=100'))).json()) as unknown[])
        .length;
    const deadline = Date.now() + 10_000;
    while ((await listed()) < servers.length) {
      assert.ok(Date.now() < deadline, 'the mirrored agents did not arrive');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await listed(), servers.length);
    assert.equal(refusals, 0, 'it was tried again after each refusal');
  } finally {
    await registry.close();
    const after = requests;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(requests, after, 'nothing is fetched once the registry is closed');
    await fetcher.close();
    source.closeAllConnections();
    await new Promise<void>((resolve) => source.close(() => resolve()));
    dir.remove();
  }
});
