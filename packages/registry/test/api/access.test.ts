/**
 * Access control over HTTP: entitlements never leak through any endpoint (table-driven), admin tokens and the
 * audit log, rate limits with Retry-After, and the per-publisher quota.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Answer, aidipAgent, asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

/** A word only the restricted agent's text has, so searches would find it if it leaked. */
const SECRET_WORD = 'zygomorphic';

describe('entitlements', () => {
  let r: TestRegistry;
  let since: string;
  const tokens: Record<string, string> = {};

  before(async () => {
    r = await startRegistry();
    tokens['owner'] = (await r.token('publisher', { publisher: 'acme' })).token;
    tokens['member'] = (await r.token('client', { groups: ['finance'] })).token;
    tokens['memberPublisher'] = (
      await r.token('publisher', { publisher: 'initech', groups: ['finance'] })
    ).token;
    tokens['outsider'] = (await r.token('client', { groups: ['hr'] })).token;
    tokens['otherPublisher'] = (await r.token('publisher', { publisher: 'globex', groups: ['hr'] })).token;
    since = new Date(Date.now() - 60_000).toISOString();
    const secret = await r.request('/agents', {
      token: tokens['owner'],
      body: {
        document: aidipAgent({
          id: 'ledger',
          name: 'Ledger keeper',
          description: `Keeps the ${SECRET_WORD} ledger of the finance team.`,
          tags: [SECRET_WORD],
          capabilities: ['bookkeeping'],
        }),
        access: { groups: ['finance'] },
      },
    });
    assert.equal(secret.status, 201, secret.text);
    // A public agent with the same word: the searches below must return it, and only it.
    const visible = await r.request('/agents', {
      token: tokens['owner'],
      body: aidipAgent({
        id: 'notes',
        name: 'Notes',
        description: `Public ${SECRET_WORD} notes.`,
        tags: [SECRET_WORD],
      }),
    });
    assert.equal(visible.status, 201, visible.text);
  });
  after(() => r.close());

  /** Each endpoint, asked about the restricted agent and about one that never existed. */
  const probes: Array<[string, (id: string, token: string | undefined) => Promise<Answer>]> = [
    ['GET /agents/{id}', (id, token) => r.request(`/agents/${id}`, req(token))],
    ['GET /agents/{id}?format=woa', (id, token) => r.request(`/agents/${id}?format=woa`, req(token))],
    ['GET /agents/{id}/history', (id, token) => r.request(`/agents/${id}/history`, req(token))],
    [
      'PUT /agents/{id}',
      (id, token) =>
        r.request(`/agents/${id}`, {
          ...req(token),
          method: 'PUT',
          body: aidipAgent({ name: 'Taken over' }),
        }),
    ],
    ['DELETE /agents/{id}', (id, token) => r.request(`/agents/${id}`, { ...req(token), method: 'DELETE' })],
    [
      'POST /agents/{id}/feedback',
      (id, token) =>
        r.request(`/agents/${id}/feedback`, { ...req(token), body: { rating: 1, outcome: 'failure' } }),
    ],
    [
      'POST /agents/{id}/invoke',
      (id, token) => r.request(`/agents/${id}/invoke`, { ...req(token), body: { input: { text: 'x' } } }),
    ],
  ];

  const outsiders = ['anonymous', 'outsider', 'otherPublisher'];

  for (const who of outsiders) {
    for (const [name, probe] of probes) {
      test(`${name} answers ${who} as if the agent did not exist`, async () => {
        const token = tokens[who];
        const hidden = await probe('ledger', token);
        const missing = await probe('never-was', token);
        assert.equal(hidden.status, missing.status, hidden.text);
        assert.equal(
          hidden.text.replaceAll('ledger', 'ID'),
          missing.text.replaceAll('never-was', 'ID'),
          'the same answer, word for word',
        );
      });
    }

    test(`listings, searches, resolution and mirrors leave the agent out for ${who}`, async () => {
      const ids = await everyListing(tokens[who]);
      for (const [where, found] of Object.entries(ids)) {
        assert.ok(!found.includes('ledger'), `${where} leaked it: ${found.join(', ')}`);
      }
      assert.ok(ids['GET /agents?q=']!.includes('notes'), 'the public agent is found, so the search did run');
    });
  }

  for (const who of ['member', 'memberPublisher', 'owner']) {
    test(`${who} sees the agent everywhere`, async () => {
      const token = tokens[who];
      assert.equal((await r.request('/agents/ledger', req(token))).status, 200);
      const ids = await everyListing(token);
      for (const [where, found] of Object.entries(ids)) {
        assert.ok(found.includes('ledger'), `${where}: ${found.join(', ')}`);
      }
    });
  }

  test('a member can leave feedback but not change the agent; the tombstone stays hidden', async () => {
    const feedback = await r.request('/agents/ledger/feedback', {
      token: tokens['member'],
      body: { rating: 4, outcome: 'success', comment: 'Balanced.' },
    });
    assert.equal(feedback.status, 201, feedback.text);
    assert.equal(asObject(feedback.json)['ratings'], 1);
    assert.equal(
      (await r.request('/agents/ledger', { method: 'DELETE', token: tokens['memberPublisher'] })).status,
      403,
    );
    assert.equal(
      (await r.request('/agents/ledger', { method: 'DELETE', token: tokens['owner'] })).status,
      204,
    );
    const changes = async (token: string | undefined) =>
      asArray((await r.request(`/agents?updated_since=${encodeURIComponent(since)}`, req(token))).json).map(
        (item) => item['id'],
      );
    assert.ok((await changes(tokens['member'])).includes('ledger'));
    for (const who of outsiders) assert.ok(!(await changes(tokens[who])).includes('ledger'), who);
  });

  async function everyListing(token: string | undefined): Promise<Record<string, string[]>> {
    const ids = (answer: Answer): string[] => {
      assert.equal(answer.status, 200, answer.text);
      return asArray(answer.json).map((item) => String(item['id']));
    };
    const resolved = await r.request('/resolve', {
      ...req(token),
      body: { intent: `${SECRET_WORD} ledger` },
    });
    assert.equal(resolved.status, 200, resolved.text);
    return {
      'GET /agents': ids(await r.request('/agents?limit=100', req(token))),
      'GET /agents?tags=': ids(await r.request(`/agents?tags=${SECRET_WORD}`, req(token))),
      'GET /agents?capabilities=': ids(await r.request('/agents?capabilities=bookkeeping', req(token))),
      'GET /agents?q=': ids(await r.request(`/agents?q=${SECRET_WORD}`, req(token))),
      'GET /agents?updated_since=': ids(
        await r.request(`/agents?updated_since=${encodeURIComponent(since)}`, req(token)),
      ),
      'POST /agents/search (query)': ids(
        await r.request('/agents/search', { ...req(token), body: { query: SECRET_WORD } }),
      ),
      'POST /agents/search (filters)': ids(
        await r.request('/agents/search', { ...req(token), body: { filters: { tags: [SECRET_WORD] } } }),
      ),
      'POST /resolve': asArray(asObject(resolved.json)['candidates']).map((item) => String(item['id'])),
    };
  }
});

