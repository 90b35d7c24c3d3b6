/**
 * agent:// resolution through the documents a site publishes, against real loopback servers: the documented order,
 * each format detected by its keys, the agents.json map followed to descriptors, not-found and invalid documents,
 * the §6.2 fallback, and what is recorded of every document asked for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Agent, codecs } from '@agentry/core';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import { chooseBinding, InvalidTargetError, resolve, siteSteps } from '../src/resolve/index.js';
import {
  corpusJson,
  exampleJson,
  loopbackFetcher,
  loopbackOptions,
  type Site,
  startSite,
} from './resolve-support.js';

const A2A_CARD = corpusJson('a2a', 'planner_agent.json');
const AWP_SURFACE = corpusJson('awp', 'agentwebprotocol.org.agent.json');
const WOA_DOCUMENT = exampleJson('summarizer.woa.json');

/** An agent:// descriptor in the JSON-LD shape of the draft's Appendix A, with an Agentry binding. */
function plannerDescriptor(origin: string, withBinding = true): Record<string, unknown> {
  return {
    '@context': 'https://example.org/agent-context.jsonld',
    name: 'planner',
    description: 'Agent helps in researching & planning itineraries',
    url: `agent://${new URL(origin).host}/planner`,
    version: '3.1.4',
    capabilities: [
      {
        name: 'gen-iti',
        description: 'Creates a travel itinerary for a given city.',
        input: { city: 'string' },
      },
      { name: 'research-location', description: 'Researches a place.', input: { place: 'string' } },
    ],
    ...(withBinding
      ? { 'agentry:bindings': [{ kind: 'http', url: `${origin}/planner/invoke`, method: 'POST' }] }
      : {}),
  };
}

function paths(site: Site): string[] {
  return site.requests.map((request) => request.replace(/\?.*$/, ''));
}

describe('the documented order', () => {
  test('is agents.json, <path>/agent.json, agent-card.json, agent.json, woa.json, /agent.json', () => {
    assert.deepEqual(
      siteSteps({ origin: 'https://example.com', names: ['planner'], agentPath: '/planner' }).map(
        (step) => step.path,
      ),
      [
        '/.well-known/agents.json',
        '/planner/agent.json',
        '/.well-known/agent-card.json',
        '/.well-known/agent.json',
        '/.well-known/woa.json',
        '/agent.json',
      ],
    );
    assert.equal(
      siteSteps({ origin: 'https://example.com', names: [] }).length,
      5,
      'no agent path for origins',
    );
  });
});

