/**
 * Federation against real loopback servers: one speaking the official MCP Registry API over the records of the
 * shared MCP Registry seed (paged with cursors, `updated_since`, statuses), one speaking another Agentry
 * registry's `GET /agents?updated_since=` with tombstones.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createSecureFetcher, type SecureFetcher } from '@agentry/client';
import { convertDocument, type JsonObject } from '@agentry/core';
import { importAgentryRegistry } from '../../src/federation/agentry-registry.js';
import { importMcpRegistry, OFFICIAL_META } from '../../src/federation/mcp-registry.js';
import { FederationError } from '../../src/federation/paging.js';
import { openTestDatabase, type TestDatabase } from '../crawl/support/db.js';
import { exampleJson, sharedJson } from '../crawl/support/documents.js';

let database: TestDatabase;
let fetcher: SecureFetcher;

before(() => {
  fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
});
after(async () => {
  await fetcher.close();
});
beforeEach(async () => {
  database = await openTestDatabase();
});
afterEach(async () => {
  await database.remove();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

interface McpEntry {
  server: JsonObject;
  _meta: Record<string, JsonObject>;
}

/** The seed's records as registry list entries, each updated a minute after the previous one. */
function mcpEntries(): McpEntry[] {
  const seed = sharedJson('corpora', 'mcp-registry', 'seed.json') as JsonObject[];
  const start = Date.parse('2025-09-01T00:00:00Z');
  const entries: McpEntry[] = seed.map((server, index) => ({
    server,
    _meta: {
      [OFFICIAL_META]: {
        status: index === 3 ? 'deleted' : index === 4 ? 'deprecated' : 'active',
        publishedAt: new Date(start).toISOString(),
        updatedAt: new Date(start + index * 60_000).toISOString(),
        isLatest: true,
      },
    },
  }));
  // An older version of the first server, which an import must skip.
  entries.push({
    server: { ...seed[0]!, version: '0.0.0-old' },
    _meta: { [OFFICIAL_META]: { status: 'active', updatedAt: '2025-08-01T00:00:00Z', isLatest: false } },
  });
  return entries;
}

/** GET /v0.1/servers, cursor = the last name of the previous page, ordered by name. */
function mcpRegistry(
  entries: McpEntry[],
  options: { stuckCursor?: boolean } = {},
): { server: Server; pages: string[] } {
  const pages: string[] = [];
  const sorted = [...entries].sort((a, b) =>
    `${a.server['name']}${a.server['version']}`.localeCompare(`${b.server['name']}${b.server['version']}`),
  );
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname !== '/v0.1/servers') {
      response.writeHead(404).end();
      return;
    }
    pages.push(url.search);
    const limit = Number(url.searchParams.get('limit') ?? 30);
    const cursor = url.searchParams.get('cursor');
    const since = url.searchParams.get('updated_since');
    const matching = sorted.filter(
      (entry) =>
        since === null || Date.parse(entry._meta[OFFICIAL_META]!['updatedAt'] as string) >= Date.parse(since),
    );
    const start = cursor === null ? 0 : matching.findIndex((entry) => keyOf(entry) === cursor) + 1;
    const page = matching.slice(start, start + limit);
    const last = page.at(-1);
    const more = start + limit < matching.length && last !== undefined;
    const metadata: JsonObject = { count: page.length };
    if (more) metadata['nextCursor'] = options.stuckCursor ? 'stuck' : keyOf(last);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ servers: page, metadata }));
  });
  return { server, pages };
}

function keyOf(entry: McpEntry): string {
  return `${entry.server['name']}@${entry.server['version']}`;
}

describe('importMcpRegistry', () => {
  test('imports every record of the seed through the cursor pages, honouring statuses', async () => {
    const entries = mcpEntries();
    const registry = mcpRegistry(entries);
    const baseUrl = await listen(registry.server);
    try {
      const summary = await importMcpRegistry({ baseUrl, fetcher, sink: database.sink, limit: 50 });
      const records = entries.length - 1;
      assert.equal(summary.pages, Math.ceil(entries.length / 50));
      assert.equal(summary.imported, records - 1);
      assert.equal(summary.tombstoned, 1);
      assert.equal(summary.skipped, 1);
      assert.deepEqual(summary.problems, []);
      assert.equal(summary.origin, baseUrl);
      assert.equal(summary.latestUpdatedAt, entries[records - 1]!._meta[OFFICIAL_META]!['updatedAt']);
      const stored = database.sink.agents(baseUrl);
      assert.equal(stored.length, records - 1);
      const first = stored.find((agent) => agent.agentId === entries[0]!.server['name']);
      assert.ok(first);
      assert.equal(
        first.crawled.agent.version,
        entries[0]!.server['version'],
        'the latest version, not the old one',
      );
      const binding = first.crawled.agent.bindings.find((candidate) => candidate.kind === 'mcp');
      assert.ok(binding?.kind === 'mcp' && binding.package !== undefined);
      assert.equal(first.crawled.sources[0]?.format, 'mcp');
      const deprecated = stored.find((agent) => agent.agentId === entries[4]!.server['name']);
      assert.equal(deprecated?.crawled.agent.status?.state, 'deprecated');
    } finally {
      await close(registry.server);
    }
  });

  test('updated_since imports only what changed since', async () => {
    const entries = mcpEntries();
    const registry = mcpRegistry(entries);
    const baseUrl = await listen(registry.server);
    try {
      const since = entries[350]!._meta[OFFICIAL_META]!['updatedAt'] as string;
      const summary = await importMcpRegistry({ baseUrl, fetcher, sink: database.sink, updatedSince: since });
      assert.equal(summary.imported, entries.length - 1 - 350);
      assert.ok(
        registry.pages.every((query) => query.includes(`updated_since=${encodeURIComponent(since)}`)),
      );
    } finally {
      await close(registry.server);
    }
  });

  test('a registry that repeats its cursor is stopped with an error', async () => {
    const registry = mcpRegistry(mcpEntries(), { stuckCursor: true });
    const baseUrl = await listen(registry.server);
    try {
      await assert.rejects(
        importMcpRegistry({ baseUrl, fetcher, sink: database.sink, limit: 100 }),
        (error: unknown) => error instanceof FederationError && /a second time/.test(error.message),
      );
      assert.equal(registry.pages.length, 2);
    } finally {
      await close(registry.server);
    }
  });

  test('an answer that is not a server list is an error naming the URL', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"items": []}');
    });
    const baseUrl = await listen(server);
    try {
      await assert.rejects(
        importMcpRegistry({ baseUrl, fetcher, sink: database.sink }),
        (error: unknown) => error instanceof FederationError && error.url.startsWith(baseUrl),
      );
    } finally {
      await close(server);
    }
  });
});

