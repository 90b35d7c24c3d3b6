/**
 * The rest of the surface: the gateway and resolution mounted on real loopback servers, health, metrics, the
 * OpenAPI document checked against the routes, and 404/405.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { readDocument } from '@agentry/core';
import type { CrawledAgent } from '../../src/crawl/types.js';
import { aidipAgent, asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

/** Lets the agent's POST /stream-broken break its stream off (once the caller has read its first event). */
let breakStreamOff: () => void = () => {};

/**
 * A plain HTTP agent: POST /echo answers {echo: text}; POST /fail answers 500; POST /stream streams an event, then
 * its result; POST /stream-broken streams an event, then breaks the connection off when the test says.
 */
function startAgent(): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/stream' || request.url === '/stream-broken') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('event: chunk\ndata: {"echo":"he"}\n\n');
        if (request.url === '/stream') response.end('event: result\ndata: {"echo":"hello"}\n\n');
        else
          void new Promise<void>((resolve) => {
            breakStreamOff = resolve;
          }).then(() => response.destroy());
        return;
      }
      if (request.url === '/fail') {
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"code":"AgentError","message":"broken"}}');
        return;
      }
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { text?: string };
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ echo: input.text ?? '' }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

/** A Thing Description (plain HTTP forms are allowed there) of an agent with one action at `href`. */
function thing(id: string, title: string, description: string, href: string): Record<string, unknown> {
  return {
    '@context': 'https://www.w3.org/2022/wot/td/v1.1',
    id: `urn:test:${id}`,
    title,
    description,
    securityDefinitions: { nosec: { scheme: 'nosec' } },
    security: 'nosec',
    actions: {
      echo: {
        description: 'Repeats the text it is given.',
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        output: { type: 'object', properties: { echo: { type: 'string' } } },
        forms: [{ href, contentType: 'application/json', 'htv:methodName': 'POST' }],
      },
    },
  };
}

