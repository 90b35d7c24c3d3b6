/**
 * Ranking demotes what a caller should not pick first, end to end on a real registry: a crawled agent that does not
 * answer its liveness probe ranks below an equal one that does, a synthetic description below a native one, and
 * search and resolve both say why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { crawledId } from '../../src/crawler.js';
import { cacheable, type Fleet, startFleet } from '../crawl/support/fleet.js';
import { asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

let fleet: Fleet;
let r: TestRegistry;
before(async () => {
  fleet = await startFleet();
  r = await startRegistry({ crawl: { enabled: false, fetcher: fleet.fetcher({ timeoutMs: 2000 }) } });
});
after(async () => {
  await r.close();
  await fleet.close();
});

/** An A2A card for the same tide-table agent; its interface lives at `endpointHost` (probed for liveness). */
function tideCard(endpointHost: string): Record<string, unknown> {
  const endpoint = `${fleet.origin(endpointHost)}/a2a`;
  return {
    name: 'Tide tables',
    description: 'Tide times and heights for harbours along the coast.',
    version: '1.0.0',
    protocolVersion: '0.3.0',
    url: endpoint,
    preferredTransport: 'JSONRPC',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'tides', name: 'Tides', description: 'Tide times for a harbour', tags: ['tides'] }],
  };
}

describe('standing in search and resolve', () => {
  test('an agent that does not answer its liveness probe ranks below one that does', async () => {
    // live.test serves its card where the card says its interface is; dead.test's card points at an origin that
    // answers nothing (404 on every path).
    fleet.route('live.test', '/.well-known/agent-card.json', cacheable(tideCard('live.test'), '"l1"'));
    fleet.route('dead.test', '/.well-known/agent-card.json', cacheable(tideCard('gone.test'), '"d1"'));
    // dead.test is crawled first, so without demotion it would win the tie.
    for (const origin of [fleet.origin('dead.test'), fleet.origin('live.test')]) {
      assert.equal((await r.request('/hosts', { body: { origin }, token: r.admin })).status, 201);
    }
    const summary = await r.registry.crawler.runOnce();
    assert.equal(summary.failed, 0);

    const live = crawledId(fleet.origin('live.test'), 'tide-tables');
    const dead = crawledId(fleet.origin('dead.test'), 'tide-tables');
    const found = asArray(
      (await r.request('/agents/search', { body: { query: 'tide times for a harbour', top: 5 } })).json,
    );
    assert.deepEqual(
      found.map((hit) => hit['id']),
      [live, dead],
    );
    const why = asArray(found[1]!['why']).map(String);
    assert.ok(
      why.some((line) => line.startsWith('ranked lower: did not answer its liveness probe')),
      why.join(' | '),
    );

    const resolved = asObject(
      (await r.request('/resolve', { body: { intent: 'tide times for a harbour' }, token: r.admin })).json,
    );
    const candidates = asArray(resolved['candidates']);
    assert.deepEqual(
      candidates.map((candidate) => candidate['id']),
      [live, dead],
    );
    const resolvedWhy = asArray(candidates[1]!['why']).map(String);
    assert.equal(
      resolvedWhy.filter((line) => line.startsWith('ranked lower: did not answer')).length,
      1,
      'told once, not by search and resolve each',
    );
  });

  test('a synthetic description ranks below a native one that says the same', async () => {
    const publisher = (await r.token('publisher', { publisher: 'acme' })).token;
    const surface = (domain: string, synthetic: boolean): Record<string, unknown> => ({
      awp_version: '0.1',
      domain,
      intent: 'Convert currencies at today’s exchange rates.',
      actions: [
        {
          id: 'convert',
          description: 'Convert an amount between two currencies',
          method: 'GET',
          endpoint: '/convert',
          inputs: { amount: { type: 'float', required: true }, to: { type: 'string', required: true } },
          outputs: { amount: 'float' },
          auth_required: false,
        },
      ],
      ...(synthetic
        ? {
            source: 'synthetic',
            generated_by: 'openapi-importer',
            confidence: 0.6,
            last_verified: '2026-11-01T00:00:00Z',
          }
        : {}),
    });
    // The synthetic one registers first, so without demotion it would win the tie.
    const synthetic = await r.request('/agents', {
      body: surface('fx-mirror.example', true),
      token: publisher,
    });
    assert.equal(synthetic.status, 201, synthetic.text);
    const native = await r.request('/agents', { body: surface('fx.example', false), token: publisher });
    assert.equal(native.status, 201, native.text);
    const found = asArray(
      (await r.request('/agents/search', { body: { query: 'convert currencies exchange rates', top: 5 } }))
        .json,
    );
    assert.deepEqual(
      found.map((hit) => hit['id']),
      [asObject(native.json)['id'], asObject(synthetic.json)['id']],
    );
    assert.ok(
      asArray(found[1]!['why'])
        .map(String)
        .includes('ranked lower: synthetic description (generated by openapi-importer)'),
      JSON.stringify(found[1]!['why']),
    );
  });
});
