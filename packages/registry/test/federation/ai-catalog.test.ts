/** The AI Catalog this registry serves: public agents only, in the shape the crawler itself reads back. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readDocument } from '@agentry/core';
import { crawlOrigin } from '../../src/crawl/origin.js';
import { aiCatalog } from '../../src/federation/ai-catalog.js';
import type { RegistryRecord } from '../../src/records/types.js';
import { emitted } from '../crawl/support/documents.js';
import { type Fleet, startFleet } from '../crawl/support/fleet.js';

let fleet: Fleet;
before(async () => {
  fleet = await startFleet();
});
after(async () => {
  await fleet.close();
});

function records(origin: string): RegistryRecord[] {
  const agents = readDocument(emitted(origin, 'woa')[0]).agents;
  const base = {
    owner: 'admin',
    flags: [],
    quality: { ratings: 0, invocations: 0, failures: 0, verified: false },
    revision: 1,
    createdAt: '2026-11-21T00:00:00Z',
    updatedAt: '2026-11-21T00:00:00Z',
  };
  return [
    { ...base, id: 'summarizer', agent: agents[0]!, status: 'active' },
    { ...base, id: 'keywords', agent: agents[1]!, status: 'active' },
    {
      ...base,
      id: 'secret',
      agent: { ...agents[0]!, id: 'secret' },
      status: 'active',
      access: { groups: ['staff'] },
    },
    { ...base, id: 'old', agent: { ...agents[0]!, id: 'old' }, status: 'retired' },
  ];
}

test('lists public agents only, each linking to its A2A card', () => {
  const catalog = aiCatalog(records('https://registry.example.com'), {
    baseUrl: 'https://registry.example.com/',
  });
  assert.equal(catalog['specVersion'], '1.0');
  assert.deepEqual(catalog['host'], {
    displayName: 'registry.example.com',
    identifier: 'https://registry.example.com',
  });
  const entries = catalog['entries'] as Array<Record<string, unknown>>;
  assert.deepEqual(
    entries.map((entry) => entry['url']),
    [
      'https://registry.example.com/agents/summarizer?format=a2a',
      'https://registry.example.com/agents/keywords?format=a2a',
    ],
  );
  assert.deepEqual(entries[0], {
    identifier: 'urn:agentry:registry.example.com:agent:summarizer',
    displayName: 'Summarizer',
    type: 'application/a2a-agent-card+json',
    url: 'https://registry.example.com/agents/summarizer?format=a2a',
    updatedAt: '2026-11-21T00:00:00Z',
    description: 'Turns a long English text into a short summary.',
    version: '1.0.0',
    capabilities: ['urn:agentry:capability:summarization'],
  });
});

test('the crawler reads the catalog it serves and the cards it links to', async () => {
  const name = 'registry.test';
  const origin = fleet.origin(name);
  const [summarizer, keywords] = emitted(origin, 'a2a');
  fleet.route(name, '/.well-known/ai-catalog.json', {
    json: aiCatalog(records(origin), { baseUrl: origin }),
  });
  // Query strings are not part of a route's path: both cards are served by one handler.
  fleet.route(name, '/agents/summarizer', { json: summarizer });
  fleet.route(name, '/agents/keywords', { json: keywords });
  const crawl = await crawlOrigin(origin, { fetcher: fleet.fetcher() });
  assert.deepEqual(
    crawl.agents.map((agent) => [agent.id, agent.sources.map((source) => source.format)]),
    [
      ['keyword-extractor', ['a2a']],
      ['summarizer', ['a2a']],
    ],
  );
  assert.ok(!fleet.requests(name).some((request) => request.includes('secret')));
});
