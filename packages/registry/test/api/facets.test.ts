/**
 * GET /facets: the counts beside a search's filters. Each facet counts the agents the caller may see within the
 * filters (a restricted agent counts only for those who may see it), most frequent first; a write shows in the next
 * answer; bad parameters are a 400 that names them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { aidipAgent, startRegistry, type TestRegistry } from '../support.js';

interface FacetsAnswer {
  total: number;
  facets: Record<string, Array<{ value: string; count: number }>>;
}

describe('GET /facets', () => {
  let r: TestRegistry;
  let acme: string;

  before(async () => {
    r = await startRegistry();
    acme = (await r.token('publisher', { publisher: 'acme' })).token;
    const register = async (document: unknown) => {
      const answer = await r.request('/agents', { token: acme, body: document });
      assert.equal(answer.status, 201, answer.text);
    };
    for (let index = 0; index < 6; index++) {
      await register(
        aidipAgent({
          id: `agent-${index}`,
          name: `Agent ${index}`,
          tags: index < 4 ? ['nlp', 'cloud'] : ['cloud'],
          capabilities: index % 2 === 0 ? ['translation'] : ['summarization'],
          languages: index === 0 ? ['en-GB'] : ['de'],
          ...(index === 5 ? { status: 'deprecated' } : {}),
        }),
      );
    }
    await register({
      document: aidipAgent({ id: 'hidden', name: 'Hidden', tags: ['secret-tag'] }),
      access: { groups: ['team'] },
    });
  });
  after(() => r.close());

  async function facets(query = '', token?: string): Promise<FacetsAnswer> {
    const answer = await r.request(`/facets${query}`, token === undefined ? {} : { token });
    assert.equal(answer.status, 200, answer.text);
    return answer.json as FacetsAnswer;
  }

  test('counts each value among the agents the caller may see, most frequent first', async () => {
    const body = await facets();
    assert.equal(body.total, 6);
    assert.deepEqual(body.facets['tags'], [
      { value: 'cloud', count: 6 },
      { value: 'nlp', count: 4 },
    ]);
    assert.deepEqual(body.facets['capabilities'], [
      { value: 'summarization', count: 3 },
      { value: 'translation', count: 3 },
    ]);
    assert.deepEqual(body.facets['status'], [
      { value: 'active', count: 5 },
      { value: 'deprecated', count: 1 },
    ]);
    assert.deepEqual(body.facets['sources'], [{ value: 'registered', count: 6 }]);
    assert.deepEqual(body.facets['formats'], [{ value: 'aidip', count: 6 }]);
    // A language counts under its tag and its primary subtag, as the language filter matches.
    assert.deepEqual(body.facets['languages']?.map((item) => item.value).sort(), ['de', 'en', 'en-gb']);
  });

  test('the filters narrow every count', async () => {
    const body = await facets('?tags=nlp&capabilities=translation');
    assert.equal(body.total, 2);
    assert.deepEqual(body.facets['tags'], [
      { value: 'cloud', count: 2 },
      { value: 'nlp', count: 2 },
    ]);
    assert.deepEqual(body.facets['capabilities'], [{ value: 'translation', count: 2 }]);
    assert.equal((await facets('?status=deprecated')).total, 1);
  });

  test('a restricted agent counts for the admin and its group only', async () => {
    assert.ok(!(await facets()).facets['tags']?.some((item) => item.value === 'secret-tag'));
    const team = (await r.token('client', { groups: ['team'] })).token;
    const seen = await facets('', team);
    assert.equal(seen.total, 7);
    assert.deepEqual(
      seen.facets['tags']?.find((item) => item.value === 'secret-tag'),
      { value: 'secret-tag', count: 1 },
    );
    assert.equal((await facets('', r.admin)).total, 7);
  });

  test('limit keeps the most frequent values of each facet, and a write shows at once', async () => {
    assert.deepEqual((await facets('?limit=1')).facets['tags'], [{ value: 'cloud', count: 6 }]);
    const created = await r.request('/agents', {
      token: acme,
      body: aidipAgent({ id: 'agent-new', name: 'New', tags: ['nlp'] }),
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((await facets('?tags=nlp')).total, 5);
  });

  test('source and format filter the counts and the listing (any of their values)', async () => {
    const card = {
      name: 'Tide Tables',
      description: 'Tide times for harbours.',
      version: '1.0.0',
      protocolVersion: '0.3.0',
      url: 'https://tides.example.com/a2a',
      preferredTransport: 'JSONRPC',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 'tides', name: 'Tides', description: 'Tide times.', tags: ['tides'] }],
    };
    const created = await r.request('/agents', { token: acme, body: card });
    assert.equal(created.status, 201, created.text);
    const a2a = await facets('?format=a2a');
    assert.equal(a2a.total, 1);
    assert.deepEqual(a2a.facets['formats'], [{ value: 'a2a', count: 1 }]);
    assert.equal((await facets('?format=a2a,aidip')).total, (await facets()).total);
    assert.equal((await facets('?source=crawled')).total, 0);
    assert.equal((await facets('?source=registered')).total, (await facets()).total);
    const listed = await r.request('/agents?format=A2A&source=registered');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json as Array<{ name: string }>).map((agent) => agent.name),
      ['Tide Tables'],
    );
    const searched = await r.request('/agents?q=tide+times&format=aidip');
    assert.equal(searched.status, 200, searched.text);
    assert.deepEqual(searched.json, []);
    const bad = await r.request('/agents?source=mailed');
    assert.equal(bad.status, 400);
    assert.equal(
      (bad.json as { detail: string }).detail,
      '"source" is one of registered, crawled, imported; got "mailed".',
    );
  });

  test('transport and auth count and filter by how the agents are called (any of their values)', async () => {
    const body = await facets();
    assert.deepEqual(
      body.facets['transports']?.find((item) => item.value === 'a2a'),
      { value: 'a2a', count: 1 },
    );
    assert.deepEqual(body.facets['auth'], [{ value: 'none', count: body.total }]);
    assert.equal((await facets('?transport=a2a')).total, 1);
    assert.equal((await facets('?auth=oauth2')).total, 0);
    assert.equal((await facets('?auth=NONE')).total, body.total);
    const listed = await r.request('/agents?transport=a2a');
    assert.deepEqual(
      (listed.json as Array<{ name: string }>).map((agent) => agent.name),
      ['Tide Tables'],
    );
  });

  test('a text query narrows the counts to the agents its ranking holds', async () => {
    const tides = await facets('?q=tide+times+harbours');
    assert.equal(tides.total, 1);
    assert.equal(tides['ranked' as keyof FacetsAnswer], 500);
    assert.deepEqual(tides.facets['formats'], [{ value: 'a2a', count: 1 }]);
    assert.deepEqual(tides.facets['sources'], [{ value: 'registered', count: 1 }]);
    // With the filters too; and a query nothing matches counts nothing.
    assert.equal((await facets('?q=tide+times+harbours&format=aidip')).total, 0);
    const none = await facets('?q=zzzqqq');
    assert.equal(none.total, 0);
    assert.deepEqual(none.facets['tags'], []);
  });

  test('an unknown parameter or a bad limit is a 400 that names it', async () => {
    const unknown = await r.request('/facets?text=weather');
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /Unknown query parameter \\"text\\"; GET \/facets takes/);
    const limit = await r.request('/facets?limit=0');
    assert.equal(limit.status, 400);
    assert.match(limit.text, /limit/);
  });
});