interface Listed {
  id: string;
  updatedAt: string;
  deleted?: boolean;
  metadata?: JsonObject;
}

/** Another Agentry registry: `GET /agents?updated_since=&cursor=&limit=` (summaries), `GET /agents/{id}`. */
function agentryRegistry(listing: () => Listed[]): { server: Server; detailRequests: string[] } {
  const detailRequests: string[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const items = [...listing()].sort(
      (a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id.localeCompare(b.id),
    );
    if (url.pathname === '/agents') {
      const since = url.searchParams.get('updated_since');
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      const matching = items.filter((item) => since === null || item.updatedAt >= since);
      const page = matching.slice(offset, offset + limit).map((item) =>
        item.deleted
          ? { id: item.id, deleted: true, deleted_at: item.updatedAt }
          : {
              id: item.id,
              name: item.metadata?.['name'],
              description: item.metadata?.['description'],
              endpoint: item.metadata?.['endpoint'],
              updated_at: item.updatedAt,
            },
      );
      const next = offset + limit < matching.length ? String(offset + limit) : undefined;
      json(200, next === undefined ? { agents: page } : { agents: page, next_cursor: next });
      return;
    }
    const id = decodeURIComponent(url.pathname.replace(/^\/agents\//, ''));
    detailRequests.push(id);
    const item = items.find((candidate) => candidate.id === id && !candidate.deleted);
    if (item === undefined) json(404, { error: { code: 'not_found', message: 'no such agent' } });
    else json(200, item.metadata);
  });
  return { server, detailRequests };
}

describe('importAgentryRegistry', () => {
  test('syncs every agent, then only what changed since, with tombstones honoured', async () => {
    const aidip = convertDocument(exampleJson('summarizer.woa.json'), 'aidip', {
      baseUrl: 'https://peer.example',
    }).output?.document as JsonObject[];
    const listed: Listed[] = Array.from({ length: 25 }, (_, i) => ({
      id: `agent-${String(i).padStart(2, '0')}`,
      updatedAt: `2026-11-01T00:00:${String(i).padStart(2, '0')}Z`,
      metadata: { ...aidip[i % 2]!, id: `agent-${String(i).padStart(2, '0')}` },
    }));
    const peer = agentryRegistry(() => listed);
    const baseUrl = await listen(peer.server);
    try {
      const full = await importAgentryRegistry({ baseUrl, fetcher, sink: database.sink, limit: 10 });
      assert.equal(full.pages, 3);
      assert.equal(full.imported, 25);
      assert.deepEqual(full.problems, []);
      assert.equal(peer.detailRequests.length, 25, 'summaries are completed from GET /agents/{id}');
      const stored = database.sink.agents(baseUrl);
      assert.equal(stored.length, 25);
      assert.equal(stored[0]?.crawled.agent.operations.length, 1);
      assert.equal(stored[0]?.crawled.sources[0]?.format, 'aidip');

      listed[3] = { id: listed[3]!.id, updatedAt: '2026-11-02T00:00:00Z', deleted: true };
      listed[4] = {
        ...listed[4]!,
        updatedAt: '2026-11-02T00:00:01Z',
        metadata: { ...listed[4]!.metadata!, description: 'New.' },
      };
      const incremental = await importAgentryRegistry({
        baseUrl,
        fetcher,
        sink: database.sink,
        updatedSince: full.latestUpdatedAt!,
        limit: 10,
      });
      assert.equal(incremental.tombstoned, 1);
      assert.equal(
        incremental.imported,
        2,
        'the changed agent, and the last one of the full sync (updated_since is inclusive)',
      );
      assert.equal(database.sink.agent(baseUrl, listed[3]!.id)?.state, 'tombstoned');
      assert.equal(database.sink.agent(baseUrl, listed[4]!.id)?.crawled.agent.description, 'New.');
      assert.equal(incremental.latestUpdatedAt, '2026-11-02T00:00:01Z');
    } finally {
      await close(peer.server);
    }
  });

  test('an agent whose metadata cannot be read is a problem, not a failed import', async () => {
    const peer = agentryRegistry(() => [
      { id: 'broken', updatedAt: '2026-11-01T00:00:00Z', metadata: { nothing: 'here' } },
    ]);
    const baseUrl = await listen(peer.server);
    try {
      const summary = await importAgentryRegistry({ baseUrl, fetcher, sink: database.sink });
      assert.equal(summary.imported, 0);
      assert.equal(summary.problems.length, 1);
      assert.equal(summary.problems[0]?.id, 'broken');
    } finally {
      await close(peer.server);
    }
  });
});
