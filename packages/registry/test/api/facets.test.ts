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

/**
 * The counts against a count made here from what was registered, for a population where filters keep a middling
 * share of the agents (as `auth=none` and `language=fr` do at scale) and some agents are restricted: for each
 * caller and filter, every count is that of the agents the caller may see that meet the filter, and it stays so as
 * agents are changed, hidden and deleted.
 */
describe('GET /facets against a count of the registered agents', () => {
  interface Registered {
    id: string;
    owner: 'acme' | 'beta';
    tags: string[];
    auth: 'none' | 'apikey' | 'oauth2';
    languages: string[];
    status: 'active' | 'deprecated';
    groups?: string[];
  }
  interface Caller {
    name: string;
    token?: string;
    publisher?: string;
    groups: string[];
    admin?: boolean;
  }
  const AUTH_TYPES = { apikey: 'api_key', oauth2: 'oauth2_bearer' } as const;
  const FILTERS: ReadonlyArray<Record<string, string>> = [
    {},
    { auth: 'none' },
    { language: 'fr' },
    { language: 'en' },
    { status: 'active', auth: 'none' },
    { tags: 'nlp', language: 'fr' },
  ];
  let r: TestRegistry;
  const tokens: Record<'acme' | 'beta', string> = { acme: '', beta: '' };
  const registered = new Map<string, Registered>();
  const callers: Caller[] = [];

  async function register(agent: Registered): Promise<void> {
    const document = aidipAgent({
      id: agent.id,
      name: `Agent ${agent.id}`,
      tags: agent.tags,
      languages: agent.languages,
      status: agent.status,
    });
    if (agent.auth !== 'none') document['authentication'] = { type: AUTH_TYPES[agent.auth] };
    const answer = await r.request('/agents', {
      token: tokens[agent.owner],
      // Access said each time: a registration without it keeps the access the agent had.
      body: { document, access: agent.groups === undefined ? null : { groups: agent.groups } },
    });
    assert.ok(answer.status === 201 || answer.status === 200, answer.text);
    registered.set(agent.id, agent);
  }

  before(async () => {
    r = await startRegistry();
    tokens.acme = (await r.token('publisher', { publisher: 'acme' })).token;
    tokens.beta = (await r.token('publisher', { publisher: 'beta' })).token;
    const team = (await r.token('client', { groups: ['team'] })).token;
    callers.push(
      { name: 'anonymous', groups: [] },
      { name: 'a client of team', token: team, groups: ['team'] },
      { name: 'publisher beta', token: tokens.beta, publisher: 'beta', groups: [] },
      { name: 'the admin', token: r.admin, groups: [], admin: true },
    );
    for (let index = 0; index < 36; index++) {
      await register({
        id: `mixed-${index}`,
        owner: index % 5 === 0 ? 'beta' : 'acme',
        tags: index % 3 === 0 ? ['nlp', 'cloud'] : index % 3 === 1 ? ['geo'] : ['nlp'],
        auth: index % 5 < 3 ? 'none' : index % 5 === 3 ? 'apikey' : 'oauth2',
        languages: index % 4 === 0 ? ['fr', 'en'] : index % 4 === 1 ? ['en-GB'] : ['de'],
        status: index % 7 === 0 ? 'deprecated' : 'active',
        ...(index % 6 === 0 ? { groups: ['team'] } : index % 8 === 3 ? { groups: ['others'] } : {}),
      });
    }
  });
  after(() => r.close());

  function expected(caller: Caller, filter: Record<string, string>): FacetsAnswer {
    const counts: Record<string, Map<string, number>> = {
      tags: new Map(),
      auth: new Map(),
      languages: new Map(),
      status: new Map(),
    };
    let total = 0;
    for (const agent of registered.values()) {
      const visible =
        caller.admin === true ||
        agent.groups === undefined ||
        agent.owner === caller.publisher ||
        agent.groups.some((group) => caller.groups.includes(group));
      // A language counts, and filters, under its tag and its primary subtag.
      const languages = [
        ...new Set(agent.languages.flatMap((tag) => [tag.toLowerCase(), tag.split('-')[0]!.toLowerCase()])),
      ];
      const meets =
        (filter['auth'] === undefined || agent.auth === filter['auth']) &&
        (filter['language'] === undefined || languages.includes(filter['language'])) &&
        (filter['status'] === undefined || agent.status === filter['status']) &&
        (filter['tags'] === undefined || agent.tags.includes(filter['tags']));
      if (!visible || !meets) continue;
      total++;
      const add = (facet: string, values: string[]) => {
        for (const value of values) counts[facet]!.set(value, (counts[facet]!.get(value) ?? 0) + 1);
      };
      add('tags', agent.tags);
      add('auth', [agent.auth]);
      add('languages', languages);
      add('status', [agent.status]);
    }
    const sorted = (map: Map<string, number>) =>
      [...map]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
    return {
      total,
      facets: Object.fromEntries(Object.entries(counts).map(([facet, map]) => [facet, sorted(map)])),
    };
  }

  async function assertCounts(moment: string): Promise<void> {
    for (const caller of callers) {
      for (const filter of FILTERS) {
        const query = new URLSearchParams(filter).toString();
        const answer = await r.request(
          `/facets?${query}`,
          caller.token === undefined ? {} : { token: caller.token },
        );
        assert.equal(answer.status, 200, answer.text);
        const body = answer.json as FacetsAnswer;
        const want = expected(caller, filter);
        const where = `${moment}: ${caller.name}, ?${query}`;
        assert.equal(body.total, want.total, where);
        for (const facet of ['tags', 'auth', 'languages', 'status'])
          assert.deepEqual(body.facets[facet], want.facets[facet], `${where}, ${facet}`);
      }
    }
  }

  test('each caller counts the agents it may see that meet the filter', async () => {
    await assertCounts('as registered');
  });

  test('changed, newly hidden and deleted agents count as they are now', async () => {
    // A public agent is hidden, a restricted one made public, another's tags and auth changed, one deleted.
    const hidden = registered.get('mixed-1')!;
    await register({ ...hidden, groups: ['others'] });
    const opened = registered.get('mixed-6')!;
    const { groups: _groups, ...open } = opened;
    await register(open);
    await register({ ...registered.get('mixed-2')!, tags: ['geo', 'fresh'], auth: 'oauth2' });
    const deleted = await r.request('/agents/mixed-4', { method: 'DELETE', token: tokens.acme });
    assert.equal(deleted.status, 204, deleted.text);
    registered.delete('mixed-4');
    await assertCounts('after the writes');
  });
});
