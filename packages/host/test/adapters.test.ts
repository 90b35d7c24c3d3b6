/** The Hono and Express adapters each serve a document and an invocation, on real loopback servers. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { readDocument } from '@agentry/core';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { expressHandler } from '../src/express.js';
import { honoHandler } from '../src/hono.js';
import { createHost, type Host } from '../src/index.js';
import { nodeRequestListener, serveNode } from '../src/node.js';
import { clockAgent, textAgent } from './fixtures/agents.js';
import { memoryLogger, nodeFetch, tlsMaterial } from './support.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
}

describe('Hono', () => {
  let server: Server;
  let host: Host;
  let url: string;
  before(async () => {
    server = createServer();
    url = await listen(server);
    host = createHost({ agents: [textAgent()], baseUrl: url, logger: memoryLogger() });
    const app = new Hono();
    app.get('/hello', (c) => c.text('hello'));
    app.all('*', honoHandler(host));
    // Hono apps are fetch handlers too: a host serves them through its own Node listener's shape.
    server.on('request', (incoming, outgoing) => {
      nodeRequestListener({ ...host, fetch: async (request) => app.fetch(request) })(incoming, outgoing);
    });
  });
  after(async () => {
    await host.close();
    await close(server);
  });

  test('serves a document and an invocation beside its own routes', async () => {
    const card = await fetch(`${url}/agents/text/card`);
    assert.equal(card.headers.get('content-type'), 'application/td+json');
    assert.equal(readDocument(await card.json()).format, 'td');
    const result = await fetch(`${url}/agents/text/operations/summarize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x y' }),
    });
    assert.deepEqual(await result.json(), { summary: 'x y', words: 2 });
    assert.equal(await (await fetch(`${url}/hello`)).text(), 'hello');
  });

  test('refuses a rebound Host and a foreign page as serveNode does', async () => {
    await assertGuarded(`${url}/agents/text/operations/summarize`);
  });
});

/** A request to `target` naming another host, and one from another site's page, are refused with 403. */
async function assertGuarded(target: string): Promise<void> {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' };
  const rebound = await nodeFetch({ headers: { host: 'rebound.example' } })(target, init);
  assert.equal(rebound.status, 403);
  assert.equal(((await rebound.json()) as { code: string }).code, 'HostNotAllowed');
  const page = await nodeFetch({ headers: { origin: 'https://evil.example' } })(target, init);
  assert.equal(page.status, 403);
  assert.equal(((await page.json()) as { code: string }).code, 'OriginNotAllowed');
}

test('Hono on @hono/node-server: anonymous callers at different addresses have buckets of their own', async () => {
  const host = createHost({
    agents: [textAgent()],
    baseUrl: 'http://127.0.0.1',
    rateLimits: { default: '1/minute' },
    logger: memoryLogger(),
  });
  const app = new Hono();
  app.all('*', honoHandler(host));
  const server = createServer(getRequestListener(app.fetch));
  const url = await listen(server);
  try {
    const summarize = (from: string) =>
      nodeFetch({ localAddress: from })(`${url}/agents/text/operations/summarize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"x"}',
      });
    assert.equal((await summarize('127.0.0.1')).status, 200);
    assert.equal((await summarize('127.0.0.1')).status, 429);
    assert.equal((await summarize('127.0.0.2')).status, 200, 'another address, another bucket');
  } finally {
    await host.close();
    await close(server);
  }
});

describe('Express', () => {
  let server: Server;
  let host: Host;
  let url: string;
  before(async () => {
    const app = express();
    server = createServer(app);
    url = await listen(server);
    host = createHost({
      agents: [clockAgent(), textAgent()],
      baseUrl: `${url}/agents-host`,
      logger: memoryLogger(),
    });
    app.use(express.json());
    app.use('/agents-host', expressHandler(host));
    app.get('/agents-host/own', (_request, response) => {
      response.send('own route');
    });
  });
  after(async () => {
    await host.close();
    await close(server);
  });

  test('serves a document under its mount path', async () => {
    const response = await fetch(`${url}/agents-host/.well-known/agents.json`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      agents: {
        clock: `${url}/agents-host/agents/clock/agent.json`,
        text: `${url}/agents-host/agents/text/agent.json`,
      },
    });
  });

  test('serves an invocation whose body express.json() already read', async () => {
    const response = await fetch(`${url}/agents-host/agents/text/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'echo', input: { value: 'hi' } }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { value: 'hi', sessionId: null, transport: 'envelope' });
  });

  test('passes requests it has no route for to the next middleware', async () => {
    assert.equal(await (await fetch(`${url}/agents-host/own`)).text(), 'own route');
    const unknownAgent = await fetch(`${url}/agents-host/agents/ghost/invoke`, {
      method: 'POST',
      body: '{}',
    });
    assert.equal(unknownAgent.status, 404);
    assert.equal(unknownAgent.headers.get('content-type'), 'application/problem+json');
  });

  test('refuses a rebound Host and a foreign page as serveNode does', async () => {
    await assertGuarded(`${url}/agents-host/agents/text/operations/summarize`);
  });
});

describe('serveNode', () => {
  test('serves HTTPS with a certificate and key given as tls, and says so in its URL', async () => {
    const { cert, key } = await tlsMaterial();
    const host = createHost({ agents: [textAgent()], baseUrl: 'https://127.0.0.1', logger: memoryLogger() });
    const served = await serveNode(host, { tls: { cert, key } });
    const fetcher = createSecureFetcher({ ca: cert, allowPrivateNetwork: true, cache: false });
    try {
      assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const { response } = await fetcher.fetch(`${served.url}/.well-known/woa.json`);
      assert.equal(response.status, 200);
      assert.equal(readDocument(await response.json()).format, 'woa');
    } finally {
      await fetcher.close();
      await served.close();
      await host.close();
    }
  });
});