describe('agents.json map and descriptors', () => {
  let site: Site;
  before(async () => {
    site = await startSite();
    site.routes.set('/.well-known/agents.json', () => ({
      json: {
        agents: {
          planner: `${site.origin}/planner/agent.json`,
          translator: '/translator/card.json',
          broken: `${site.origin}/broken/agent.json`,
          lamp: `${site.origin}/things/lamp`,
        },
      },
    }));
    site.routes.set('/planner/agent.json', () => ({
      json: plannerDescriptor(site.origin),
      headers: {
        etag: '"v1"',
        'last-modified': 'Tue, 01 Apr 2025 10:00:00 GMT',
        'cache-control': 'max-age=60',
      },
    }));
    site.routes.set('/translator/card.json', { json: A2A_CARD });
    site.routes.set('/broken/agent.json', { status: 500, text: 'oops' });
    site.routes.set('/things/lamp', () => ({
      json: codecs.td.emit(
        [
          {
            id: 'lamp',
            name: 'Lamp',
            description: 'A lamp.',
            operations: [{ name: 'toggle' }],
            bindings: [],
          },
        ],
        { baseUrl: site.origin },
      ).document,
      headers: { 'content-type': 'application/td+json' },
    }));
  });
  after(() => site.close());

  test('the map entry named by the first path segment is followed to its descriptor', async () => {
    site.requests.length = 0;
    const resolution = await resolve(`agent://${site.host}/planner/gen-iti?city=Paris`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'planner');
    assert.equal(resolution.source, 'documents');
    assert.equal(resolution.operation, 'gen-iti');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: `${site.origin}/planner/invoke`,
      method: 'POST',
    });
    assert.equal(resolution.methodByPayload, undefined);
    assert.deepEqual(paths(site), ['/.well-known/agents.json', '/planner/agent.json']);
    assert.deepEqual(
      resolution.documents.map(({ url, step, format, status, fromCache, revalidated }) => ({
        url,
        step,
        format,
        status,
        fromCache,
        revalidated,
      })),
      [
        {
          url: `${site.origin}/.well-known/agents.json`,
          step: 'agents-json',
          format: 'agents-json',
          status: 200,
          fromCache: false,
          revalidated: false,
        },
        {
          url: `${site.origin}/planner/agent.json`,
          step: 'descriptor',
          format: 'agent-json',
          status: 200,
          fromCache: false,
          revalidated: false,
        },
      ],
    );
    // Every agent the documents describe, each once: the planner's map entry is its descriptor's agent now, named
    // by both documents; the other entries stay stubs.
    assert.deepEqual(
      resolution.agents.map((agent) => [agent.id, agent.provenance?.sourceFormat]),
      [
        ['planner', 'agent-json'],
        ['translator', 'agents-json'],
        ['broken', 'agents-json'],
        ['lamp', 'agents-json'],
      ],
    );
    assert.deepEqual(
      resolution.documents.map((document) => document.describes),
      [['planner', 'translator', 'broken', 'lamp'], ['planner']],
    );
    assert.equal(resolution.agent?.provenance?.etag, '"v1"');
    assert.equal(resolution.agent?.provenance?.lastModified, 'Tue, 01 Apr 2025 10:00:00 GMT');
    assert.equal(resolution.agent?.provenance?.sourceUrl, `${site.origin}/planner/agent.json`);
  });

  test('a relative map entry resolves against the map, and the descriptor may be an A2A AgentCard', async () => {
    const resolution = await resolve(`agent://${site.host}/translator`, loopbackOptions());
    assert.equal(resolution.documents[1]?.url, `${site.origin}/translator/card.json`);
    assert.equal(resolution.documents[1]?.format, 'a2a');
    assert.equal(resolution.agent?.id, 'langraph-planner-agent');
    assert.deepEqual(resolution.binding, {
      kind: 'a2a',
      url: 'http://localhost:10102/',
      protocolBinding: 'JSONRPC',
    });
  });

  test('an entry may point to a WoT Thing Description; its action forms are the bindings', async () => {
    const resolution = await resolve(`agent://${site.host}/lamp/toggle`, loopbackOptions());
    assert.equal(resolution.documents[1]?.format, 'td');
    assert.equal(resolution.agent?.id, 'lamp');
    assert.equal(resolution.operation, 'toggle');
    assert.equal(resolution.binding?.kind, 'http');
    assert.ok(resolution.binding?.kind === 'http' && resolution.binding.url.startsWith(site.origin));
  });

  test('an entry whose descriptor fails is an error, and the order goes on (asking no URL twice)', async () => {
    site.requests.length = 0;
    const resolution = await resolve(`agent://${site.host}/broken`, {
      ...loopbackOptions(),
      fallback: false,
    });
    assert.deepEqual(paths(site), [
      '/.well-known/agents.json',
      '/broken/agent.json',
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
      '/.well-known/woa.json',
      '/agent.json',
    ]);
    const failed = resolution.documents.find((doc) => doc.step === 'descriptor');
    assert.equal(failed?.status, 500);
    assert.equal(failed?.error, 'HTTP 500');
    const issue = resolution.issues.find((candidate) => candidate.code === 'resolve.document.unavailable');
    assert.equal(issue?.severity, 'error');
    assert.match(issue?.message ?? '', /broken\/agent\.json: HTTP 500/);
    assert.equal(resolution.agent, undefined);
    assert.equal(resolution.binding, undefined);
  });

  test('a name the map does not list is looked for at its own path', async () => {
    site.requests.length = 0;
    const resolution = await resolve(`agent://${site.host}/unlisted`, {
      ...loopbackOptions(),
      fallback: false,
    });
    assert.deepEqual(paths(site).slice(0, 2), ['/.well-known/agents.json', '/unlisted/agent.json']);
    assert.equal(resolution.agent, undefined);
  });
});

