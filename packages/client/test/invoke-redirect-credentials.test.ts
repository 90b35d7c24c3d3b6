/**
 * Credentials never follow a redirect to another origin (#20.7). Two real loopback servers on different ports: the
 * first answers every request with a 307 to the same path and query on the second. For each binding that follows
 * redirects (HTTP endpoints, WoA REST, MCP over Streamable HTTP, A2A JSON-RPC and HTTP+JSON, deferred polls) the
 * first server receives the call's credentials and the second none of them: no `Authorization`, no API key under
 * the name the agent's auth gives it, no `Cookie`, no key in the query. A task handed to a poll URL on another
 * origin is polled without them too. A unix socket refuses a redirect to another origin outright, since every
 * request goes to the same socket.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Agent, AuthContract, Binding, JsonValue } from '@agentry/core';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import { closeSocketConnections, invoke, TransportError } from '../src/index.js';
import { createToolServer } from './fixtures/mcp-tools.js';
import {
  jsonOf,
  loopbackFetcher,
  type RecordedRequest,
  rejection,
  sendJson,
  startServer,
  type TestServer,
  tempDirectory,
} from './invoke-support.js';

const BEARER = 'bearer-secret';
const API_KEY = 'key-secret';
const fetcher = loopbackFetcher();
const temp = tempDirectory('agentry-redirect-');
let front: TestServer;
let back: TestServer;
let socketServer: TestServer;

/** The agent's auth: an API key in a header of its own naming, or in the query, beside a bearer token. */
const headerKeyAuth: AuthContract = {
  schemes: [
    { id: 'key', type: 'apiKey', in: 'header', name: 'X-Agent-Token' },
    { id: 'token', type: 'bearer' },
  ],
};
const queryKeyAuth: AuthContract = {
  schemes: [{ id: 'key', type: 'apiKey', in: 'query', name: 'api_key' }],
};
const cookieKeyAuth: AuthContract = {
  schemes: [{ id: 'key', type: 'apiKey', in: 'cookie', name: 'session' }],
};

function agentWith(binding: Binding, auth: AuthContract = headerKeyAuth): Agent {
  return {
    id: 'redirected',
    name: 'Redirected',
    description: 'Moved to another origin.',
    operations: [{ name: 'echo' }],
    bindings: [binding],
    auth,
  };
}

/** Every credential the test sends, in any place a request carries one. */
function credentialsIn(request: RecordedRequest): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    const text = String(value);
    if (text.includes(BEARER) || text.includes(API_KEY)) found.push(`header ${name}`);
  }
  for (const [name, value] of request.query) {
    if (value.includes(BEARER) || value.includes(API_KEY)) found.push(`query ${name}`);
  }
  return found;
}

function assertFrontGotAndBackDidNot(): void {
  assert.ok(front.requests.length > 0, 'the call reached the first server');
  assert.ok(
    front.requests.every((request) => credentialsIn(request).length > 0),
    'the first server received the credentials',
  );
  assert.ok(back.requests.length > 0, 'the redirect was followed to the second server');
  for (const request of back.requests) {
    assert.deepEqual(credentialsIn(request), [], `${request.method} ${request.path} on the second server`);
    assert.equal(request.headers.authorization, undefined);
    assert.equal(request.headers['x-agent-token'], undefined);
    assert.equal(request.headers['x-api-key'], undefined);
    assert.equal(request.headers.cookie, undefined);
  }
}

function clearRequests(): void {
  front.requests.length = 0;
  back.requests.length = 0;
}

function a2aMessage(id: JsonValue, value: JsonValue): JsonValue {
  return {
    jsonrpc: '2.0',
    id,
    result: { message: { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ data: value }] } },
  };
}

