/**
 * Every binding against a real server: WoA REST, AWP endpoints (GET query, POST body), an AIDIP endpoint, TD forms
 * (method and content type from the form), MCP over Streamable HTTP (the SDK's McpServer on node:http) and over
 * stdio (a fixture script), wss (NDJSON messages), unix sockets, local agents (in-process and in the socket
 * directory), and the transports Agentry does not speak. Agents are read from documents the servers serve.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Agent, codecs, type JsonObject, type JsonValue } from '@agentry/core';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebSocketServer } from 'ws';
import {
  closeSocketConnections,
  invoke,
  listLocalAgents,
  localSocketPath,
  OperationNotFoundError,
  RemoteError,
  registerLocalAgent,
  TransportError,
  UnsupportedTransportError,
} from '../src/index.js';
import { createToolServer } from './fixtures/mcp-tools.js';
import {
  documentRoute,
  jsonOf,
  loadAgent,
  loopbackFetcher,
  rejection,
  sendJson,
  startServer,
  type TestServer,
  tempDirectory,
} from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;
let wss: WebSocketServer;
let unixServer: TestServer;
let socketDirServer: TestServer;
const temp = tempDirectory('agentry-invoke-');
const previousLocalDir = process.env['AGENTRY_LOCAL_DIR'];

/**
 * A WoA document, written by hand: core's WoA emitter (rightly) refuses plain-HTTP bases, and the loopback servers
 * are plain HTTP. Reading it reports that as an error, which loadAgents lets through.
 */
const woaDocument = (transport: JsonObject, operations: JsonValue[], id: string): JsonObject => ({
  woa_version: '1',
  agents: [
    {
      id,
      name: id,
      description: `The ${id} agent.`,
      inputs: {},
      outputs: {},
      transports: Object.keys(transport),
      operations: operations.map((operation) => ({
        description: `${(operation as { name: string }).name}.`,
        ...(operation as JsonObject),
      })),
    },
  ],
  transports: transport,
});

const summarizerDocument = (origin: string) =>
  woaDocument(
    { rest: { base: `${origin}/`, invoke_path: '/agents/{agent_id}/invoke' } },
    [
      {
        name: 'summarize',
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputs: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
      },
      { name: 'count', inputs: { type: 'object' }, outputs: { type: 'object' } },
    ],
    'summarizer',
  );

const calculatorDocument = (server: string) =>
  woaDocument(
    { mcp: { server, tool_namespace: 'calc', tool_field: 'operation' } },
    [
      {
        name: 'add',
        inputs: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        outputs: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      },
      { name: 'greet', inputs: { type: 'object', properties: { name: { type: 'string' } } } },
      { name: 'fail' },
    ],
    'calculator',
  );

const shouter = (origin: string): Agent => ({
  id: 'shouter',
  name: 'Shouter',
  description: 'Shouts.',
  operations: [
    { name: 'shout', input: { type: 'string' }, output: { type: 'string' } },
    { name: 'peek', input: { type: 'object', properties: { q: { type: 'string' } } } },
  ],
  bindings: [
    {
      kind: 'http',
      url: `${origin}/things/shouter/shout`,
      method: 'PUT',
      contentType: 'text/plain',
      operations: ['shout'],
    },
    { kind: 'http', url: `${origin}/things/shouter/peek`, method: 'GET', operations: ['peek'] },
  ],
});

/** An agent:// descriptor (JSON-LD) carrying Agentry's own binding objects for wss and unix. */
const descriptor = (bindings: JsonValue[]): JsonObject => ({
  '@context': ['https://w3id.org/agentry/context.jsonld', { agentry: 'https://w3id.org/agentry/ns#' }],
  id: 'streamer',
  name: 'Streamer',
  description: 'Counts.',
  version: '1.0.0',
  capabilities: [
    { id: 'count', name: 'count', description: 'Counts up.', input: { type: 'object' } },
    { id: 'echo', name: 'echo', description: 'Echoes.' },
  ],
  'agentry:bindings': bindings,
});

const emitted = (format: 'td', agent: Agent, baseUrl: string): JsonObject => {
  const result = codecs[format].emit([agent], { baseUrl });
  return result.document as JsonObject;
};