describe('admin', () => {
  let r: TestRegistry;
  before(async () => {
    r = await startRegistry();
  });
  after(() => r.close());

  test('tokens are made once, work until revoked, and every step is audited', async () => {
    const made = await r.request('/admin/tokens', {
      token: r.admin,
      body: { role: 'publisher', publisher: 'acme', groups: ['finance', 'finance'] },
    });
    assert.equal(made.status, 201, made.text);
    const body = asObject(made.json);
    assert.match(String(body['token']), /^agentry_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(body['groups'], ['finance']);
    const token = String(body['token']);
    assert.equal(
      (await r.request('/agents', { token, body: aidipAgent({ id: 'a1', name: 'A1' }) })).status,
      201,
    );

    // Listed, newest first, with what it may do and never its secret.
    const listed = asObject((await r.request('/admin/tokens', { token: r.admin })).json);
    const tokens = asArray(listed['tokens']);
    assert.deepEqual(tokens[0], {
      id: body['id'],
      role: 'publisher',
      publisher: 'acme',
      groups: ['finance'],
      created_at: body['created_at'],
    });
    assert.ok(tokens.some((item) => item['id'] === 'admin' && item['role'] === 'admin'));
    assert.ok(!JSON.stringify(listed).includes(token));
    const first = asObject((await r.request('/admin/tokens?limit=1', { token: r.admin })).json);
    assert.equal(first['next_before'], body['id']);
    const rest = asObject(
      (await r.request(`/admin/tokens?limit=1000&before=${body['id']}`, { token: r.admin })).json,
    );
    assert.deepEqual(
      asArray(rest['tokens']).map((item) => item['id']),
      tokens.slice(1).map((item) => item['id']),
    );
    assert.equal((await r.request('/admin/tokens?limit=0', { token: r.admin })).status, 400);

    assert.equal(
      (await r.request(`/admin/tokens/${body['id']}`, { method: 'DELETE', token: r.admin })).status,
      204,
    );
    const remaining = asArray(
      asObject((await r.request('/admin/tokens', { token: r.admin })).json)['tokens'],
    );
    assert.ok(!remaining.some((item) => item['id'] === body['id']), 'a revoked token is not listed');
    assert.equal(
      (await r.request(`/admin/tokens/${body['id']}`, { method: 'DELETE', token: r.admin })).status,
      404,
    );
    assert.equal((await r.request('/admin/tokens/admin', { method: 'DELETE', token: r.admin })).status, 404);
    const refused = await r.request('/agents', { token, body: aidipAgent({ id: 'a2', name: 'A2' }) });
    assert.equal(refused.status, 401);

    const audit = asArray(
      asObject((await r.request('/admin/audit?limit=3', { token: r.admin })).json)['entries'],
    );
    assert.deepEqual(
      audit.map((entry) => entry['action']),
      ['token.revoke', 'agent.create', 'token.create'],
    );
    assert.equal(audit[0]?.['target'], body['id']);
    assert.equal(audit[1]?.['actor'], body['id']);
    assert.deepEqual(asObject(audit[2]?.['details'])['groups'], ['finance']);
    const older = asObject(
      (await r.request(`/admin/audit?limit=1&before=${audit[2]?.['seq']}`, { token: r.admin })).json,
    );
    assert.equal(asArray(older['entries']).length, 1);
  });

  test('admin endpoints refuse everyone else', async () => {
    const publisher = (await r.token('publisher')).token;
    const client = (await r.token('client')).token;
    for (const [path, method] of [
      ['/admin/tokens', 'POST'],
      ['/admin/tokens', 'GET'],
      ['/admin/tokens/x', 'DELETE'],
      ['/admin/audit', 'GET'],
      ['/imports', 'GET'],
      ['/metrics', 'GET'],
    ] as const) {
      const body = method === 'POST' ? { role: 'client' } : undefined;
      assert.equal((await r.request(path, { method, body })).status, 401, path);
      assert.equal((await r.request(path, { method, body, token: publisher })).status, 403, path);
      assert.equal((await r.request(path, { method, body, token: client })).status, 403, path);
    }
    for (const body of [
      [],
      { role: 'admin' },
      { role: 'client', publisher: 'admin' },
      { role: 'client', groups: ['a b'] },
      { role: 'client', x: 1 },
    ]) {
      const answer = await r.request('/admin/tokens', { token: r.admin, body });
      assert.equal(answer.status, 400, JSON.stringify(body));
    }
    assert.equal((await r.request('/admin/audit?limit=0', { token: r.admin })).status, 400);
  });

  test("a token's role follows from what is asked when not named: a publisher's name, else a client", async () => {
    for (const [body, role] of [
      [{ publisher: 'initech', groups: ['ops'] }, 'publisher'],
      [{ groups: ['ops'] }, 'client'],
      [{}, 'client'],
      [{ role: 'publisher' }, 'publisher'],
    ] as const) {
      const made = await r.request('/admin/tokens', { token: r.admin, body });
      assert.equal(made.status, 201, made.text);
      assert.equal(asObject(made.json)['role'], role, JSON.stringify(body));
    }
  });

  test('a token without a publisher name owns under its own id', async () => {
    const { id, token } = await r.token('publisher');
    const created = await r.request('/agents', { token, body: aidipAgent({ id: 'anon-pub', name: 'P' }) });
    assert.equal(asObject(asObject(created.json)['registry'])['owner'], id);
  });
});

describe('rate limits and quota', () => {
  let r: TestRegistry;
  let clock = 1_000_000;
  before(async () => {
    r = await startRegistry({
      rateLimits: {
        default: { requests: 6, windowSeconds: 60 },
        search: { requests: 2, windowSeconds: 60 },
        resolve: { requests: 1, windowSeconds: 30 },
      },
      quotaPerPublisher: 2,
      clockMs: () => clock,
    });
  });
  after(() => r.close());

  test('each client has its own budget per class; 429 says when to retry', async () => {
    const a = (await r.token('client')).token;
    const b = (await r.token('client')).token;
    assert.equal((await r.request('/agents/search', { token: a, body: { query: 'x' } })).status, 200);
    assert.equal((await r.request('/agents?q=x', { token: a })).status, 200);
    const limited = await r.request('/agents/search', { token: a, body: { query: 'x' } });
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.headers.get('retry-after'), '30');
    assert.equal(asObject(limited.json)['code'], 'RateLimited');
    assert.equal((await r.request('/agents', { token: a })).status, 200, 'the default budget is separate');
    assert.equal(
      (await r.request('/agents/search', { token: b, body: { query: 'x' } })).status,
      200,
      'b has its own',
    );

    assert.equal((await r.request('/resolve', { token: a, body: { intent: 'x' } })).status, 200);
    const resolveLimited = await r.request('/resolve', { token: a, body: { intent: 'x' } });
    assert.equal(resolveLimited.status, 429);
    assert.equal(resolveLimited.headers.get('retry-after'), '30');

    clock += 30_000;
    assert.equal(
      (await r.request('/agents/search', { token: a, body: { query: 'x' } })).status,
      200,
      'refilled',
    );
    assert.equal((await r.request('/resolve', { token: a, body: { intent: 'x' } })).status, 200);
  });

  test('anonymous callers are counted by address; the admin is not limited', async () => {
    clock += 120_000;
    const statuses: number[] = [];
    // A listing, not /healthz: the probes are never limited (readiness.test.ts).
    for (let index = 0; index < 8; index++) statuses.push((await r.request('/agents')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
    for (let index = 0; index < 10; index++)
      assert.equal((await r.request('/agents', { token: r.admin })).status, 200);
  });

  test('a publisher over its quota is refused with a problem, and nothing is written', async () => {
    clock += 120_000;
    const { token } = await r.token('publisher', { publisher: 'small' });
    for (const id of ['q1', 'q2']) {
      assert.equal((await r.request('/agents', { token, body: aidipAgent({ id, name: id }) })).status, 201);
    }
    clock += 120_000;
    const over = await r.request('/agents', { token, body: aidipAgent({ id: 'q3', name: 'q3' }) });
    assert.equal(over.status, 403, over.text);
    assert.equal(asObject(over.json)['code'], 'QuotaExceeded');
    assert.equal((await r.request('/agents/q3', { token: r.admin })).status, 404);
    assert.equal(
      (await r.request('/agents', { token, body: aidipAgent({ id: 'q1', name: 'q1', description: 'v2' }) }))
        .status,
      200,
      'updates still work',
    );
    assert.equal(
      (await r.request('/agents', { token: r.admin, body: aidipAgent({ id: 'q4', name: 'q4' }) })).status,
      201,
      'the admin has no quota',
    );
  });
});

function req(token: string | undefined): { token?: string } {
  return token === undefined ? {} : { token };
}