describe('gateway, resolution and system endpoints', () => {
  let r: TestRegistry;
  let agent: { server: Server; base: string };
  let publisher: string;
  let client: string;
  const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });

  before(async () => {
    agent = await startAgent();
    r = await startRegistry({ fetcher });
    publisher = (await r.token('publisher', { publisher: 'acme' })).token;
    client = (await r.token('client')).token;
    for (const [id, path] of [
      ['echo', '/echo'],
      ['broken', '/fail'],
      ['streamer', '/stream'],
      ['breaker', '/stream-broken'],
    ] as const) {
      const created = await r.request('/agents', {
        token: publisher,
        body: thing(
          id,
          `${id} agent`,
          `The ${id} agent repeats text back to the caller.`,
          `${agent.base}${path}`,
        ),
      });
      assert.equal(created.status, 201, created.text);
    }
  });
  after(async () => {
    await r.close();
    await fetcher.close();
    await new Promise((done) => agent.server.close(done));
  });

  test('POST /agents/{id}/invoke calls the agent and records the outcome in its quality', async () => {
    const answer = await r.request('/agents/urn-test-echo/invoke', {
      token: client,
      body: { input: { text: 'hello' } },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, { echo: 'hello' });
    const failed = await r.request('/agents/urn-test-broken/invoke', {
      token: client,
      body: { input: { text: 'x' } },
    });
    assert.ok(failed.status >= 500, failed.text);
    assert.equal(failed.headers.get('content-type'), 'application/problem+json');

    const echo = asObject(
      asObject(asObject((await r.request('/agents/urn-test-echo')).json)['registry'])['quality'],
    );
    assert.equal(echo['invocations'], 1);
    assert.equal(echo['failures'], 0);
    assert.equal(typeof echo['latency_p50_ms'], 'number');
    assert.equal(typeof echo['last_seen_at'], 'string');
    const broken = asObject(
      asObject(asObject((await r.request('/agents/urn-test-broken')).json)['registry'])['quality'],
    );
    assert.equal(broken['failures'], 1);
    assert.ok(Number(broken['score']) < Number(echo['score']));

    // A caller's mistake is not the agent's failure.
    const bad = await r.request('/agents/urn-test-echo/invoke', { token: client, body: { nothing: true } });
    assert.equal(bad.status, 400, bad.text);
    const after = asObject(
      asObject(asObject((await r.request('/agents/urn-test-echo')).json)['registry'])['quality'],
    );
    assert.equal(after['invocations'], 1);
    assert.equal(
      (await r.request('/agents/urn-test-echo/invoke', { body: { input: { text: 'x' } } })).status,
      401,
    );
  });

  test('a relayed stream counts once it has ended: completed, a success; broken off mid-way, a failure', async () => {
    const quality = async (id: string) =>
      asObject(asObject(asObject((await r.request(`/agents/${id}`)).json)['registry'])['quality']);
    const streamed = await r.request('/agents/urn-test-streamer/invoke', {
      token: client,
      body: { input: { text: 'hello' } },
      headers: { accept: 'text/event-stream' },
    });
    assert.equal(streamed.headers.get('content-type'), 'text/event-stream');
    assert.match(streamed.text, /event: chunk\n[\s\S]*event: result\ndata: \{"echo":"hello"\}/);
    // Read to its end, the stream is counted: the registry closes it once the outcome is recorded.
    const completed = await quality('urn-test-streamer');
    assert.equal(completed['invocations'], 1);
    assert.equal(completed['failures'], 0);

    const broken = await fetch(`${r.url}/agents/urn-test-breaker/invoke`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${client}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ input: { text: 'hello' } }),
    });
    assert.equal(broken.status, 200, 'it started well');
    const reader = broken.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    breakStreamOff();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += read.value;
    assert.match(text, /^event: chunk\n[\s\S]*\nevent: error\n/);
    const failed = await quality('urn-test-breaker');
    assert.equal(failed['invocations'], 1);
    assert.equal(failed['failures'], 1);
  });

  test('POST /resolve returns candidates with what a client needs to call them', async () => {
    const answer = await r.request('/resolve', { body: { intent: 'repeat my text back', top: 2 } });
    assert.equal(answer.status, 200, answer.text);
    const candidates = asArray(asObject(answer.json)['candidates']);
    assert.ok(
      candidates.some((candidate) => candidate['id'] === 'urn-test-echo'),
      answer.text,
    );
    const invalid = await r.request('/resolve', { body: { top: 'many' } });
    assert.equal(invalid.status, 400, invalid.text);
    assert.equal(invalid.headers.get('content-type'), 'application/problem+json');
    assert.equal(asObject(asObject(invalid.json)['error'])['code'], 'InvalidInput');
    // Each place is named once: in `pointer`, and before its reason in `detail`.
    const wrongType = await r.request('/resolve', { body: { intent: 'x', policy: { min_trust: 'high' } } });
    assert.equal(wrongType.status, 400, wrongType.text);
    const problem = asObject(wrongType.json);
    assert.equal(problem['detail'], 'The resolve request is not valid: /policy/min_trust: must be number.');
    assert.deepEqual(problem['errors'], [{ pointer: '/policy/min_trust', detail: 'must be number' }]);
  });

  test('GET /healthz, and /metrics for the admin in Prometheus text', async () => {
    const health = await r.request('/healthz');
    assert.equal(health.status, 200);
    assert.equal(asObject(health.json)['status'], 'ok');
    const metrics = await r.request('/metrics', { token: r.admin });
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(metrics.text, /# TYPE \S+ histogram/);
    assert.match(metrics.text, /route="\/agents\/:id"/);
  });

  test('unknown paths are 404 and known paths with the wrong method 405 with Allow', async () => {
    const missing = await r.request('/nowhere');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'application/problem+json');
    for (const [path, method, allow] of [
      ['/agents', 'DELETE', 'GET, POST, HEAD'],
      ['/agents/echo', 'POST', 'GET, PUT, DELETE, HEAD'],
      ['/agents/search', 'GET', undefined],
      ['/resolve', 'GET', 'POST'],
      ['/admin/tokens', 'PUT', 'GET, POST, HEAD'],
    ] as const) {
      const answer = await r.request(path, { method });
      if (allow === undefined) {
        // GET /agents/search reads "search" as an agent id, which is reserved: 404.
        assert.equal(answer.status, 404, `${method} ${path}`);
        continue;
      }
      assert.equal(answer.status, 405, `${method} ${path}: ${answer.text}`);
      assert.equal(answer.headers.get('allow'), allow);
      assert.equal(asObject(answer.json)['code'], 'MethodNotAllowed');
    }
    const metrics = await r.request('/metrics', { token: r.admin });
    assert.match(metrics.text, /route="unmatched"/);
    assert.doesNotMatch(metrics.text, /nowhere/, 'unknown paths do not become label values');
    assert.match(
      metrics.text,
      /route="\/agents\/:id",method="GET",status="404"|status="404"[^\n]*route="\/agents\/:id"/,
    );
    const head = await fetch(`${r.url}/agents/urn-test-echo`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.ok(head.headers.get('etag'));
  });

  test('the OpenAPI document describes exactly the routes the registry serves', async () => {
    const answer = await r.request('/openapi.json');
    assert.equal(answer.status, 200);
    const document = asObject(answer.json);
    assert.match(String(document['openapi']), /^3\.1\./);
    const paths = asObject(document['paths']);
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(paths)) {
      for (const method of Object.keys(asObject(item))) {
        if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
        documented.add(`${method.toUpperCase()} ${path}`);
        const concrete = path.replace(/\{[^}]+\}/g, 'urn-test-echo');
        const probe = await r.request(concrete, {
          method: method.toUpperCase(),
          token: r.admin,
          ...(method === 'get' || method === 'delete'
            ? {}
            : { raw: '{}', headers: { 'content-type': 'application/json' } }),
        });
        assert.ok(probe.status !== 405, `${method} ${path} is documented but not served`);
        assert.ok(!/No such endpoint/.test(probe.text), `${method} ${path} is documented but not served`);
      }
    }
    for (const route of [
      'GET /agents',
      'POST /agents',
      'POST /agents/search',
      'GET /agents/{id}',
      'PUT /agents/{id}',
      'DELETE /agents/{id}',
      'GET /agents/{id}/history',
      'POST /agents/{id}/feedback',
      'POST /agents/{id}/invoke',
      'POST /resolve',
      'GET /healthz',
      'GET /metrics',
      'GET /openapi.json',
      'POST /admin/tokens',
      'GET /admin/tokens',
      'DELETE /admin/tokens/{id}',
      'GET /admin/audit',
    ]) {
      assert.ok(documented.has(route), `${route} is served but not documented`);
    }
  });
});