before(async () => {
  server = await startServer();
  const { origin } = server;
  const routes: Record<string, Parameters<typeof server.routes.set>[1]> = {
    'GET /.well-known/woa.json': documentRoute(summarizerDocument(origin)),
    'POST /agents/summarizer/invoke': (request, response) => {
      const envelope = jsonOf(request) as { operation: string; input: { text?: string } };
      if (envelope.operation === 'count') sendJson(response, 200, { words: 2 });
      else sendJson(response, 200, { summary: `short: ${envelope.input.text}` });
    },
    'GET /agent.json': documentRoute({
      awp_version: '0.1',
      domain: new URL(origin).host,
      intent: 'Search and book flights.',
      actions: [
        {
          id: 'search_flights',
          description: 'Find flights.',
          auth_required: false,
          inputs: {
            origin: { type: 'string', required: true },
            stops: { type: 'integer' },
            carriers: { type: 'array[string]' },
          },
          outputs: { flights: 'array[string]' },
          endpoint: `${origin}/api/search`,
          method: 'GET',
        },
        {
          id: 'book_flight',
          description: 'Book a flight.',
          auth_required: false,
          inputs: { flight: { type: 'string', required: true } },
          outputs: { booking_id: 'string' },
          endpoint: `${origin}/api/bookings`,
          method: 'POST',
        },
      ],
    }),
    'GET /api/search': (request, response) =>
      sendJson(response, 200, {
        flights: [`${request.query.get('origin')}-${request.query.getAll('carriers').join('+')}`],
      }),
    'POST /api/bookings': (request, response) =>
      sendJson(response, 201, { booking_id: `B-${(jsonOf(request) as { flight: string }).flight}` }),
    'GET /aidip.json': documentRoute({
      id: 'translator',
      name: 'Translator',
      description: 'Translates text.',
      endpoint: `${origin}/translate`,
      inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputs: { type: 'object', properties: { translated_text: { type: 'string' } } },
    }),
    'POST /translate': (request, response) => {
      const input = jsonOf(request) as { text: string };
      sendJson(response, 200, { translated_text: `fr(${input.text})` });
    },
    'GET /td.json': documentRoute(emitted('td', shouter(origin), origin)),
    'PUT /things/shouter/shout': (request, response) => {
      sendJson(response, 200, `${request.headers['content-type']}:${request.body.toUpperCase()}`);
    },
    'GET /things/shouter/peek': (request, response) => sendJson(response, 200, { q: request.query.get('q') }),
    'GET /mcp-agent.json': documentRoute(calculatorDocument(`${origin}/mcp`)),
    'POST /mcp': async (request, response, incoming) => {
      // Stateless Streamable HTTP, as the SDK's examples do it: one server and transport per request.
      const mcp = createToolServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(incoming, response, JSON.parse(request.body));
    },
  };
  for (const [key, route] of Object.entries(routes)) server.routes.set(key, route);

  wss = new WebSocketServer({ server: server.server, path: '/ws' });
  wss.on('connection', (socket, upgrade) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id: string;
        operation: string;
        input: { to?: number };
        sessionId?: string;
      };
      const reply = (value: JsonValue) => socket.send(`${JSON.stringify(value)}\n`);
      if (message.operation === 'echo') {
        // Several messages in one frame, one for another call, and an unknown type: all must be handled.
        socket.send(
          [
            JSON.stringify({ id: 'someone-else', type: 'result', output: 'not yours' }),
            JSON.stringify({ id: message.id, type: 'progress', percent: 50 }),
            JSON.stringify({
              id: message.id,
              type: 'result',
              output: {
                input: message.input,
                sessionId: message.sessionId ?? null,
                auth: upgrade.headers.authorization ?? null,
              },
            }),
          ].join('\n'),
        );
        return;
      }
      for (let n = 1; n <= (message.input.to ?? 3); n++) reply({ id: message.id, type: 'chunk', data: n });
      reply({ id: message.id, type: 'result', output: { done: true } });
    });
  });
  const wsUrl = `${origin.replace('http:', 'ws:')}/ws`;
  server.routes.set('GET /wss-agent.json', documentRoute(descriptor([{ kind: 'wss', url: wsUrl }])));

  const socketPath = join(temp.path, 'unix-agent.sock');
  unixServer = await startServer(
    {
      'POST /rpc': (request, response) =>
        sendJson(response, 200, { via: 'unix', envelope: jsonOf(request) as JsonValue }),
    },
    { socketPath },
  );
  server.routes.set(
    'GET /unix-agent.json',
    documentRoute(descriptor([{ kind: 'unix', socketPath, path: '/rpc' }])),
  );

  process.env['AGENTRY_LOCAL_DIR'] = temp.path;
  socketDirServer = await startServer(
    {
      'POST /invoke': (request, response) =>
        sendJson(response, 200, { via: 'socket-directory', envelope: jsonOf(request) as JsonValue }),
    },
    { socketPath: localSocketPath('socket-agent') },
  );
});