describe('the well-known documents, in order', () => {
  let site: Site;
  before(async () => {
    site = await startSite();
  });
  after(() => site.close());

  function serve(routes: Record<string, unknown>): void {
    site.routes.clear();
    site.requests.length = 0;
    for (const [path, json] of Object.entries(routes)) site.routes.set(path, { json });
  }

  test("the agent's own agent.json comes before the site-wide documents", async () => {
    serve({
      '/planner/agent.json': plannerDescriptor(site.origin),
      '/.well-known/agent-card.json': A2A_CARD,
    });
    const resolution = await resolve(`agent://${site.host}/planner`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'planner');
    assert.deepEqual(paths(site), ['/.well-known/agents.json', '/planner/agent.json']);
    assert.deepEqual(
      resolution.documents.map((doc) => [doc.step, doc.status, doc.error]),
      [
        ['agents-json', 404, 'not found (404)'],
        ['agent-json', 200, undefined],
      ],
    );
  });

  test('the A2A card at agent-card.json wins over the legacy agent.json', async () => {
    serve({
      '/.well-known/agent-card.json': A2A_CARD,
      '/.well-known/agent.json': plannerDescriptor(site.origin),
    });
    const resolution = await resolve(`agent://${site.host}/planner`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'langraph-planner-agent');
    assert.equal(resolution.operation, 'planner', "the path names the card's skill");
    assert.equal(resolution.documents.at(-1)?.format, 'a2a');
    assert.deepEqual(paths(site), [
      '/.well-known/agents.json',
      '/planner/agent.json',
      '/.well-known/agent-card.json',
    ]);
    assert.equal(
      resolution.issues.some((issue) => issue.code === 'resolve.path.unmatched'),
      false,
      'the segment names an operation',
    );
  });

  test('the legacy /.well-known/agent.json is read by its keys (here an agent:// descriptor)', async () => {
    serve({ '/.well-known/agent.json': plannerDescriptor(site.origin) });
    const resolution = await resolve(`agent://${site.host}/planner/gen-iti`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'planner');
    assert.equal(resolution.documents.at(-1)?.step, 'well-known-agent');
    assert.equal(resolution.documents.at(-1)?.format, 'agent-json');
    assert.equal(resolution.operation, 'gen-iti');
  });

  test('the WoA document: the agent named by the path among several', async () => {
    serve({ '/.well-known/woa.json': WOA_DOCUMENT });
    const resolution = await resolve(`agent://${site.host}/keywords`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'keywords');
    assert.deepEqual(resolution.binding, {
      kind: 'woa-rest',
      base: 'https://agents.example.com',
      invokePath: '/agents/{agent_id}/invoke',
      transportName: 'rest',
    });
    assert.deepEqual(
      resolution.documents.map((doc) => doc.step),
      ['agents-json', 'agent-json', 'agent-card', 'well-known-agent', 'woa'],
    );
  });

  test('a WoA document with several agents and no name matching goes on to the next document', async () => {
    serve({ '/.well-known/woa.json': WOA_DOCUMENT, '/agent.json': AWP_SURFACE });
    const resolution = await resolve(`agent://${site.host}/get_spec`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'agentwebprotocol.org');
    assert.equal(resolution.documents.at(-1)?.step, 'root-agent-json');
    assert.equal(resolution.operation, 'get_spec');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: 'https://agentwebprotocol.org/api/spec',
      method: 'GET',
      operations: ['get_spec'],
    });
    assert.deepEqual(
      resolution.agents.map((agent) => agent.id),
      ['summarizer', 'keywords', 'agentwebprotocol.org'],
    );
  });

  test('the only agent of a site-wide document stands in for an unmatched name, with a warning', async () => {
    serve({ '/agent.json': AWP_SURFACE });
    const resolution = await resolve(`agent://${site.host}/somebody-else`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'agentwebprotocol.org');
    const warning = resolution.issues.find((issue) => issue.code === 'resolve.path.unmatched');
    assert.equal(warning?.severity, 'warning');
    assert.match(warning?.message ?? '', /somebody-else/);
  });

  test('a descriptor without bindings gets the §6.2 fallback as its binding', async () => {
    serve({ '/planner/agent.json': plannerDescriptor(site.origin, false) });
    const resolution = await resolve(`agent://${site.host}/planner/gen-iti?city=Paris`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'planner');
    assert.equal(resolution.source, 'documents');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: `${site.origin}/planner/gen-iti?city=Paris`,
      method: 'POST',
    });
    assert.equal(resolution.methodByPayload, true);
    assert.ok(
      resolution.issues.some(
        (issue) => issue.code === 'resolve.fallback' && /describes no binding/.test(issue.message),
      ),
    );
  });
});

