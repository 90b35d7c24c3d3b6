/**
 * Repeated imports of one registry (`registry.importRegistry`): the kind is asked once, each import asks for what
 * changed since the last completed one, and an import that fails half-way moves nothing, so the next starts from
 * the same point.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { OFFICIAL_META } from '../../src/federation/mcp-registry.js';
import { FederationError } from '../../src/federation/paging.js';
import { createRegistry, type Registry } from '../../src/index.js';
import { sharedJson } from '../crawl/support/documents.js';
import { silentLogger, tempDir } from '../support.js';

const seed = sharedJson('corpora', 'mcp-registry', 'seed.json') as Array<Record<string, unknown>>;
const entries = seed.slice(0, 4).map((server, index) => ({
  server,
  _meta: {
    [OFFICIAL_META]: { status: 'active', updatedAt: `2025-10-0${index + 1}T00:00:00Z`, isLatest: true },
  },
}));
const asked: URLSearchParams[] = [];
let failSecondPage = false;
const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://x');
  asked.push(url.searchParams);
  const since = url.searchParams.get('updated_since');
  const listed = entries.filter((item) => since === null || item._meta[OFFICIAL_META]!.updatedAt > since);
  const start = Number(url.searchParams.get('cursor') ?? 0);
  if (start > 0 && failSecondPage) {
    response.writeHead(503).end('busy');
    return;
  }
  const limit = Math.min(Number(url.searchParams.get('limit') ?? 2), 2);
  const next = start + limit < listed.length ? String(start + limit) : undefined;
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      servers: listed.slice(start, start + limit),
      metadata: next === undefined ? {} : { nextCursor: next },
    }),
  );
});
const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
const dir = tempDir();
let registry: Registry;
let baseUrl = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  registry = await createRegistry({
    databasePath: join(dir.path, 'registry.db'),
    embeddings: 'none',
    logger: silentLogger,
    adminToken: 'sync-test-admin',
  });
});
after(async () => {
  await registry.close();
  await fetcher.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  dir.remove();
});

test('asks the kind once, then only for changes; a failed import leaves the next one where it was', async () => {
  asked.length = 0;
  const first = await registry.importRegistry({ baseUrl, fetcher });
  assert.equal(first.kind, 'mcp-registry');
  assert.equal(first.imported, 4);
  assert.equal(first.latestUpdatedAt, '2025-10-04T00:00:00Z');
  assert.equal(asked[0]?.get('limit'), '1', 'the first request asks what the registry is');

  entries.push(
    {
      ...entries[0]!,
      server: seed[4]!,
      _meta: { [OFFICIAL_META]: { status: 'active', updatedAt: '2025-10-05T00:00:00Z', isLatest: true } },
    },
    {
      ...entries[0]!,
      server: seed[5]!,
      _meta: { [OFFICIAL_META]: { status: 'active', updatedAt: '2025-10-06T00:00:00Z', isLatest: true } },
    },
    {
      ...entries[0]!,
      server: seed[6]!,
      _meta: { [OFFICIAL_META]: { status: 'active', updatedAt: '2025-10-07T00:00:00Z', isLatest: true } },
    },
  );
  failSecondPage = true;
  asked.length = 0;
  await assert.rejects(registry.importRegistry({ baseUrl, fetcher }), FederationError);
  assert.ok(
    asked.every((query) => query.get('updated_since') === '2025-10-04T00:00:00Z'),
    'no second detection; changes since the last completed import',
  );

  failSecondPage = false;
  asked.length = 0;
  const again = await registry.importRegistry({ baseUrl, fetcher });
  assert.equal(again.updatedSince, '2025-10-04T00:00:00Z', 'the failed import moved nothing');
  assert.equal(again.imported, 3);
  assert.equal(again.latestUpdatedAt, '2025-10-07T00:00:00Z');
});
