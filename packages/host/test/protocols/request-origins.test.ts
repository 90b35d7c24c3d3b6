/**
 * DNS rebinding and cross-site pages, on every surface of a host served on loopback: a request naming another
 * host (`Host`), a page of another site (`Origin`), and a page of the host's own name under the other scheme are
 * refused with 403 problem details before anything runs; the host's own name and pages, and programs (no
 * `Origin`), are served. The discovery documents stay readable by any page, but not under a foreign `Host`.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocket } from 'ws';
import { nodeFetch, type RunningHost, startHost } from '../support.js';
import { toolsAgent } from './agents.js';

let running: RunningHost;
let port: string;
let taskPath: string;

before(async () => {
  running = await startHost({ agents: [toolsAgent()], webSocket: true });
  port = new URL(running.url).port;
  const started = await send('POST', '/agents/tools/operations/later', {}, { ms: 0 });
  assert.equal(started.status, 202);
  taskPath = new URL(String(started.body['pollUrl'])).pathname;
});

after(async () => {
  await running.close();
});

interface Sent {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A request with the headers given, `Host` included (node:http sends it, as a rebinding browser does). */
async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Sent> {
  const response = await nodeFetch({ headers })(`${running.url}${path}`, {
    method,
    headers: {
      accept: 'application/json, text/event-stream',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const raw = await response.text();
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>),
  };
}

const confirmed = { 'x-agent-confirmation': 'true' };
const a2aMessage = {
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      role: 'user',
      messageId: 'm-1',
      parts: [{ kind: 'data', data: { text: 'hi' } }],
      metadata: { skillId: 'echo' },
    },
  },
};
const mcpCall = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'wipe', arguments: {}, _meta: { confirm: true } },
};

/** Every surface that acts, with a request that succeeds when it is let through. */
const surfaces: { name: string; method: string; path: () => string; body?: unknown; served: number }[] = [
  {
    name: 'the envelope (a destructive operation, confirmed)',
    method: 'POST',
    path: () => '/agents/tools/invoke',
    body: { operation: 'wipe', input: {} },
    served: 200,
  },
  {
    name: 'POST /invoke',
    method: 'POST',
    path: () => '/invoke',
    body: { agent: 'tools', operation: 'wipe', input: {} },
    served: 200,
  },
  {
    name: 'a per-operation endpoint',
    method: 'POST',
    path: () => '/agents/tools/operations/wipe',
    body: {},
    served: 200,
  },
  {
    name: 'a per-operation GET',
    method: 'GET',
    path: () => '/agents/tools/operations/echo?text=hi',
    served: 200,
  },
  { name: 'MCP', method: 'POST', path: () => '/mcp', body: mcpCall, served: 200 },
  { name: 'an agent’s MCP', method: 'POST', path: () => '/agents/tools/mcp', body: mcpCall, served: 200 },
  { name: 'A2A JSON-RPC', method: 'POST', path: () => '/agents/tools/a2a', body: a2aMessage, served: 200 },
  { name: 'a task', method: 'GET', path: () => taskPath, served: 200 },
];

