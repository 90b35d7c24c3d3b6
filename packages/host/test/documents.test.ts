/**
 * Every discovery document a host serves, fetched from a real loopback server over HTTPS and read back with core's
 * codecs (zero error issues), with the caching contract: strong ETags, Last-Modified, 304s, HEAD, 405 and 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Agent, type JsonObject, readDocument } from '@agentry/core';
import { clockAgent, textAgent } from './fixtures/agents.js';
import { json, type RunningHost, startHost } from './support.js';

const DOCUMENTS: ReadonlyArray<[path: string, format: string, mediaType: string]> = [
  ['/.well-known/woa.json', 'woa', 'application/woa+json'],
  ['/agent.json', 'awp', 'application/json'],
  ['/.well-known/agent-card.json', 'a2a', 'application/json'],
  ['/.well-known/agent.json', 'a2a', 'application/json'],
  ['/.well-known/agents.json', 'agents-json', 'application/json'],
  ['/agents/text/agent.json', 'agent-json', 'application/ld+json'],
  ['/agents/clock/agent.json', 'agent-json', 'application/ld+json'],
  ['/agents/text/card', 'td', 'application/td+json'],
  ['/text/card', 'td', 'application/td+json'],
  ['/clock/card', 'td', 'application/td+json'],
  ['/capabilities', 'mcp', 'application/json'],
  ['/agents/clock/capabilities', 'mcp', 'application/json'],
  ['/.well-known/wot', 'td', 'application/td+json'],
];

describe('discovery documents', () => {
  let running: RunningHost;
  const get = (path: string, init: RequestInit = {}) =>
    running.fetcher
      .fetch(`${running.url}${path}`, {
        method: init.method ?? 'GET',
        headers: (init.headers as Record<string, string> | undefined) ?? {},
        cacheMode: 'no-store',
      })
      .then((result) => result.response);

  before(async () => {
    running = await startHost({
      agents: [textAgent(), clockAgent()],
      https: true,
      cacheControl: 'public, max-age=60',
    });
  });
  after(() => running.close());

  for (const [path, format, mediaType] of DOCUMENTS) {
    test(`${path} is a valid ${format} document served as ${mediaType}`, async () => {
      const response = await get(path);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), mediaType);
      const read = readDocument(await response.json(), { sourceUrl: `${running.url}${path}` });
      assert.equal(read.format, format);
      const errors = read.issues.filter((issue) => issue.severity === 'error');
      assert.deepEqual(errors, [], JSON.stringify(errors, null, 2));
    });
  }

  test('the WoA document lists both agents with the rest transport of this host', async () => {
    const read = readDocument(await json(await get('/.well-known/woa.json')));
    assert.deepEqual(
      read.agents.map((agent) => agent.id),
      ['text', 'clock'],
    );
    const rest = read.agents[0]!.bindings.find((binding) => binding.kind === 'woa-rest');
    assert.deepEqual(rest, {
      kind: 'woa-rest',
      base: running.url,
      invokePath: '/agents/{agent_id}/invoke',
      transportName: 'rest',
    });
  });

  test('zod schemas are published as JSON Schema', async () => {
    const card = await json(await get('/agents/text/card'));
    const summarize = (card['actions'] as JsonObject)['summarize'] as JsonObject;
    const input = summarize['input'] as JsonObject;
    assert.equal(input['type'], 'object');
    assert.deepEqual(input['required'], ['text']);
    assert.deepEqual((input['properties'] as JsonObject)['text'], { type: 'string', minLength: 1 });
    const woa = readDocument(await json(await get('/.well-known/woa.json')));
    const op = woa.agents[0]!.operations.find((candidate) => candidate.name === 'summarize')!;
    assert.deepEqual((op.output as JsonObject)['required'], ['summary', 'words']);
  });

  test('TD cards declare the governance and streaming fields and a form per operation', async () => {
    const read = readDocument(await json(await get('/agents/text/card')));
    const agent = read.agents[0] as Agent;
    const slow = agent.operations.find((op) => op.name === 'slow')!;
    assert.equal(slow.executionModel, 'async');
    const forms = agent.bindings.filter((binding) => binding.kind === 'http');
    assert.ok(
      forms.some(
        (binding) => binding.kind === 'http' && binding.url === `${running.url}/agents/text/operations/count`,
      ),
    );
  });

  test('the A2A card and AWP surface describe the primary agent', async () => {
    const card = readDocument(await json(await get('/.well-known/agent-card.json')));
    assert.equal(card.agents[0]!.name, 'Text tools');
    const awp = await json(await get('/agent.json'));
    assert.ok((awp['actions'] as JsonObject[]).some((action) => action['id'] === 'summarize'));
  });

  test('the WoT directory links every card and lists the TDs at /things', async () => {
    const directory = await json(await get('/.well-known/wot'));
    assert.deepEqual(directory['@type'], 'ThingDirectory');
    const links = (directory['links'] as JsonObject[]).map((link) => link['href']);
    assert.deepEqual(links, [`${running.url}/agents/text/card`, `${running.url}/agents/clock/card`]);
    const things = (await (await get('/things')).json()) as unknown[];
    assert.equal(things.length, 2);
    for (const thing of things) assert.equal(readDocument(thing).format, 'td');
  });

  test('OpenAPI 3.1 describes each invocation endpoint with its schemas', async () => {
    const openapi = await json(await get('/openapi.json'));
    assert.equal(openapi['openapi'], '3.1.0');
    const paths = openapi['paths'] as Record<string, JsonObject>;
    const summarize = paths['/agents/text/operations/summarize']!;
    const post = summarize['post'] as JsonObject;
    const schema = ((post['requestBody'] as JsonObject)['content'] as Record<string, JsonObject>)[
      'application/json'
    ]!['schema'] as JsonObject;
    assert.deepEqual(schema['required'], ['text']);
    assert.ok(summarize['get'], 'safe operations can be called with GET');
    assert.ok(paths['/agents/text/invoke']?.['post']);
    assert.ok((paths['/agents/text/operations/slow']!['post'] as JsonObject)['responses'] as JsonObject);
    assert.ok(paths['/tasks/{taskId}']?.['get']);
  });

  test('the TD card is JSON-LD when the Accept header asks for it', async () => {
    const td = await get('/agents/text/card', { headers: { accept: 'application/ld+json' } });
    assert.equal(td.headers.get('content-type'), 'application/ld+json');
    assert.equal(td.headers.get('vary'), 'Accept');
    const plain = await get('/agents/text/card');
    assert.equal(plain.headers.get('content-type'), 'application/td+json');
    assert.notEqual(td.headers.get('etag'), plain.headers.get('etag'));
    assert.equal(await td.text(), await plain.text());
  });

  test('the ontology is Turtle, or our JSON-LD context on request, as core ships them', async () => {
    const turtle = await get('/ontology');
    assert.equal(turtle.headers.get('content-type'), 'text/turtle; charset=utf-8');
    assert.match(await turtle.text(), /@prefix/);
    const context = await get('/ontology', { headers: { accept: 'application/ld+json' } });
    assert.equal(context.headers.get('content-type'), 'application/ld+json');
    assert.ok('@context' in ((await context.json()) as JsonObject));
  });

  test('documents carry a strong ETag, Last-Modified and Cache-Control', async () => {
    const response = await get('/.well-known/woa.json');
    assert.match(response.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]+"$/);
    assert.ok(Date.parse(response.headers.get('last-modified') ?? '') > 0);
    assert.equal(response.headers.get('cache-control'), 'public, max-age=60');
    const again = await get('/.well-known/woa.json');
    assert.equal(again.headers.get('etag'), response.headers.get('etag'));
  });

  test('If-None-Match and If-Modified-Since answer 304 without a body', async () => {
    const first = await get('/.well-known/agents.json');
    const etag = first.headers.get('etag')!;
    const byTag = await get('/.well-known/agents.json', {
      headers: { 'if-none-match': `W/${etag}, "other"` },
    });
    assert.equal(byTag.status, 304);
    assert.equal(byTag.headers.get('etag'), etag);
    assert.equal(await byTag.text(), '');
    const byDate = await get('/.well-known/agents.json', {
      headers: { 'if-modified-since': first.headers.get('last-modified')! },
    });
    assert.equal(byDate.status, 304);
    const stale = await get('/.well-known/agents.json', { headers: { 'if-none-match': '"stale"' } });
    assert.equal(stale.status, 200);
    const older = await get('/.well-known/agents.json', {
      headers: {
        'if-modified-since': new Date(Date.parse(first.headers.get('last-modified')!) - 10_000).toUTCString(),
      },
    });
    assert.equal(older.status, 200);
  });

  test('HEAD answers the headers of GET and no body', async () => {
    const head = await get('/.well-known/woa.json', { method: 'HEAD' });
    const getResponse = await get('/.well-known/woa.json');
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('etag'), getResponse.headers.get('etag'));
    assert.equal(head.headers.get('content-length'), String((await getResponse.arrayBuffer()).byteLength));
    assert.equal(await head.text(), '');
  });

  test('other methods on a document are 405 with Allow', async () => {
    const response = await get('/.well-known/woa.json', { method: 'POST' });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD');
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
  });

  test('unknown paths are 404 problems', async () => {
    const response = await get('/nothing/here');
    assert.equal(response.status, 404);
    const body = await json(response);
    assert.equal(body['status'], 404);
    assert.deepEqual(body['error'], { code: 'NotFound', message: body['detail'] });
  });
});

describe('a host under a base path, over plain HTTP', () => {
  let running: RunningHost;
  before(async () => {
    running = await startHost({ agents: [clockAgent()], basePath: '/hosted' });
  });
  after(() => running.close());

  test('serves its documents under the path and links them there', async () => {
    const response = await fetch(`${running.url}/.well-known/agents.json`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { agents: { clock: `${running.url}/agents/clock/agent.json` } });
    const outside = await fetch(`${new URL(running.url).origin}/.well-known/agents.json`);
    assert.equal(outside.status, 404);
  });
});
