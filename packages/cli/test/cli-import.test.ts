/**
 * `agentry import` against real loopback registries: one speaking the official MCP Registry API over records of the
 * shared MCP Registry seed (paged, `updated_since`, deletions), one another Agentry registry. The first import reads
 * everything, the next only what changed, `--full` everything again; the kind is asked of the registry.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createRegistry, OFFICIAL_META, serveRegistry } from '@agentry/registry';
import { agentryAsync, agentryServer, root } from './run-cli.js';

const NETWORK = ['--allow-http', '--allow-private-network'];
const PAGE = 2;

interface Entry {
  server: Record<string, unknown>;
  _meta: Record<string, Record<string, unknown>>;
}

function entry(server: Record<string, unknown>, updatedAt: string, status = 'active'): Entry {
  return { server, _meta: { [OFFICIAL_META]: { status, updatedAt, isLatest: true } } };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('agentry import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-import-'));
  const seed = JSON.parse(
    readFileSync(join(root, '../shared/corpora/mcp-registry/seed.json'), 'utf8'),
  ) as Array<Record<string, unknown>>;
  const entries: Entry[] = seed
    .slice(0, 5)
    .map((server, index) => entry(server, `2025-09-01T00:0${index}:00.000Z`));
  /** The query of every list request, in order. */
  const asked: URLSearchParams[] = [];
  let mcpUrl = '';
  const mcp = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname !== '/v0.1/servers') {
      response.writeHead(404).end();
      return;
    }
    asked.push(url.searchParams);
    const since = url.searchParams.get('updated_since');
    const listed = entries.filter(
      (item) => since === null || String(item._meta[OFFICIAL_META]!['updatedAt']) > since,
    );
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), PAGE);
    const next = start + limit < listed.length ? String(start + limit) : undefined;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        servers: listed.slice(start, start + limit),
        metadata: { count: listed.length, ...(next === undefined ? {} : { nextCursor: next }) },
      }),
    );
  });
  const nowhere = createServer((_request, response) => response.writeHead(404).end());
  let nowhereUrl = '';

  before(async () => {
    mcpUrl = await listen(mcp);
    nowhereUrl = await listen(nowhere);
  });
  after(async () => {
    for (const server of [mcp, nowhere]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const importInto = async (database: string, args: string[]) => {
    const run = await agentryAsync(
      ['import', ...args, '--db', database, '--embeddings', 'none', '--json', ...NETWORK],
      { AGENTRY_ADMIN_TOKEN: 'import-test-admin' },
    );
    return {
      ...run,
      json: run.stdout === '' ? undefined : (JSON.parse(run.stdout) as Record<string, unknown>),
    };
  };

  /** The ids of the agents a registry on `database` lists. */
  async function storedIds(database: string): Promise<string[]> {
    const registry = await createRegistry({
      databasePath: database,
      embeddings: 'none',
      adminToken: 'import-test-admin',
    });
    try {
      const answer = await registry.fetch(new Request('http://registry.test/agents?limit=100'));
      return ((await answer.json()) as Array<{ id: string }>).map((item) => item.id).sort();
    } finally {
      await registry.close();
    }
  }

  test('imports an MCP Registry, then only what changed, then everything with --full', async () => {
    const database = join(dir, 'mcp.db');
    asked.length = 0;
    const first = await importInto(database, [mcpUrl]);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.json?.['kind'], 'mcp-registry');
    assert.equal(first.json?.['imported'], 5);
    assert.equal(first.json?.['pages'], 3);
    assert.equal(first.json?.['latestUpdatedAt'], '2025-09-01T00:04:00.000Z');
    assert.equal(asked.at(-1)?.get('updated_since'), null);
    assert.equal((await storedIds(database)).length, 5);

    // One new server, and one deleted since.
    entries.push(entry(seed[5]!, '2025-09-02T00:00:00.000Z'));
    entries[0] = entry(seed[0]!, '2025-09-02T00:01:00.000Z', 'deleted');
    asked.length = 0;
    const second = await importInto(database, [mcpUrl]);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.json?.['updatedSince'], '2025-09-01T00:04:00.000Z');
    assert.ok(asked.every((query) => query.get('updated_since') === '2025-09-01T00:04:00.000Z'));
    assert.equal(second.json?.['imported'], 1);
    assert.equal(second.json?.['tombstoned'], 1);
    assert.equal((await storedIds(database)).length, 5);

    asked.length = 0;
    const full = await importInto(database, [mcpUrl, '--full']);
    assert.equal(full.status, 0, full.stderr);
    assert.equal(full.json?.['updatedSince'], undefined);
    assert.equal(asked[0]?.get('updated_since'), null);
    assert.equal(full.json?.['imported'], 5);
  });

  test('imports another Agentry registry, found to be one by asking it', async () => {
    const source = await createRegistry({
      databasePath: join(dir, 'source.db'),
      embeddings: 'none',
      adminToken: 'source-admin',
    });
    const served = await serveRegistry(source);
    try {
      for (const [id, name] of [
        ['tides', 'Tide tables'],
        ['ferries', 'Ferry times'],
      ] as const) {
        const document = {
          id,
          name,
          description: `${name} for every harbour.`,
          endpoint: `https://${id}.example.com/invoke`,
          operations: [
            {
              name: 'lookup',
              description: `Looks up ${name.toLowerCase()}.`,
              inputs: { type: 'object', properties: { harbour: { type: 'string' } } },
              outputs: { type: 'object' },
            },
          ],
        };
        const registered = await source.fetch(
          new Request(`${served.url}/agents`, {
            method: 'POST',
            headers: { authorization: 'Bearer source-admin', 'content-type': 'application/json' },
            body: JSON.stringify(document),
          }),
        );
        assert.equal(registered.status, 201, await registered.text());
      }
      const database = join(dir, 'mirror.db');
      const run = await importInto(database, [served.url]);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.json?.['kind'], 'agentry');
      assert.equal(run.json?.['imported'], 2);
      assert.equal((await storedIds(database)).length, 2);
    } finally {
      await served.close();
      await source.close();
    }
  });

  test('agentry serve --import mirrors a registry while it runs', async () => {
    const server = await agentryServer(
      [
        'serve',
        '--port',
        '0',
        '--db',
        join(dir, 'serving.db'),
        '--embeddings',
        'none',
        '--import',
        mcpUrl,
        '--json',
      ],
      {
        AGENTRY_ALLOW_HTTP: '1',
        AGENTRY_ALLOW_PRIVATE_NETWORK: '1',
        AGENTRY_ADMIN_TOKEN: 'import-test-admin',
      },
    );
    try {
      const url = String(server.ready['url']);
      const listed = async () =>
        ((await (await fetch(`${url}/agents?limit=100`)).json()) as unknown[]).length;
      const deadline = Date.now() + 15_000;
      // Every server the source lists as active (one of them was deleted by the first test).
      const active = entries.filter((item) => item._meta[OFFICIAL_META]!['status'] !== 'deleted').length;
      while ((await listed()) < active) {
        assert.ok(Date.now() < deadline, `the import did not arrive: ${server.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await listed(), active);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const usage = await agentryAsync(['serve', '--import', 'ftp://example.com']);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--import needs registry URLs/);
  });

  test('says what it could not read: a URL that is no registry is exit 1, a wrong --kind exit 2', async () => {
    const run = await importInto(join(dir, 'none.db'), [nowhereUrl]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /is neither an MCP Registry \(GET \/v0\.1\/servers\) nor an Agentry registry/);
    const usage = await agentryAsync(['import', mcpUrl, '--kind', 'catalog', ...NETWORK]);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--kind must be mcp-registry or agentry/);
  });
});