describe('every surface that acts', () => {
  for (const surface of surfaces) {
    test(`${surface.name}: foreign Host, foreign Origin and the other scheme are refused; the host's own served`, async () => {
      const foreignHost = await send(
        surface.method,
        surface.path(),
        { ...confirmed, host: `rebound.example:${port}`, origin: `http://rebound.example:${port}` },
        surface.body,
      );
      assert.equal(foreignHost.status, 403);
      assert.equal(foreignHost.headers['content-type'], 'application/problem+json');
      assert.equal(foreignHost.body['code'], 'HostNotAllowed');
      assert.match(String(foreignHost.body['detail']), /--allowed-host/);

      const foreignOrigin = await send(
        surface.method,
        surface.path(),
        { ...confirmed, origin: 'https://evil.example' },
        surface.body,
      );
      assert.equal(foreignOrigin.status, 403);
      assert.equal(foreignOrigin.body['code'], 'OriginNotAllowed');
      assert.match(String(foreignOrigin.body['detail']), /--allowed-origin/);

      const otherScheme = await send(
        surface.method,
        surface.path(),
        { ...confirmed, origin: `https://127.0.0.1:${port}` },
        surface.body,
      );
      assert.equal(otherScheme.status, 403);
      assert.equal(otherScheme.body['code'], 'OriginNotAllowed');

      const owns: Record<string, string>[] = [
        {},
        { origin: running.url },
        { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      ];
      for (const own of owns) {
        const served = await send(surface.method, surface.path(), { ...confirmed, ...own }, surface.body);
        assert.equal(served.status, surface.served, JSON.stringify({ own, body: served.body }));
      }
    });
  }
});

test('discovery documents: any page may read them, under the host’s own names only', async () => {
  const crossSite = await send('GET', '/.well-known/woa.json', { origin: 'https://evil.example' });
  assert.equal(crossSite.status, 200);
  assert.equal(crossSite.headers['access-control-allow-origin'], '*');
  const rebound = await send('GET', '/.well-known/woa.json', { host: `rebound.example:${port}` });
  assert.equal(rebound.status, 403);
  assert.equal(rebound.body['code'], 'HostNotAllowed');
  // Writing to a document is not reading it.
  assert.equal(
    (await send('POST', '/.well-known/woa.json', { origin: 'https://evil.example' }, {})).status,
    403,
  );
});

test('the MCP SDK client: refused with a foreign Origin or a rebound Host, served as itself', async () => {
  const connect = async (transport: StreamableHTTPClientTransport): Promise<Client> => {
    const client = new Client({ name: 'rebinding-tests', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  const endpoint = new URL(`${running.url}/mcp`);
  await assert.rejects(
    connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { origin: 'https://evil.example' } },
      }),
    ),
    /403/,
  );
  // A fetch that names another host, as a browser on a rebound name does (fetch itself cannot set Host).
  const rebound = nodeFetch({ headers: { host: `rebound.example:${port}` } });
  await assert.rejects(connect(new StreamableHTTPClientTransport(endpoint, { fetch: rebound })), /403/);

  const client = await connect(
    new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { origin: running.url } } }),
  );
  try {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'own page' } });
    assert.equal(result.isError, undefined);
  } finally {
    await client.close();
  }
});

describe('the WebSocket handshake', () => {
  const refusal = async (headers: Record<string, string>): Promise<{ status: number; code: unknown }> => {
    const socket = new WebSocket(`${running.url.replace(/^http/, 'ws')}/ws`, { headers });
    socket.on('error', () => {});
    const [, response] = (await once(socket, 'unexpected-response')) as [
      unknown,
      import('node:http').IncomingMessage,
    ];
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    socket.terminate();
    return {
      status: response.statusCode ?? 0,
      code: JSON.parse(Buffer.concat(chunks).toString('utf8')).code,
    };
  };

  test('a rebound Host (with Origin equal to it), a foreign Origin and the other scheme are refused', async () => {
    assert.deepEqual(
      await refusal({ host: `rebound.example:${port}`, origin: `http://rebound.example:${port}` }),
      {
        status: 403,
        code: 'HostNotAllowed',
      },
    );
    assert.deepEqual(await refusal({ origin: 'https://evil.example' }), {
      status: 403,
      code: 'OriginNotAllowed',
    });
    assert.deepEqual(await refusal({ origin: `https://127.0.0.1:${port}` }), {
      status: 403,
      code: 'OriginNotAllowed',
    });
  });

  test('the host’s own page, under either loopback name, connects and calls', async () => {
    for (const headers of [
      { origin: running.url },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    ]) {
      const socket = new WebSocket(`${running.url.replace(/^http/, 'ws')}/ws`, { headers });
      await once(socket, 'open');
      socket.send(JSON.stringify({ id: 1, agent: 'tools', operation: 'echo', input: { text: 'hi' } }));
      const [data] = await once(socket, 'message');
      assert.equal((JSON.parse(String(data)) as { type: string }).type, 'result');
      socket.close();
      await once(socket, 'close');
    }
  });
});

test('allowedHosts and allowedOrigins let named hosts and sites in, and only those', async () => {
  const named = await startHost({
    agents: [toolsAgent()],
    allowedHosts: ['agents.example'],
    allowedOrigins: ['https://app.example'],
  });
  try {
    const at = (headers: Record<string, string>) =>
      nodeFetch({ headers })(`${named.url}/agents/tools/operations/echo?text=hi`);
    assert.equal((await at({ host: 'agents.example', origin: 'https://app.example' })).status, 200);
    // The host's own page under an allowed name, in the base URL's scheme (http here), not the other one.
    assert.equal((await at({ host: 'agents.example', origin: 'http://agents.example' })).status, 200);
    assert.equal((await at({ host: 'agents.example', origin: 'https://agents.example' })).status, 403);
    assert.equal((await at({ host: 'agents.example', origin: 'http://app.example' })).status, 403);
    assert.equal((await at({ host: 'other.example' })).status, 403);
  } finally {
    await named.close();
  }
});