describe('nothing found, and documents that cannot be used', () => {
  let site: Site;
  before(async () => {
    site = await startSite();
  });
  after(() => site.close());

  test('nothing found: every step asked once, then the §6.2 fallback (POST with a payload, GET without)', async () => {
    site.routes.clear();
    site.requests.length = 0;
    const resolution = await resolve(`agent://${site.host}/planning/gen-iti?city=Paris`, loopbackOptions());
    assert.deepEqual(paths(site), [
      '/.well-known/agents.json',
      '/planning/agent.json',
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
      '/.well-known/woa.json',
      '/agent.json',
    ]);
    assert.ok(resolution.documents.every((doc) => doc.status === 404 && doc.error === 'not found (404)'));
    assert.equal(resolution.source, 'fallback');
    assert.equal(resolution.methodByPayload, true);
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: `${site.origin}/planning/gen-iti?city=Paris`,
      method: 'POST',
    });
    assert.equal(resolution.agent?.id, 'planning');
    assert.deepEqual(resolution.agents, [], 'no document described an agent');
    assert.ok(
      resolution.issues.some((issue) => issue.code === 'resolve.fallback' && issue.severity === 'warning'),
    );
    assert.ok(
      !resolution.issues.some((issue) => issue.severity === 'error'),
      'missing well-known documents are no error',
    );
  });

  test('fallback: false reports not found instead', async () => {
    site.routes.clear();
    const resolution = await resolve(`agent://${site.host}/planning`, {
      ...loopbackOptions(),
      fallback: false,
    });
    assert.equal(resolution.agent, undefined);
    assert.equal(resolution.binding, undefined);
    assert.equal(resolution.source, undefined);
  });

  test('invalid JSON and pages that are not descriptions are recorded and skipped', async () => {
    site.routes.clear();
    site.requests.length = 0;
    site.routes.set('/.well-known/agents.json', { text: '{"agents": {"planner": ' });
    site.routes.set('/.well-known/agent-card.json', { text: '<!doctype html><title>Welcome</title>' });
    site.routes.set('/.well-known/agent.json', { json: { openapi: '3.1.0', paths: {} } });
    site.routes.set('/.well-known/woa.json', { json: WOA_DOCUMENT });
    const resolution = await resolve(`agent://${site.host}/summarizer`, loopbackOptions());
    assert.equal(resolution.agent?.id, 'summarizer');
    const [map, , card, legacy] = resolution.documents;
    assert.equal(map?.status, 200);
    assert.equal(map?.format, undefined);
    assert.match(map?.error ?? '', /line 1/i);
    assert.equal(card?.format, undefined);
    assert.ok(card?.error);
    assert.match(legacy?.error ?? '', /not a recognised agent description/i);
    const warnings = resolution.issues.filter((issue) => issue.severity === 'warning');
    for (const doc of [map, card, legacy]) {
      assert.ok(
        warnings.some((issue) => issue.message.startsWith(`${doc?.url}:`)),
        `a warning names ${doc?.url}`,
      );
    }
  });

  test("a recognised document's validation issues carry its URL", async () => {
    site.routes.clear();
    site.routes.set('/.well-known/woa.json', {
      json: { woa_version: '1', agents: [{ id: 'Bad Id!', name: 'x', description: 'y' }], transports: {} },
    });
    const resolution = await resolve(`agent://${site.host}/`, { ...loopbackOptions(), fallback: false });
    const errors = resolution.issues.filter((issue) => issue.severity === 'error');
    assert.ok(errors.length > 0);
    for (const issue of errors)
      assert.ok(issue.message.startsWith(`${site.origin}/.well-known/woa.json: `), issue.message);
    assert.equal(resolution.documents.find((doc) => doc.step === 'woa')?.format, 'woa');
  });

  test('a redirect is followed and the final URL recorded', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/agent-card.json', {
      status: 301,
      headers: { location: '/cards/main.json' },
    });
    site.routes.set('/cards/main.json', { json: A2A_CARD });
    const resolution = await resolve(`agent://${site.host}/`, loopbackOptions());
    const card = resolution.documents.find((doc) => doc.step === 'agent-card');
    assert.equal(card?.finalUrl, `${site.origin}/cards/main.json`);
    assert.equal(card?.format, 'a2a');
    assert.equal(resolution.agent?.provenance?.sourceUrl, `${site.origin}/cards/main.json`);
  });

  test('a fetcher that refuses the origin: one refusal, with the setting that allows it, and no request sent', async () => {
    site.routes.clear();
    site.requests.length = 0;
    const strict = createSecureFetcher();
    const resolution = await resolve(`agent://${site.host}/planner`, {
      fetcher: strict,
      scheme: 'http',
      fallback: false,
    });
    await strict.close();
    assert.deepEqual(site.requests, []);
    assert.equal(resolution.documents.length, 1, 'later documents of a refused origin are not asked for');
    assert.ok(resolution.documents[0]?.error);
    const refusal = resolution.issues.find((issue) => issue.code === 'resolve.fetch.refused');
    assert.equal(refusal?.severity, 'error');
    assert.match(refusal?.message ?? '', /allow/i);
  });

  test('a document served with max-age is reported from the cache the second time', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/woa.json', {
      json: WOA_DOCUMENT,
      headers: { 'cache-control': 'max-age=600' },
    });
    const caching = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true });
    const options = { fetcher: caching, scheme: 'http' as const };
    const first = await resolve(`agent://${site.host}/summarizer`, options);
    const second = await resolve(`agent://${site.host}/summarizer`, options);
    await caching.close();
    assert.equal(first.documents.find((doc) => doc.step === 'woa')?.fromCache, false);
    assert.equal(second.documents.find((doc) => doc.step === 'woa')?.fromCache, true);
    assert.equal(second.agent?.id, 'summarizer');
  });
});

