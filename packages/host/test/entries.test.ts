/**
 * The host's entries as a user imports them, by the package's name (resolved through package.json `exports` to the
 * built dist/): `@agentry/host/node` serves an agent on loopback, `@agentry/host/hono` mounts one in a Hono app,
 * `@agentry/host/express` in an Express app. The main entry holds no adapter: each is in its own entry.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import * as host from '@agentry/host';
import { createHost, defineAgent } from '@agentry/host';
import { expressHandler } from '@agentry/host/express';
import { honoHandler } from '@agentry/host/hono';
import { serveNode } from '@agentry/host/node';
import express from 'express';
import { Hono } from 'hono';

const echo = defineAgent({
  id: 'echo',
  name: 'Echo',
  description: 'Answers with its input.',
  operations: { echo: { description: 'Echo the input.', handler: (input: unknown) => input } },
});

const quiet = { info() {}, warn() {}, error() {} };

async function echoed(url: string): Promise<unknown> {
  const response = await fetch(`${url}/agents/echo/operations/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ said: 'hello' }),
  });
  assert.equal(response.status, 200);
  return response.json();
}

describe('the host entries, imported by the package name', () => {
  test('the main entry exports no adapter', () => {
    for (const name of ['serveNode', 'nodeRequestListener', 'honoHandler', 'expressHandler']) {
      assert.equal(name in host, false, `${name} is not in @agentry/host`);
    }
  });

  test('@agentry/host/node serves an agent on loopback', async () => {
    const agents = createHost({ agents: [echo], baseUrl: 'http://127.0.0.1', logger: quiet });
    const served = await serveNode(agents);
    try {
      assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(await echoed(served.url), { said: 'hello' });
    } finally {
      await served.close();
      await agents.close();
    }
  });

  test('@agentry/host/hono mounts a host in a Hono app beside its own routes', async () => {
    const agents = createHost({ agents: [echo], baseUrl: 'http://app.test', logger: quiet });
    const app = new Hono();
    app.get('/hello', (c) => c.text('hello'));
    app.all('*', honoHandler(agents));
    try {
      const card = await app.fetch(new Request('http://app.test/.well-known/agents.json'));
      assert.equal(card.status, 200);
      assert.deepEqual(await card.json(), { agents: { echo: 'http://app.test/agents/echo/agent.json' } });
      const hello = await app.fetch(new Request('http://app.test/hello'));
      assert.equal(await hello.text(), 'hello');
    } finally {
      await agents.close();
    }
  });

  test('@agentry/host/express mounts a host in an Express app on loopback', async () => {
    const app = express();
    const server: Server = createServer(app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agents = createHost({ agents: [echo], baseUrl: url, logger: quiet });
    app.use(expressHandler(agents));
    app.get('/own', (_request, response) => {
      response.send('own route');
    });
    try {
      assert.deepEqual(await echoed(url), { said: 'hello' });
      assert.equal(await (await fetch(`${url}/own`)).text(), 'own route');
    } finally {
      await agents.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
