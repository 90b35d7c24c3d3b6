/**
 * One agent, one entry, as a user meets it: `agentry host` serves the summarizer example in every format,
 * `agentry register` sends its WoA document and its A2A card to `agentry serve`, `agentry crawl` crawls its origin
 * into the same database, a second publisher tries to register it, and `agentry search` / `agentry resolve` count
 * it — real processes, a real SQLite file, loopback only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentryAsync, agentryServer, type Running, root } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-identity-'));
const db = join(dir, 'registry.db');
const local = ['--allow-http', '--allow-private-network'];

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Source {
  format: string;
  arrived: string;
  by: string;
  verified: boolean;
  url?: string;
}

describe('one agent served in several formats', () => {
  let host: Running;
  let registry: Running;
  let origin: string;
  let url: string;
  let acme: string;
  let globex: string;

  before(async () => {
    host = await agentryServer(['host', join(root, 'examples/summarizer/agent.ts'), '--port', '0', '--json']);
    origin = String(host.ready['baseUrl']);
    registry = await agentryServer(['serve', '--port', '0', '--db', db, '--embeddings', 'none', '--json'], {
      AGENTRY_ADMIN_TOKEN: '',
    });
    url = String(registry.ready['url']);
    const admin = String(registry.ready['adminToken']);
    const mint = async (publisher: string): Promise<string> => {
      const response = await fetch(`${url}/admin/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ publisher }),
      });
      assert.equal(response.status, 201);
      return ((await response.json()) as { token: string }).token;
    };
    acme = await mint('acme');
    globex = await mint('globex');
  });
  after(async () => {
    assert.equal(await registry.stop(), 0);
    assert.equal(await host.stop(), 0);
  });

  const register = (document: string, token: string) =>
    agentryAsync(['register', `${origin}${document}`, '--registry', url, '--token', token, ...local]);

  async function entries(): Promise<Array<{ id: string }>> {
    return (await (await fetch(`${url}/agents`)).json()) as Array<{ id: string }>;
  }

  async function sources(): Promise<Source[]> {
    const metadata = (await (await fetch(`${url}/agents/summarizer`)).json()) as {
      registry: { sources: Source[] };
    };
    return metadata.registry.sources;
  }

  test('its WoA document and its A2A card, registered, are one entry with two sources', async () => {
    const woa = await register('/.well-known/woa.json', acme);
    assert.equal(woa.status, 0, woa.stderr);
    assert.match(woa.stdout, /^registered summarizer \(Document Summarizer\)/);
    const card = await register('/.well-known/agent-card.json', acme);
    assert.equal(card.status, 0, card.stderr);
    assert.match(card.stdout, /summarizer \(Document Summarizer\)/);

    assert.deepEqual(
      (await entries()).map((entry) => entry.id),
      ['summarizer'],
    );
    assert.deepEqual((await sources()).map((source) => [source.format, source.arrived, source.by]).sort(), [
      ['a2a', 'registered', 'acme'],
      ['woa', 'registered', 'acme'],
    ]);
  });

  test('crawling its origin into the same database adds the crawled documents to that entry', async () => {
    const crawl = await agentryAsync([
      'crawl',
      origin,
      '--db',
      db,
      '--embeddings',
      'none',
      '--no-liveness',
      ...local,
    ]);
    assert.equal(crawl.status, 0, crawl.stderr);
    assert.deepEqual(
      (await entries()).map((entry) => entry.id),
      ['summarizer'],
    );
    const crawled = (await sources()).filter((source) => source.arrived === 'crawled');
    assert.ok(crawled.length >= 2, JSON.stringify(crawled));
    assert.ok(crawled.every((source) => source.verified && source.url?.startsWith(`${origin}/`)));
    assert.ok(crawled.some((source) => source.url === `${origin}/.well-known/agent-card.json`));
  });

  test('a second publisher registering it is refused (409), and told why', async () => {
    const refused = await register('/.well-known/agent-card.json', globex);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /409/);
    assert.match(refused.stderr, /already in this registry as "summarizer"/);
    assert.equal((await entries()).length, 1);
  });

  test('search, the AI Catalog and agentry resolve count it once', async () => {
    const found = await agentryAsync(['search', 'summarize English text', '--registry', url, '--json']);
    assert.equal(found.status, 0, found.stderr);
    assert.deepEqual(
      (JSON.parse(found.stdout) as Array<{ id: string }>).map((hit) => hit.id),
      ['summarizer'],
    );
    const catalog = (await (await fetch(`${url}/.well-known/ai-catalog.json`)).json()) as {
      entries: unknown[];
    };
    assert.equal(catalog.entries.length, 1);

    const resolved = await agentryAsync(['resolve', origin, ...local]);
    assert.equal(resolved.status, 0, resolved.stderr);
    assert.match(resolved.stdout, /: 1 agent found/);
  });
});