describe('origins and document URLs', () => {
  let site: Site;
  before(async () => {
    site = await startSite();
  });
  after(() => site.close());

  test('an origin lists the agents of every document, and names none of several', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/woa.json', { json: WOA_DOCUMENT });
    site.routes.set('/agent.json', { json: AWP_SURFACE });
    const resolution = await resolve(site.origin, { fetcher: loopbackFetcher() });
    assert.deepEqual(
      resolution.agents.map((agent) => agent.id),
      ['summarizer', 'keywords', 'agentwebprotocol.org'],
    );
    assert.equal(resolution.agent?.id, 'agentwebprotocol.org', 'the AWP surface describes one agent');
    assert.equal(resolution.documents.length, 5);
  });

  test('an origin counts each agent once, however many of its documents describe it', async () => {
    // The agents listed in agents.json (whose descriptors are not served) and described by the WoA document, all
    // on this origin: one agent each, the WoA description kept, named by both documents.
    const woa = structuredClone(WOA_DOCUMENT) as {
      transports: unknown;
      agents: Array<{ transports: string[] }>;
    };
    woa.transports = { mcp: { server: `${site.origin}/mcp`, tool_namespace: '', tool_field: 'operation' } };
    for (const entry of woa.agents) entry.transports = ['mcp'];
    site.routes.clear();
    site.routes.set('/.well-known/agents.json', {
      json: {
        agents: { summarizer: '/agents/summarizer/agent.json', keywords: '/agents/keywords/agent.json' },
      },
    });
    site.routes.set('/.well-known/woa.json', { json: woa });
    const resolution = await resolve(site.origin, { fetcher: loopbackFetcher() });
    assert.deepEqual(
      resolution.agents.map((agent) => [agent.id, agent.provenance?.sourceFormat]),
      [
        ['summarizer', 'woa'],
        ['keywords', 'woa'],
      ],
    );
    const described = resolution.documents.flatMap((document) =>
      document.describes === undefined ? [] : [[document.step, document.describes]],
    );
    assert.deepEqual(described, [
      ['agents-json', ['summarizer', 'keywords']],
      ['woa', ['summarizer', 'keywords']],
    ]);
  });

  test('two agents of one document named alike are two agents', async () => {
    const woa = structuredClone(WOA_DOCUMENT) as { agents: Array<{ name: string }> };
    for (const entry of woa.agents) entry.name = 'Text Tool';
    site.routes.clear();
    site.routes.set('/.well-known/woa.json', { json: woa });
    const resolution = await resolve(site.origin, { fetcher: loopbackFetcher() });
    assert.deepEqual(
      resolution.agents.map((agent) => agent.id),
      ['summarizer', 'keywords'],
    );
  });

  test('an origin whose documents describe several agents names none and falls back to nothing', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/woa.json', { json: WOA_DOCUMENT });
    const resolution = await resolve(`${site.origin}/`, { fetcher: loopbackFetcher() });
    assert.equal(resolution.agent, undefined);
    assert.equal(resolution.binding, undefined);
    assert.equal(resolution.agents.length, 2);
  });

  const agent: Agent = {
    id: 'lamp',
    name: 'Lamp',
    description: 'Switches a lamp.',
    operations: [{ name: 'toggle', input: { type: 'object' } }],
    bindings: [],
  };

  for (const format of ['td', 'aidip', 'mcp', 'awp', 'a2a', 'agent-json'] as const) {
    test(`a document URL is read by its keys: ${format}`, async () => {
      const emitted = codecs[format].emit([agent], { baseUrl: site.origin });
      site.routes.clear();
      site.routes.set(`/docs/lamp.${format}`, { json: emitted.document });
      const resolution = await resolve(`${site.origin}/docs/lamp.${format}`, { fetcher: loopbackFetcher() });
      assert.equal(resolution.documents[0]?.format, format);
      assert.equal(resolution.documents[0]?.step, 'document');
      assert.equal(resolution.source, 'document');
      assert.ok(resolution.agent, `an agent from the ${format} document`);
    });
  }

  test('a fragment picks one of several agents of a document', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/woa.json', { json: WOA_DOCUMENT });
    const resolution = await resolve(`${site.origin}/.well-known/woa.json#keywords`, {
      fetcher: loopbackFetcher(),
    });
    assert.equal(resolution.agent?.id, 'keywords');
    assert.equal(site.requests.at(-1), '/.well-known/woa.json', 'the fragment is not sent');
  });

  test('a document URL that is missing is an error', async () => {
    site.routes.clear();
    const resolution = await resolve(`${site.origin}/nothing/here.json`, { fetcher: loopbackFetcher() });
    assert.equal(resolution.agent, undefined);
    assert.equal(resolution.documents[0]?.status, 404);
    assert.ok(
      resolution.issues.some(
        (issue) => issue.code === 'resolve.document.unavailable' && issue.severity === 'error',
      ),
    );
  });
});