before(async () => {
  back = await startServer({
    'POST /echo': (request, response) => sendJson(response, 200, { got: jsonOf(request) as JsonValue }),
    'POST /agents/redirected/invoke': (request, response) =>
      sendJson(response, 200, { envelope: jsonOf(request) as JsonValue }),
    'POST /a2a': (request, response) => {
      const { id } = jsonOf(request) as { id: JsonValue };
      sendJson(response, 200, a2aMessage(id, { ok: 'rpc' }));
    },
    'POST /a2a-rest/message:send': (_request, response) =>
      sendJson(response, 200, {
        message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ data: 'rest' }] },
      }),
    'POST /slow': (_request, response) =>
      sendJson(
        response,
        202,
        { taskId: 't-1' },
        { location: `${front.origin}/tasks/t-1`, 'retry-after': '0' },
      ),
    'GET /tasks/t-1': (_request, response) => sendJson(response, 200, { done: true }),
    // Hands the task to the first server, echoing the call's query (and so its key) into the Location.
    'POST /handed-off': (request, response) =>
      sendJson(
        response,
        202,
        { taskId: 't-2' },
        { location: `${front.origin}/tasks/t-2?${request.query}`, 'retry-after': '0' },
      ),
    'POST /mcp': async (request, response, incoming) => {
      const mcp = createToolServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(incoming, response, JSON.parse(request.body));
    },
  });
  const redirectToBack = (request: RecordedRequest, response: ServerResponse): void => {
    const search = request.query.size === 0 ? '' : `?${request.query}`;
    response.writeHead(307, { location: `${back.origin}${request.path}${search}` });
    response.end();
  };
  front = await startServer({
    '*': redirectToBack,
    'GET /tasks/t-2': (_request, response) => sendJson(response, 200, { done: true }),
  });
  socketServer = await startServer(
    {
      'POST /moved': (_request, response) => {
        response.writeHead(307, { location: '/invoke' });
        response.end();
      },
      'POST /away': (_request, response) => {
        response.writeHead(307, { location: `${back.origin}/echo` });
        response.end();
      },
      'POST /invoke': (request, response) =>
        sendJson(response, 200, {
          envelope: jsonOf(request) as JsonValue,
          auth: request.headers.authorization ?? null,
        }),
    },
    { socketPath: join(temp.path, 'agent.sock') },
  );
});

after(async () => {
  await Promise.all([front.close(), back.close(), socketServer.close()]);
  await closeSocketConnections();
  await fetcher.close();
  temp.remove();
});