after(async () => {
  wss.close();
  await Promise.all([server.close(), unixServer.close(), socketDirServer.close()]);
  await closeSocketConnections();
  await fetcher.close();
  if (previousLocalDir === undefined) delete process.env['AGENTRY_LOCAL_DIR'];
  else process.env['AGENTRY_LOCAL_DIR'] = previousLocalDir;
  temp.remove();
});

describe('WoA REST', () => {
  test('POSTs the envelope {agent, operation, input} to base + invoke_path with {agent_id} replaced', async () => {
    const agent = await loadAgent(`${server.origin}/.well-known/woa.json`);
    const result = await invoke({ agent }, { text: 'a long text' }, { operation: 'summarize', fetcher });
    assert.deepEqual(result.output, { summary: 'short: a long text' });
    assert.equal(result.status, 200);
    assert.equal(result.operation, 'summarize');
    assert.equal(result.binding.kind, 'woa-rest');
    const [request] = server.hits('POST', '/agents/summarizer/invoke').slice(-1);
    assert.ok(request);
    assert.deepEqual(jsonOf(request), {
      agent: 'summarizer',
      operation: 'summarize',
      input: { text: 'a long text' },
    });
    assert.match(String(request.headers['content-type']), /^application\/json/);
  });

  test('an agent with several operations needs the operation named', async () => {
    const agent = await loadAgent(`${server.origin}/.well-known/woa.json`);
    const error = await rejection(invoke({ agent }, {}, { fetcher }));
    assert.ok(error instanceof OperationNotFoundError);
    assert.deepEqual(error.available, ['summarize', 'count']);
    assert.match(error.message, /say which to run/);
  });
});

describe('HTTP endpoints (AWP, AIDIP, TD forms)', () => {
  test('AWP GET action: the input becomes query parameters (arrays repeated)', async () => {
    const agent = await loadAgent(`${server.origin}/agent.json`);
    const result = await invoke(
      { agent },
      { origin: 'LHR', stops: 0, carriers: ['BA', 'VS'] },
      { operation: 'search_flights', fetcher },
    );
    assert.deepEqual(result.output, { flights: ['LHR-BA+VS'] });
    const [request] = server.hits('GET', '/api/search').slice(-1);
    assert.equal(request?.body, '');
    assert.equal(request?.query.get('stops'), '0');
    assert.deepEqual(request?.query.getAll('carriers'), ['BA', 'VS']);
  });

  test('AWP POST action: the input is the JSON body', async () => {
    const agent = await loadAgent(`${server.origin}/agent.json`);
    const result = await invoke({ agent }, { flight: 'BA1' }, { operation: 'book_flight', fetcher });
    assert.deepEqual(result.output, { booking_id: 'B-BA1' });
    assert.equal(result.status, 201);
    assert.deepEqual(jsonOf(server.hits('POST', '/api/bookings').at(-1)!), { flight: 'BA1' });
  });

  test('AIDIP endpoint: POST of the raw input', async () => {
    const agent = await loadAgent(`${server.origin}/aidip.json`);
    const result = await invoke({ agent }, { text: 'hello' }, { fetcher });
    assert.deepEqual(result.output, { translated_text: 'fr(hello)' });
    assert.deepEqual(jsonOf(server.hits('POST', '/translate').at(-1)!), { text: 'hello' });
  });

  test('AIDIP endpoint serving several operations: the operation is named beside the input (§5.1)', async () => {
    const agent: Agent = {
      id: 'glossary',
      name: 'Glossary',
      description: 'Two operations at one endpoint.',
      operations: [{ name: 'define' }, { name: 'translate' }],
      bindings: [{ kind: 'http', url: `${server.origin}/translate`, method: 'POST' }],
      provenance: { sourceFormat: 'aidip', origin: 'native' },
    };
    await invoke({ agent }, { text: 'hello' }, { operation: 'translate', fetcher });
    assert.deepEqual(jsonOf(server.hits('POST', '/translate').at(-1)!), {
      text: 'hello',
      operation: 'translate',
    });
    // An input with its own `operation` member is sent as it is.
    await invoke({ agent }, { text: 'x', operation: 'mine' }, { operation: 'translate', fetcher });
    assert.deepEqual(jsonOf(server.hits('POST', '/translate').at(-1)!), { text: 'x', operation: 'mine' });
    // The same endpoint described by another format takes the raw input: its spec names no such member.
    const described = {
      ...agent,
      provenance: { sourceFormat: 'agent-json' as const, origin: 'native' as const },
    };
    await invoke({ agent: described }, { text: 'hello' }, { operation: 'translate', fetcher });
    assert.deepEqual(jsonOf(server.hits('POST', '/translate').at(-1)!), { text: 'hello' });
  });

  test("TD form: the form's htv:methodName and contentType, with the raw input as the body", async () => {
    const agent = await loadAgent(`${server.origin}/td.json`);
    const result = await invoke({ agent }, 'quiet please', { operation: 'shout', fetcher });
    assert.equal(result.output, 'text/plain:QUIET PLEASE');
    const request = server.hits('PUT', '/things/shouter/shout').at(-1);
    assert.equal(request?.body, 'quiet please');
  });

  test('TD form with GET: the input as query parameters', async () => {
    const agent = await loadAgent(`${server.origin}/td.json`);
    const result = await invoke({ agent }, { q: 'status' }, { operation: 'peek', fetcher });
    assert.deepEqual(result.output, { q: 'status' });
  });
});

