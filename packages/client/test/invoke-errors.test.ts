/**
 * Every error shape becomes the right AgentError: the vectors in vectors/invoke-errors.json (problem+json, AIDIP
 * error objects, JSON-RPC errors, plain text, HTML, empty bodies, AWP recovery hints), served by a real server;
 * plus JSON-RPC errors from a real MCP server, WebSocket error messages and refused handshakes, and a network
 * failure.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Agent, ErrorContract, JsonObject, JsonValue } from '@agentry/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { WebSocketServer } from 'ws';
import * as client from '../src/index.js';
import { AgentError, createSecureFetcher, invoke, TransportError } from '../src/index.js';
import { loopbackFetcher, rejection, sendJson, startServer, type TestServer } from './invoke-support.js';

interface ErrorCase {
  name: string;
  surfaceErrors?: Record<string, ErrorContract>;
  response: { status: number; contentType?: string; headers?: Record<string, string>; body: JsonValue };
  expect: Record<string, JsonValue> & { class: string; message?: string };
  absent?: string[];
}

const vectors = JSON.parse(
  readFileSync(new URL('./vectors/invoke-errors.json', import.meta.url), 'utf8'),
) as { cases: ErrorCase[] };

const fetcher = loopbackFetcher();
let server: TestServer;
let wss: WebSocketServer;

before(async () => {
  server = await startServer({
    '*': (request, response) => {
      const match = /^\/err\/(\d+)$/.exec(request.path);
      const vector = match === null ? undefined : vectors.cases[Number(match[1])];
      if (vector === undefined) return sendJson(response, 500, { detail: 'no such case' });
      const { status, contentType, headers, body } = vector.response;
      response.writeHead(status, { ...(contentType ? { 'content-type': contentType } : {}), ...headers });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    },
    'POST /mcp': async (request, response, incoming) => {
      // A low-level MCP server whose tools/call answers with a JSON-RPC error, not a tool result.
      const mcp = new Server({ name: 'strict', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(CallToolRequestSchema, () => {
        throw new McpError(ErrorCode.InvalidParams, 'a must be a number', { pointer: '/a' });
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(incoming, response, JSON.parse(request.body));
    },
  });
  wss = new WebSocketServer({
    server: server.server,
    path: '/ws',
    verifyClient: ({ req }, done) => {
      if (req.headers.authorization === undefined) {
        done(false, 401, 'Unauthorized', { 'content-type': 'application/problem+json' });
      } else done(true);
    },
  });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const { id } = JSON.parse(String(data)) as { id: string };
      socket.send(
        JSON.stringify({
          id,
          type: 'error',
          error: { type: 'https://example.com/busy', title: 'Busy', status: 503, detail: 'Try later.' },
        }),
      );
    });
  });
});

after(async () => {
  wss.close();
  await server.close();
  await fetcher.close();
});

function errorAgent(index: number, surfaceErrors?: Record<string, ErrorContract>): Agent {
  const agent: Agent = {
    id: 'failing',
    name: 'Failing',
    description: 'Fails in every way.',
    operations: [{ name: 'run' }],
    bindings: [{ kind: 'http', url: `${server.origin}/err/${index}`, method: 'POST' }],
  };
  if (surfaceErrors !== undefined) agent.surface = { errors: surfaceErrors };
  return agent;
}

describe('error answers (vectors)', () => {
  vectors.cases.forEach((vector, index) => {
    test(vector.name, async () => {
      const error = await rejection(
        invoke({ agent: errorAgent(index, vector.surfaceErrors) }, {}, { fetcher, retry: { attempts: 1 } }),
      );
      const errorClass = (client as unknown as Record<string, new (...args: never[]) => Error>)[
        vector.expect.class
      ];
      assert.ok(errorClass, `no error class ${vector.expect.class}`);
      assert.ok(error instanceof errorClass, `${vector.expect.class} expected, got ${String(error)}`);
      assert.ok(error instanceof AgentError);
      assert.equal(error.agent, 'failing');
      assert.equal(error.operation, 'run');
      assert.equal(error.endpoint, `${server.origin}/err/${index}`);
      for (const [key, expected] of Object.entries(vector.expect)) {
        if (key === 'class') continue;
        if (key === 'message') {
          assert.match(error.message, new RegExp(String(expected)));
          continue;
        }
        const actual: unknown = (error as unknown as Record<string, unknown>)[key];
        assert.deepEqual(key === 'failures' ? stripKeywords(actual) : actual, expected, key);
      }
      for (const key of vector.absent ?? []) {
        assert.equal((error as unknown as Record<string, unknown>)[key], undefined, `${key} is absent`);
      }
      // Serialisable for --json output, with the same members.
      const json = error.toJSON();
      assert.equal(json['name'], vector.expect.class);
      if (error.status !== undefined) assert.equal(json['status'], error.status);
    });
  });
});

function stripKeywords(failures: unknown): unknown {
  return (failures as JsonObject[]).map(({ keyword: _keyword, ...rest }) => rest);
}

describe('errors from other transports', () => {
  const mcpAgent = (): Agent => ({
    id: 'strict-calculator',
    name: 'Strict',
    description: 'Rejects everything.',
    operations: [{ name: 'add' }],
    bindings: [{ kind: 'mcp', server: `${server.origin}/mcp` }],
  });

  test('a JSON-RPC error from an MCP server is typed by its code and keeps its data', async () => {
    const error = await rejection(invoke({ agent: mcpAgent() }, { a: 'x' }, { fetcher }));
    assert.ok(error instanceof client.InvalidInputError, String(error));
    assert.equal(error.code, String(ErrorCode.InvalidParams));
    assert.equal(error.pointer, '/a');
    assert.equal(error.detail, 'a must be a number');
  });

  const wsAgent = (): Agent => ({
    id: 'busy',
    name: 'Busy',
    description: 'Always busy.',
    operations: [{ name: 'work' }],
    bindings: [{ kind: 'wss', url: `${server.origin.replace('http:', 'ws:')}/ws` }],
  });

  test('a WebSocket error message carries problem details', async () => {
    const error = await rejection(invoke({ agent: wsAgent() }, {}, { fetcher, auth: { bearer: 't' } }));
    assert.ok(error instanceof client.RemoteError, String(error));
    assert.equal(error.status, 503);
    assert.equal(error.title, 'Busy');
    assert.equal(error.detail, 'Try later.');
  });

  test('a WebSocket handshake refused with 401 is an AuthRequiredError', async () => {
    const error = await rejection(invoke({ agent: wsAgent() }, {}, { fetcher }));
    assert.ok(error instanceof client.AuthRequiredError, String(error));
    assert.equal(error.status, 401);
  });

  test('a connection that fails is a TransportError naming the endpoint', async () => {
    const gone = await startServer();
    const url = `${gone.origin}/invoke`;
    await gone.close();
    const agent: Agent = {
      id: 'gone',
      name: 'Gone',
      description: 'Not listening.',
      operations: [],
      bindings: [{ kind: 'http', url, method: 'POST' }],
    };
    const error = await rejection(invoke({ agent }, {}, { fetcher }));
    assert.ok(error instanceof TransportError, String(error));
    assert.equal(error.reason, 'network');
    assert.equal(error.endpoint, url);
    assert.match(error.message, /Could not reach/);
  });

  test('the fetch policy refuses a private address before anything is sent, naming the setting', async () => {
    const strict = createSecureFetcher({ allowHttp: true });
    try {
      const before = server.requests.length;
      const error = await rejection(invoke({ agent: errorAgent(0) }, {}, { fetcher: strict }));
      assert.ok(error instanceof TransportError, String(error));
      assert.equal(error.reason, 'refused');
      assert.match(error.message, /--allow-private-network/);
      assert.equal(server.requests.length, before, 'the server saw no request');
    } finally {
      await strict.close();
    }
  });

  test('the same rules hold for WebSocket bindings, which do not go through the fetcher', async () => {
    const strict = createSecureFetcher({ allowHttp: true });
    let connections = 0;
    wss.once('connection', () => connections++);
    try {
      const error = await rejection(
        invoke({ agent: wsAgent() }, {}, { fetcher: strict, auth: { bearer: 't' } }),
      );
      assert.ok(error instanceof TransportError, String(error));
      assert.equal(error.reason, 'refused');
      assert.match(error.message, /--allow-private-network/);
      assert.equal(connections, 0);
    } finally {
      await strict.close();
    }
  });

  test('a WebSocket host name is resolved once and the connection pinned to the checked address', async () => {
    const lookups: string[] = [];
    const pinned = createSecureFetcher({
      allowHttp: true,
      allowPrivateNetwork: true,
      lookup: async (hostname) => {
        lookups.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    try {
      const agent: Agent = {
        ...wsAgent(),
        bindings: [
          { kind: 'wss', url: `${server.origin.replace('http://127.0.0.1', 'ws://agents.test')}/ws` },
        ],
      };
      const error = await rejection(invoke({ agent }, {}, { fetcher: pinned, auth: { bearer: 't' } }));
      // The server's answer (an error message) proves the connection reached it through the pinned address.
      assert.ok(error instanceof client.RemoteError, String(error));
      assert.deepEqual(lookups, ['agents.test']);
    } finally {
      await pinned.close();
    }
  });

  test('an abort rejects with the caller’s reason, not an AgentError', async () => {
    const controller = new AbortController();
    const reason = new Error('user gave up');
    controller.abort(reason);
    const error = await rejection(
      invoke({ agent: errorAgent(0) }, {}, { fetcher, signal: controller.signal }),
    );
    assert.equal(error, reason);
  });
});
