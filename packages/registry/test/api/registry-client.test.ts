/**
 * @agentry/client's registry client against a real registry over HTTP: every typed call reads what the API
 * answers, and every failure is a typed AgentryError carrying the problem's code, status and detail (no answer at
 * all, and an answer the API does not give, each their own class).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BadRegistryResponseError,
  createRegistryClient,
  createSecureFetcher,
  FetchRefusedError,
  type RegistryClient,
  RegistryError,
  RegistryUnreachableError,
} from '@agentry/client';
import { AgentryError, type AgentryErrorCode, ERROR_CODES, isAgentryErrorCode } from '@agentry/core';
import { aidipAgent, startRegistry, type TestRegistry } from '../support.js';

let registry: TestRegistry;
let admin: RegistryClient;
let anonymous: RegistryClient;

before(async () => {
  registry = await startRegistry();
  admin = createRegistryClient({ baseUrl: registry.url, token: registry.admin });
  anonymous = createRegistryClient({ baseUrl: `${registry.url}/` });
});
after(async () => {
  await registry.close();
});

/** The error `call` rejects with, checked to be a RegistryError with a code of the vocabulary. */
async function failure(call: Promise<unknown>): Promise<RegistryError> {
  const error = await call.then(
    () => assert.fail('expected a failure'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof RegistryError, String(error));
  assert.ok(error instanceof AgentryError);
  return error;
}

describe('registry client', () => {
  test('registers, lists page by page, searches, reads, updates and deletes agents', async () => {
    const first = await admin.registerAgent(
      aidipAgent({ id: 'rc-translator', name: 'Translator', tags: ['nlp'] }),
    );
    assert.equal(first.status, 201);
    assert.equal(first.created, true);
    assert.match(first.location ?? '', /\/agents\/rc-translator$/);
    const again = await admin.registerAgent(
      aidipAgent({ id: 'rc-translator', name: 'Translator', tags: ['nlp'] }),
    );
    assert.equal(again.created, false);
    await admin.registerAgent(aidipAgent({ id: 'rc-summarizer', name: 'Summarizer', tags: ['nlp'] }), {
      groups: ['team-a'],
    });

    // Two agents, a page each: the second is found through the first's next link.
    const seen: string[] = [];
    for await (const page of admin.pages({ tags: ['nlp'], limit: 1 })) {
      seen.push(...page.items.map((item) => item.id));
    }
    assert.deepEqual(seen.sort(), ['rc-summarizer', 'rc-translator']);
    // The group's agent is not shown to a caller outside it.
    const open = await anonymous.listAgents({ tags: ['nlp'] });
    assert.deepEqual(
      open.items.map((item) => item.id),
      ['rc-translator'],
    );
    assert.equal(open.next, undefined);

    const hits = await anonymous.searchAgents({ query: 'translator', top: 3 });
    assert.equal(hits[0]?.id, 'rc-translator');
    const metadata = await anonymous.getAgent('rc-translator');
    assert.equal(metadata.name, 'Translator');
    const card = (await anonymous.getAgentAs('rc-translator', 'a2a')) as Record<string, unknown>;
    assert.equal(card['name'], 'Translator');

    const updated = await admin.updateAgent(
      'rc-translator',
      aidipAgent({ id: 'rc-translator', name: 'Translator', description: 'Translates text, now better.' }),
    );
    assert.equal(updated.description, 'Translates text, now better.');
    const history = await admin.agentHistory('rc-translator');
    assert.ok(history.entries.length >= 2);

    await admin.deleteAgent('rc-summarizer');
    const gone = await failure(admin.getAgent('rc-summarizer'));
    assert.equal(gone.status, 404);
  });

  test('resolves intents, counts facets, serves the catalog and its health, and manages tokens', async () => {
    await admin.registerAgent(aidipAgent({ id: 'rc-weather', name: 'Weather', capabilities: ['forecast'] }));
    const resolved = await anonymous.resolve({ intent: 'weather forecast for a city' });
    assert.equal(resolved.candidates[0]?.id, 'rc-weather');
    const facets = await anonymous.facets({ limit: 5 });
    assert.ok(facets.total >= 1);
    const catalog = await anonymous.catalog();
    assert.ok(catalog.entries.some((entry) => entry.identifier.includes('rc-weather')));
    assert.equal((await anonymous.health()).status, 'ok');
    assert.equal((await anonymous.openApi())['openapi'], '3.1.0');

    const token = await admin.createToken({ publisher: 'rc-publisher' });
    assert.equal(token.role, 'publisher');
    const publisher = createRegistryClient({ baseUrl: registry.url, token: token.token });
    const registered = await publisher.registerAgent(aidipAgent({ id: 'rc-own', name: 'Own' }));
    assert.equal(registered.created, true);
    const audit = await admin.audit({ limit: 5 });
    assert.ok(audit.entries.length > 0);
    await admin.revokeToken(token.id);
    const revoked = await failure(publisher.registerAgent(aidipAgent({ id: 'rc-own-2', name: 'Own' })));
    assert.equal(revoked.status, 401);
  });

  test("a failure answer is a RegistryError with the problem's code, status, title, detail and pointers", async () => {
    const unauthorized = await failure(anonymous.registerAgent(aidipAgent({ name: 'Nobody' })));
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.code, 'Unauthorized');
    assert.equal(typeof unauthorized.detail, 'string');

    const invalid = await failure(admin.registerAgent({ name: 42 }));
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, 'InvalidInput');
    assert.ok((invalid.problem?.errors ?? []).length > 0);

    const missing = await failure(anonymous.getAgent('rc-no-such-agent'));
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'NotFound');
    assert.match(missing.title ?? '', /not found/i);
    assert.match(missing.url, /\/agents\/rc-no-such-agent$/);
    for (const error of [unauthorized, invalid, missing]) {
      assert.ok(isAgentryErrorCode(error.code), `${error.code} is a vocabulary code`);
    }
  });

  test('no answer is a RegistryUnreachableError; a refused address keeps the fetcher error as its cause', async () => {
    // A port nothing listens on: the registry that was just closed.
    const closed = await startRegistry();
    await closed.close();
    const down = await failure(createRegistryClient({ baseUrl: closed.url }).health());
    assert.ok(down instanceof RegistryUnreachableError);
    assert.equal(down.status, 0);
    assert.equal(down.code, 'RegistryUnreachable');

    // The secure fetcher's policy applies: a loopback registry over plain HTTP is refused unless allowed.
    const strict = createSecureFetcher({ cache: false });
    try {
      const refused = await failure(createRegistryClient({ baseUrl: registry.url, fetch: strict }).health());
      assert.ok(refused instanceof RegistryUnreachableError);
      assert.ok(refused.cause instanceof FetchRefusedError);
    } finally {
      await strict.close();
    }
    const allowed = createSecureFetcher({ cache: false, allowHttp: true, allowPrivateNetwork: true });
    try {
      assert.equal(
        (await createRegistryClient({ baseUrl: registry.url, fetch: allowed }).health()).status,
        'ok',
      );
    } finally {
      await allowed.close();
    }
  });

  test('an answer the API does not give is a BadRegistryResponseError saying why', async () => {
    const serving = (status: number, body: string) =>
      createRegistryClient({
        baseUrl: 'https://registry.example',
        fetch: async () => new Response(body, { status, headers: { 'content-type': 'application/json' } }),
      });
    const notJson = await failure(serving(200, '<html>').health());
    assert.ok(notJson instanceof BadRegistryResponseError);
    assert.equal(notJson.reason, 'not-json');
    const notList = await failure(serving(200, '{"agents": 3}').listAgents());
    assert.ok(notList instanceof BadRegistryResponseError);
    assert.equal(notList.reason, 'shape');
    assert.match(notList.message, /is not an agent list/);
    const noContent = await failure(serving(202, '[]').listAgents());
    assert.ok(noContent instanceof BadRegistryResponseError);
    assert.equal(noContent.reason, 'status');
    assert.equal(noContent.code, 'BadRegistryResponse' satisfies AgentryErrorCode);
    assert.ok('BadRegistryResponse' in ERROR_CODES);
  });

  test('the token goes to the registry only, not to another origin a next link names', async () => {
    const asked: Array<{ url: string; authorization: string | null }> = [];
    const client = createRegistryClient({
      baseUrl: 'https://registry.example',
      token: 'secret',
      fetch: async (url, init) => {
        asked.push({ url, authorization: new Headers(init.headers).get('authorization') });
        const first = url.startsWith('https://registry.example');
        return new Response(JSON.stringify([{ id: first ? 'a' : 'b' }]), {
          status: 200,
          headers: first ? { link: '<https://elsewhere.example/agents?cursor=x>; rel="next"' } : {},
        });
      },
    });
    const pages = [];
    for await (const page of client.pages()) pages.push(page);
    assert.equal(pages.length, 2);
    assert.deepEqual(
      asked.map((request) => request.authorization),
      ['Bearer secret', null],
    );
  });
});