describe('a redirect to another origin carries no credentials', () => {
  const credentials = { auth: { bearer: BEARER, apiKey: API_KEY } };

  test('HTTP endpoint: bearer and an API key under the name the agent gives it', async () => {
    clearRequests();
    const agent = agentWith({ kind: 'http', url: `${front.origin}/echo`, method: 'POST' });
    const result = await invoke({ agent }, { text: 'hi' }, { fetcher, ...credentials });
    assert.deepEqual(result.output, { got: { text: 'hi' } });
    assert.equal(front.requests[0]?.headers['x-agent-token'], API_KEY);
    assert.equal(front.requests[0]?.headers.authorization, `Bearer ${BEARER}`);
    assertFrontGotAndBackDidNot();
  });

  test('HTTP endpoint: an API key in the query is not carried on in the Location', async () => {
    clearRequests();
    const agent = agentWith(
      { kind: 'http', url: `${front.origin}/echo?lang=fr`, method: 'POST' },
      queryKeyAuth,
    );
    const result = await invoke({ agent }, { text: 'hi' }, { fetcher, auth: { apiKey: API_KEY } });
    assert.deepEqual(result.output, { got: { text: 'hi' } });
    assert.equal(front.requests[0]?.query.get('api_key'), API_KEY);
    assert.equal(back.requests[0]?.query.get('lang'), 'fr', 'the rest of the query is kept');
    assert.equal(back.requests[0]?.query.has('api_key'), false);
    assertFrontGotAndBackDidNot();
  });

  test('HTTP endpoint: an API key in a cookie', async () => {
    clearRequests();
    const agent = agentWith({ kind: 'http', url: `${front.origin}/echo`, method: 'POST' }, cookieKeyAuth);
    await invoke({ agent }, { text: 'hi' }, { fetcher, auth: { apiKey: API_KEY } });
    assert.equal(front.requests[0]?.headers.cookie, `session=${API_KEY}`);
    assertFrontGotAndBackDidNot();
  });

  test('WoA REST', async () => {
    clearRequests();
    const agent = agentWith({
      kind: 'woa-rest',
      base: `${front.origin}/`,
      invokePath: '/agents/{agent_id}/invoke',
    });
    const result = await invoke({ agent }, { text: 'hi' }, { fetcher, ...credentials });
    assert.deepEqual(result.output, {
      envelope: { agent: 'redirected', operation: 'echo', input: { text: 'hi' } },
    });
    assertFrontGotAndBackDidNot();
  });

  test('MCP over Streamable HTTP', async () => {
    clearRequests();
    const agent: Agent = {
      ...agentWith({ kind: 'mcp', server: `${front.origin}/mcp`, transport: 'streamable-http' }),
      operations: [{ name: 'add' }],
    };
    const result = await invoke({ agent }, { a: 1, b: 2 }, { fetcher, ...credentials });
    assert.deepEqual(result.output, { sum: 3 });
    assertFrontGotAndBackDidNot();
  });

  test('A2A JSON-RPC', async () => {
    clearRequests();
    const agent = agentWith({
      kind: 'a2a',
      url: `${front.origin}/a2a`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    const result = await invoke({ agent }, { text: 'hi' }, { fetcher, ...credentials });
    assert.deepEqual(result.output, { ok: 'rpc' });
    assertFrontGotAndBackDidNot();
  });

  test('A2A HTTP+JSON', async () => {
    clearRequests();
    const agent = agentWith({
      kind: 'a2a',
      url: `${front.origin}/a2a-rest`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
    });
    const result = await invoke({ agent }, { text: 'hi' }, { fetcher, ...credentials });
    assert.equal(result.output, 'rest');
    assertFrontGotAndBackDidNot();
  });

  test('a deferred task: the poll redirected to another origin carries none either', async () => {
    clearRequests();
    const agent = agentWith({ kind: 'http', url: `${front.origin}/slow`, method: 'POST' });
    const result = await invoke({ agent }, {}, { fetcher, ...credentials });
    assert.deepEqual(result.output, { done: true });
    assert.deepEqual(
      back.requests.map((request) => `${request.method} ${request.path}`),
      ['POST /slow', 'GET /tasks/t-1'],
    );
    assertFrontGotAndBackDidNot();
  });

  test("a deferred task's poll URL on another origin is polled without the credentials", async () => {
    clearRequests();
    const agent = agentWith({ kind: 'http', url: `${back.origin}/handed-off`, method: 'POST' }, queryKeyAuth);
    const result = await invoke({ agent }, {}, { fetcher, auth: { apiKey: API_KEY } });
    assert.deepEqual(result.output, { done: true });
    assert.equal(back.requests[0]?.query.get('api_key'), API_KEY, 'the call itself carries the key');
    const poll = front.requests.find((request) => request.path === '/tasks/t-2');
    assert.ok(poll, 'the poll went to the other origin');
    assert.deepEqual(credentialsIn(poll), []);
  });

  test('unix socket: a redirect within the socket is followed, one to another origin refused', async () => {
    clearRequests();
    const socketPath = socketServer.socketPath!;
    const moved = agentWith({ kind: 'unix', socketPath, path: '/moved' });
    const result = await invoke({ agent: moved }, { n: 1 }, { fetcher, ...credentials });
    assert.deepEqual(result.output, {
      envelope: { agent: 'redirected', operation: 'echo', input: { n: 1 } },
      auth: `Bearer ${BEARER}`,
    });
    const away = agentWith({ kind: 'unix', socketPath, path: '/away' });
    const error = await rejection(invoke({ agent: away }, { n: 1 }, { fetcher, ...credentials }));
    assert.ok(error instanceof TransportError, String(error));
    assert.match(error.message, /redirected to http:\/\/127\.0\.0\.1:\d+, another origin/);
    assert.equal(back.requests.length, 0);
  });
});

describe('the fetcher drops the credentials a request names', () => {
  test('on a hop to another port of the same host, headers and query parameters named as credentials', async () => {
    clearRequests();
    const secure = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    try {
      const { response } = await secure.fetch(`${front.origin}/echo?key=${API_KEY}&keep=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Custom-Key': API_KEY, 'X-API-Key': API_KEY },
        body: '{}',
        credentials: { headers: ['x-custom-key'], query: ['KEY'] },
      });
      assert.equal(response.status, 200);
    } finally {
      await secure.close();
    }
    assert.equal(front.requests[0]?.headers['x-custom-key'], API_KEY);
    assert.equal(back.requests[0]?.query.get('keep'), '1');
    assertFrontGotAndBackDidNot();
  });
});
