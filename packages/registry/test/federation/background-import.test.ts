/**
 * A registry mirroring another while it runs (`imports`): a source that is down at first is tried again and
 * imported once it answers, without a restart; each run, failed or done, is recorded and GET /imports shows the
 * last; closing the registry stops the mirroring.
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

    // The operator console's view (GET /imports): the source, its entries, and its last run; the failed runs
    // before it are in the audit log, with why.
    const admin = { authorization: 'Bearer mirror-admin' };
    const read = async (path: string) =>
      (await (await registry.fetch(new Request(`http://mirror.test${path}`, { headers: admin }))).json()) as {
        imports?: Array<Record<string, unknown>>;
        entries?: Array<{ details: Record<string, unknown> }>;
      };
    let source: Record<string, unknown> | undefined;
    while (source?.['last_run'] === undefined || (source['last_run'] as { ok: boolean }).ok !== true) {
      assert.ok(Date.now() < deadline, `the run was not recorded: ${JSON.stringify(source)}`);
      source = (await read('/imports')).imports?.[0];
      if (source?.['last_run'] === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(source['base_url'], baseUrl);
    assert.equal(source['kind'], 'mcp-registry');
    assert.equal(source['agents'], servers.length);
    assert.match(String(source['last_imported_at']), /^\d{4}-/);
    assert.deepEqual(
      { ...(source['last_run'] as object), at: undefined },
      { at: undefined, ok: true, imported: servers.length, deleted: 0, skipped: 0, unreadable: 0 },
    );
    const runs = (await read('/admin/audit?action=import.run')).entries ?? [];
    const failed = runs.filter((entry) => entry.details['ok'] === false);
    // The first run asked twice (is it an MCP Registry, an Agentry registry?) and was refused both times.
    assert.equal(failed.length, 1, JSON.stringify(runs));
    assert.match(String(failed[0]?.details['error']), /answered HTTP 503: starting/);
    const anonymous = await registry.fetch(new Request('http://mirror.test/imports'));
    assert.equal(anonymous.status, 401);
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