describe('the crawl sink', () => {
  let r: TestRegistry;
  before(async () => {
    r = await startRegistry();
  });
  after(() => r.close());

  function crawled(id: string, description: string): CrawledAgent {
    const read = readDocument(aidipAgent({ id, name: `Crawled ${id}`, description }));
    assert.equal(read.valid, true);
    const fetchedAt = '2026-01-01T00:00:00.000Z';
    return {
      id,
      agent: read.agents[0]!,
      sources: [
        {
          url: 'https://crawled.example/agents.json',
          format: 'aidip',
          origin: 'native',
          fetchedAt,
          primary: true,
        },
      ],
      synthetic: false,
      foreignClaims: [],
    };
  }

  test('stores crawled agents under stable ids, marks them inactive, records liveness and tombstones them', async () => {
    const sink = r.registry.crawlSink;
    const origin = 'https://crawled.example';
    await sink.upsertCrawled(origin, [
      crawled('weather', 'Forecasts the weather.'),
      crawled('tides', 'Tide tables.'),
    ]);
    await sink.upsertCrawled(origin, [crawled('weather', 'Forecasts the weather, hourly.')]);
    const weather = asObject((await r.request('/agents/crawled.example.weather')).json);
    assert.equal(weather['description'], 'Forecasts the weather, hourly.');
    assert.equal(asObject(weather['registry'])['owner'], 'crawler:crawled.example');
    assert.equal(asObject(weather['registry'])['revision'], 2);
    const found = asArray((await r.request('/agents?q=tide')).json);
    assert.deepEqual(
      found.map((item) => item['id']),
      ['crawled.example.tides'],
    );

    await sink.recordLiveness(origin, 'weather', {
      status: 'up',
      probe: 'http HEAD',
      checkedAt: '2026-01-02T00:00:00.000Z',
      lastSeenAt: '2026-01-02T00:00:00.000Z',
    });
    const seen = asObject(
      asObject(asObject((await r.request('/agents/crawled.example.weather')).json)['registry'])['quality'],
    );
    assert.equal(seen['last_seen_at'], '2026-01-02T00:00:00.000Z');

    await sink.markInactive(origin, ['weather', 'unknown']);
    await sink.markInactive(origin, ['weather']);
    const inactive = asObject((await r.request('/agents/crawled.example.weather')).json);
    assert.equal(inactive['status'], 'inactive');
    assert.equal(asObject(inactive['registry'])['revision'], 3, 'marking twice is one change');

    await sink.tombstone(origin, ['weather']);
    await sink.tombstone(origin, ['weather']);
    assert.equal((await r.request('/agents/crawled.example.weather')).status, 404);
    const changes = asArray((await r.request('/agents?updated_since=2000-01-01T00:00:00Z')).json);
    assert.ok(changes.some((item) => item['id'] === 'crawled.example.weather' && item['deleted'] === true));
    assert.deepEqual(
      asArray((await r.request('/agents?q=weather')).json).map((item) => item['id']),
      [],
      'the search index forgot it',
    );
  });
});