describe('MCP', () => {
  test('Streamable HTTP: tools/call with the operation; structuredContent is the output', async () => {
    const agent = await loadAgent(`${server.origin}/mcp-agent.json`);
    assert.equal(agent.bindings[0]?.kind, 'mcp');
    const result = await invoke({ agent }, { a: 2, b: 40 }, { operation: 'add', fetcher });
    assert.deepEqual(result.output, { sum: 42 });
    assert.equal(result.status, 200);
    const calls = server
      .hits('POST', '/mcp')
      .map((request) => (jsonOf(request) as { method: string }).method);
    assert.ok(calls.includes('initialize') && calls.includes('tools/call'), calls.join(', '));
  });

  test('text content is the output when there is no structured content', async () => {
    const agent = await loadAgent(`${server.origin}/mcp-agent.json`);
    const result = await invoke({ agent }, { name: 'Ada' }, { operation: 'greet', fetcher });
    assert.equal(result.output, 'Hello, Ada!');
  });

  test('an isError result is a RemoteError carrying the text', async () => {
    const agent = await loadAgent(`${server.origin}/mcp-agent.json`);
    const error = await rejection(invoke({ agent }, {}, { operation: 'fail', fetcher }));
    assert.ok(error instanceof RemoteError, String(error));
    assert.match(error.detail ?? '', /the tool broke/);
    assert.equal(error.operation, 'fail');
  });

  const stdioAgent = (): Agent => {
    const script = fileURLToPath(new URL('./fixtures/mcp-stdio-server.ts', import.meta.url));
    return {
      id: 'calculator',
      name: 'Calculator',
      description: 'Adds, in a local process.',
      operations: [{ name: 'add' }],
      bindings: [{ kind: 'mcp', server: `${process.execPath} --import tsx ${script}`, transport: 'stdio' }],
    };
  };

  test('stdio: the server process is started and called', async () => {
    const result = await invoke(
      { agent: stdioAgent() },
      { a: 1, b: 2 },
      { operation: 'add', allowStdio: true },
    );
    assert.deepEqual(result.output, { sum: 3 });
  });

  test('stdio is refused unless allowed, naming the command and the option', async () => {
    const error = await rejection(invoke({ agent: stdioAgent() }, { a: 1, b: 2 }, { operation: 'add' }));
    assert.ok(error instanceof TransportError);
    assert.equal(error.reason, 'refused');
    assert.match(error.message, /allowStdio: true/);
    assert.match(error.message, /mcp-stdio-server\.ts/);
  });
});

describe('wss', () => {
  test('one NDJSON request, messages read until the final result; other ids and types ignored', async () => {
    const agent = await loadAgent(`${server.origin}/wss-agent.json`);
    const result = await invoke(
      { agent },
      { say: 'hi' },
      { operation: 'echo', fetcher, sessionId: 's-1', auth: { bearer: 'tok' } },
    );
    assert.deepEqual(result.output, { input: { say: 'hi' }, sessionId: 's-1', auth: 'Bearer tok' });
    assert.equal(result.binding.kind, 'wss');
  });

  test('ws: without allowHttp is refused', async () => {
    const agent = await loadAgent(`${server.origin}/wss-agent.json`);
    const error = await rejection(invoke({ agent }, {}, { operation: 'echo', fetcher: strictFetcher() }));
    assert.ok(error instanceof TransportError);
    assert.equal(error.reason, 'refused');
    assert.match(error.message, /allowHttp/);
  });
});