describe('targets resolve cannot read', () => {
  for (const [target, pattern] of [
    ['ftp://example.com/agent.json', /scheme "ftp"/],
    ['example.com', /agent:\/\/example\.com or https:\/\/example\.com/],
    ['agent://exa mple.com', /not a valid agent URI/],
    ['', /neither an agent URI/],
  ] as const) {
    test(JSON.stringify(target), async () => {
      await assert.rejects(resolve(target), (error: unknown) => {
        assert.ok(error instanceof InvalidTargetError);
        assert.match(error.message, pattern);
        assert.equal(error.target, target);
        return true;
      });
    });
  }

  test('an invalid agent URI says which part is wrong', async () => {
    await assert.rejects(resolve('agent://example.com:99999/x'), (error: unknown) => {
      assert.ok(error instanceof InvalidTargetError);
      assert.equal(error.part, 'port');
      return true;
    });
  });

  test('an aborted signal stops resolution', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await assert.rejects(resolve('agent://example.com/x', { signal: controller.signal }), /stop/);
  });
});

describe('binding preference', () => {
  const all: Agent = {
    id: 'x',
    name: 'x',
    description: '',
    operations: [],
    bindings: [
      { kind: 'other', protocol: 'matrix', config: {} },
      { kind: 'a2a', url: 'https://x/grpc', protocolBinding: 'GRPC' },
      { kind: 'mcp', server: 'npx x', transport: 'stdio' },
      { kind: 'mcp', server: 'https://x/sse', transport: 'sse' },
      { kind: 'local', name: 'x' },
      { kind: 'unix', socketPath: '/run/x.sock' },
      { kind: 'wss', url: 'wss://x/ws' },
      { kind: 'a2a', url: 'https://x/json', protocolBinding: 'HTTP+JSON' },
      { kind: 'a2a', url: 'https://x/rpc', protocolBinding: 'JSONRPC' },
      { kind: 'mcp', server: 'https://x/mcp', transport: 'streamable-http' },
      { kind: 'http', url: 'https://x/op', method: 'POST', operations: ['op'] },
      { kind: 'woa-rest', base: 'https://x', invokePath: '/agents/{agent_id}/invoke' },
    ],
  };

  test('woa-rest, http, mcp (streamable-http), a2a JSON-RPC, a2a HTTP+JSON, wss, unix, local, mcp sse, mcp stdio', () => {
    const order: string[] = [];
    const remaining = { ...all, bindings: [...all.bindings] };
    for (let binding = chooseBinding(remaining); binding !== undefined; binding = chooseBinding(remaining)) {
      order.push(
        binding.kind === 'mcp'
          ? `mcp ${binding.transport}`
          : binding.kind === 'a2a'
            ? `a2a ${binding.protocolBinding}`
            : binding.kind,
      );
      remaining.bindings.splice(remaining.bindings.indexOf(binding), 1);
    }
    assert.deepEqual(order, [
      'woa-rest',
      'http',
      'mcp streamable-http',
      'a2a JSONRPC',
      'a2a HTTP+JSON',
      'wss',
      'unix',
      'local',
      'mcp sse',
      'mcp stdio',
    ]);
    assert.deepEqual(
      remaining.bindings.map((binding) => binding.kind),
      ['other', 'a2a'],
      'matrix and A2A gRPC are never chosen',
    );
  });

  test('only bindings serving the operation are considered', () => {
    const awp: Agent = {
      ...all,
      bindings: [
        { kind: 'http', url: 'https://x/a', method: 'GET', operations: ['a'] },
        { kind: 'http', url: 'https://x/b', method: 'POST', operations: ['b'] },
      ],
    };
    assert.equal(chooseBinding(awp, 'b')?.kind === 'http' && chooseBinding(awp, 'b'), awp.bindings[1]);
    assert.equal(chooseBinding(awp, 'c'), undefined);
  });
});
