/**
 * did:web authorities: the DID document at /.well-known/did.json or /<path>/did.json, its agent services, and the
 * host's documents after it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { didWebLocation, resolve } from '../src/resolve/index.js';
import { corpusJson, loopbackOptions, type Site, startSite } from './resolve-support.js';

const A2A_CARD = corpusJson('a2a', 'planner_agent.json');

describe('did:web locations', () => {
  const cases: Array<[string, string]> = [
    ['example.com', 'https://example.com/.well-known/did.json'],
    ['example.com:agent:researcher', 'https://example.com/agent/researcher/did.json'],
    ['localhost%3A8443:u:a', 'https://localhost:8443/u/a/did.json'],
    ['example.com:caf%C3%A9', 'https://example.com/caf%C3%A9/did.json'],
  ];
  for (const [id, url] of cases) {
    test(`did:web:${id} → ${url}`, () => {
      const location = didWebLocation({ method: 'web', id }, 'https');
      assert.ok(typeof location !== 'string', String(location));
      assert.equal(location.didDocumentUrl, url);
    });
  }
  for (const id of ['exa_mple.com%2Fx', 'example.com::a', 'example.com:a%2Fb', '%FF']) {
    test(`did:web:${id} is refused`, () => {
      assert.equal(typeof didWebLocation({ method: 'web', id }, 'https'), 'string');
    });
  }
});

describe('resolving did:web authorities', () => {
  let site: Site;
  let did: string;
  before(async () => {
    site = await startSite();
    did = `did:web:127.0.0.1%3A${site.port}:agents:researcher`;
  });
  after(() => site.close());

  function didDocument(services: unknown[], id = did): unknown {
    return { '@context': ['https://www.w3.org/ns/did/v1'], id, service: services };
  }

  test('a description service leads to the descriptor; the URI path names the operation', async () => {
    site.routes.clear();
    site.requests.length = 0;
    site.routes.set('/agents/researcher/did.json', () => ({
      json: didDocument([
        { id: `${did}#domain`, type: 'LinkedDomains', serviceEndpoint: site.origin },
        { id: `${did}#card`, type: ['AgentCard'], serviceEndpoint: [`${site.origin}/cards/researcher.json`] },
      ]),
    }));
    site.routes.set('/cards/researcher.json', { json: A2A_CARD });
    const resolution = await resolve(`agent://${did}/planner?doi=10.1000/1`, loopbackOptions());
    assert.deepEqual(site.requests, ['/agents/researcher/did.json', '/cards/researcher.json']);
    assert.equal(resolution.source, 'did-web');
    assert.equal(resolution.agent?.id, 'langraph-planner-agent');
    assert.equal(resolution.operation, 'planner');
    assert.deepEqual(
      resolution.documents.map((doc) => [doc.step, doc.format]),
      [
        ['did-web', undefined],
        ['descriptor', 'a2a'],
      ],
    );
  });

  test('endpoint services make an agent of their own when no description names one', async () => {
    site.routes.clear();
    site.routes.set('/agents/researcher/did.json', () => ({
      json: didDocument([
        { id: `${did}#mcp`, type: 'MCPServer', serviceEndpoint: 'https://mcp.example.com/mcp' },
        {
          id: `${did}#api`,
          type: 'https://w3id.org/agentry/ns#AgentEndpoint',
          serviceEndpoint: { uri: 'https://api.example.com/research' },
        },
        { id: `${did}#ws`, type: 'AgentService', serviceEndpoint: 'agent+wss://api.example.com/stream' },
        { id: `${did}#a2a`, type: 'A2AService', serviceEndpoint: 'https://a2a.example.com/rpc' },
      ]),
    }));
    const resolution = await resolve(`agent://${did}/get-article`, loopbackOptions());
    assert.equal(resolution.source, 'did-web');
    assert.equal(resolution.agent?.id, 'researcher');
    assert.deepEqual(resolution.agent?.bindings, [
      { kind: 'mcp', server: 'https://mcp.example.com/mcp', transport: 'streamable-http' },
      { kind: 'http', url: 'https://api.example.com/research', method: 'POST' },
      { kind: 'wss', url: 'wss://api.example.com/stream' },
      { kind: 'a2a', url: 'https://a2a.example.com/rpc', protocolBinding: 'JSONRPC' },
    ]);
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: 'https://api.example.com/research',
      method: 'POST',
    });
    assert.equal(resolution.methodByPayload, true);
  });

  test('a DID document for another DID is not trusted; the host is asked next', async () => {
    site.routes.clear();
    site.requests.length = 0;
    site.routes.set('/agents/researcher/did.json', {
      json: didDocument(
        [{ type: 'AgentEndpoint', serviceEndpoint: 'https://evil.example/x' }],
        'did:web:evil.example',
      ),
    });
    const resolution = await resolve(`agent://${did}/get-article`, { ...loopbackOptions(), fallback: false });
    const issue = resolution.issues.find((candidate) => candidate.code === 'resolve.did-web.id-mismatch');
    assert.equal(issue?.severity, 'error');
    assert.equal(resolution.agent, undefined);
    assert.deepEqual(site.requests, [
      '/agents/researcher/did.json',
      '/.well-known/agents.json',
      '/agents/researcher/agent.json',
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
      '/.well-known/woa.json',
      '/agent.json',
    ]);
  });

  test("after the DID document, the DID's path is the agent's path; the fallback is under it", async () => {
    site.routes.clear();
    site.routes.set('/agents/researcher/did.json', () => ({ json: didDocument([]) }));
    const resolution = await resolve(`agent://${did}/get-article?doi=1`, loopbackOptions());
    assert.ok(resolution.issues.some((issue) => issue.code === 'resolve.did-web.no-agent-service'));
    assert.equal(resolution.source, 'fallback');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: `${site.origin}/agents/researcher/get-article?doi=1`,
      method: 'POST',
    });
    site.routes.set('/agents/researcher/agent.json', {
      json: {
        '@context': 'https://example.org/agent-context.jsonld',
        name: 'Researcher',
        version: '1.0.0',
        capabilities: [{ name: 'get-article' }],
      },
    });
    const found = await resolve(`agent://${did}/get-article`, loopbackOptions());
    assert.equal(found.agent?.name, 'Researcher');
    assert.equal(found.operation, 'get-article');
    assert.equal(found.documents.find((doc) => doc.format === 'agent-json')?.step, 'agent-json');
  });

  test('a missing DID document is an error, and the host is asked next', async () => {
    site.routes.clear();
    const resolution = await resolve(`agent://${did}/x`, { ...loopbackOptions(), fallback: false });
    const issue = resolution.issues.find((candidate) => candidate.code === 'resolve.did-web.unavailable');
    assert.equal(issue?.severity, 'error');
    assert.equal(resolution.documents[0]?.status, 404);
    assert.equal(resolution.documents.length, 7);
  });

  test('did:web without a path: /.well-known/did.json', async () => {
    site.routes.clear();
    site.requests.length = 0;
    const bare = `did:web:127.0.0.1%3A${site.port}`;
    site.routes.set('/.well-known/did.json', {
      json: { id: bare, service: [{ type: 'AgentEndpoint', serviceEndpoint: 'agent+local://helper' }] },
    });
    const resolution = await resolve(`agent://${bare}/summarize`, loopbackOptions());
    assert.equal(site.requests[0], '/.well-known/did.json');
    assert.deepEqual(resolution.binding, { kind: 'local', name: 'helper' });
    assert.equal(resolution.methodByPayload, undefined);
  });

  test('other DID methods are reported as unsupported, and nothing is fetched', async () => {
    const resolution = await resolve('agent://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK/chat');
    assert.deepEqual(resolution.documents, []);
    assert.equal(resolution.issues[0]?.code, 'resolve.did.unsupported-method');
    assert.match(resolution.issues[0]?.message ?? '', /did:web only/);
    assert.equal(resolution.binding, undefined);
  });
});