describe('unix', () => {
  test('HTTP over the socket: the envelope POSTed to the binding path', async () => {
    const agent = await loadAgent(`${server.origin}/unix-agent.json`);
    const result = await invoke({ agent }, { to: 1 }, { operation: 'count', fetcher });
    assert.deepEqual(result.output, {
      via: 'unix',
      envelope: { agent: 'streamer', operation: 'count', input: { to: 1 } },
    });
  });

  test('a description fetched over the network may not direct calls to a socket without allowPrivateNetwork', async () => {
    const agent = await loadAgent(`${server.origin}/unix-agent.json`);
    const noPrivate = { ...fetcher, policy: { ...fetcher.policy, allowPrivateNetwork: false } };
    const error = await rejection(invoke({ agent }, { to: 1 }, { operation: 'count', fetcher: noPrivate }));
    assert.ok(error instanceof TransportError);
    assert.equal(error.reason, 'refused');
    assert.match(error.message, /allowPrivateNetwork/);
    assert.equal(unixServer.requests.length, 1, 'only the earlier call reached the socket');
  });
});

describe('local', () => {
  const localAgent = (name: string): Agent => ({
    id: name,
    name,
    description: 'A local agent.',
    operations: [{ name: 'upper', input: { type: 'string' }, output: { type: 'string' } }],
    bindings: [{ kind: 'local', name }],
  });

  test('an agent registered in-process is called with a copy of the input and its metadata', async () => {
    let seen: unknown;
    const unregister = registerLocalAgent('upper-local', {
      upper: (input, context) => {
        seen = context;
        return String(input).toUpperCase();
      },
    });
    try {
      assert.ok(listLocalAgents().includes('upper-local'));
      const result = await invoke({ agent: localAgent('upper-local') }, 'quiet', { taskId: 't-9' });
      assert.equal(result.output, 'QUIET');
      assert.deepEqual(seen, { agent: 'upper-local', operation: 'upper', taskId: 't-9' });
    } finally {
      unregister();
    }
    assert.ok(!listLocalAgents().includes('upper-local'));
  });

  test('a name registered twice is an error', () => {
    const unregister = registerLocalAgent('twice', { upper: () => 'x' });
    try {
      assert.throws(() => registerLocalAgent('twice', {}), /already registered/);
      assert.throws(() => registerLocalAgent('../escape', {}), /not valid/);
    } finally {
      unregister();
    }
  });

  test('an agent in the local socket directory is called over its socket', async () => {
    const result = await invoke({ agent: localAgent('socket-agent') }, 'hi', { fetcher, validate: 'off' });
    assert.deepEqual(result.output, {
      via: 'socket-directory',
      envelope: { agent: 'socket-agent', operation: 'upper', input: 'hi' },
    });
  });

  test('an unknown local agent says where it looked', async () => {
    const error = await rejection(invoke({ agent: localAgent('nobody-here') }, 'hi'));
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'AgentNotFoundError');
    assert.ok(error.message.includes(localSocketPath('nobody-here')), error.message);
  });
});

describe('unsupported transports', () => {
  test('agent+matrix and other transports are reported by name', async () => {
    const agent: Agent = {
      id: 'chat',
      name: 'Chat',
      description: 'Lives on Matrix.',
      operations: [],
      bindings: [{ kind: 'other', protocol: 'matrix', config: { room: '#agents:example.org' } }],
    };
    const error = await rejection(invoke({ agent }, {}));
    assert.ok(error instanceof UnsupportedTransportError);
    assert.equal(error.transport, 'matrix');
    assert.match(error.message, /matrix, which Agentry does not speak/);
  });

  test('a usable binding is preferred over one Agentry cannot speak', async () => {
    const agent = await loadAgent(`${server.origin}/aidip.json`);
    const mixed: Agent = {
      ...agent,
      bindings: [{ kind: 'a2a', url: 'https://a2a.example/', protocolBinding: 'GRPC' }, ...agent.bindings],
    };
    const result = await invoke({ agent: mixed }, { text: 'x' }, { fetcher });
    assert.equal(result.binding.kind, 'http');
  });
});

function strictFetcher() {
  return { ...fetcher, policy: { ...fetcher.policy, allowHttp: false } };
}
