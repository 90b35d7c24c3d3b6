/**
 * The `a2a` binding against an A2A server built with the official SDK's server side (`@a2a-js/sdk/server`: its
 * `DefaultRequestHandler` and JSON-RPC request handler, on a plain node:http server on 127.0.0.1): the agent is
 * found from its card, called, streamed, its task followed and cancelled, and its errors read, in A2A v1.0.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { AgentCard } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { A2aBinding, Agent, JsonValue } from '@agentry/core';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import {
  InvalidInputError,
  invoke,
  invokeStream,
  RemoteError,
  resolve,
  TransportError,
} from '../src/index.js';
import { CalculatorExecutor, Gate, skill, withSlowDeferred } from './a2a-sdk-agent.js';
import { loopbackFetcher } from './invoke-support.js';

let server: Server;
let origin: string;
let executor: CalculatorExecutor;
/** The JSON-RPC methods the server was called with, and the `A2A-Version` of each. */
const calls: Array<{ method: string; version: string | undefined; headers: IncomingMessage['headers'] }> = [];
/** Called when the server receives a `GetTask`. */
let onGetTask: () => void = () => {};

function cardJson(): Record<string, unknown> {
  return {
    name: 'Calculator',
    description: 'Adds, counts and waits.',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: ['add', 'count', 'slow', 'fail'].map(skill),
  };
}

before(async () => {
  executor = new CalculatorExecutor();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = cardJson() as unknown as AgentCard;
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const transport = new JsonRpcTransportHandler(handler);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void serve(request, response, card, transport);
  });
});

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  card: AgentCard,
  transport: JsonRpcTransportHandler,
): Promise<void> {
  if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cardJson()));
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const version = request.headers['a2a-version'] as string | undefined;
  const method = (JSON.parse(body) as { method: string }).method;
  calls.push({ method, version, headers: request.headers });
  if (method === 'GetTask') onGetTask();
  try {
    // As the SDK's own HTTP handlers do: the requested version must be one the card declares.
    validateVersion(version ?? '', card, 'JSONRPC');
  } catch (error) {
    const answer = { jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    return;
  }
  const context = defaultServerCallContextBuilder({
    extensions: undefined,
    user: new UnauthenticatedUser(),
    headers: request.headers,
    ...(version === undefined ? {} : { requestedVersion: version }),
  });
  const answer = await transport.handle(body, context);
  if (Symbol.asyncIterator in answer) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for await (const event of answer) response.write(`data: ${JSON.stringify(event)}\n\n`);
    response.end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}

after(async () => {
  executor.gate.open('done');
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const cardUrl = (): string => `${origin}/.well-known/agent-card.json`;

/** The agent as its card describes it, with its A2A binding. */
async function described(): Promise<{ agent: Agent; binding: A2aBinding }> {
  const fetcher = loopbackFetcher();
  try {
    const resolution = await resolve(cardUrl(), { fetcher });
    const agent = resolution.agents[0]!;
    const binding = agent.bindings.find((candidate): candidate is A2aBinding => candidate.kind === 'a2a');
    assert.ok(binding, 'the card describes an A2A binding');
    return { agent, binding };
  } finally {
    await fetcher.close();
  }
}

test('invoke resolves the card, chooses its A2A JSON-RPC binding, and reads the message the agent answers', async () => {
  const fetcher = loopbackFetcher();
  try {
    const result = await invoke(
      cardUrl(),
      { a: 2, b: 3 },
      { operation: 'add', fetcher, sessionId: 'conversation-1' },
    );
    assert.deepEqual(result.output, { sum: 5 });
    assert.equal(result.binding.kind, 'a2a');
    const call = calls.at(-1)!;
    assert.equal(call.method, 'SendMessage');
    assert.equal(call.version, '1.0');
    assert.equal(call.headers['x-session-id'], 'conversation-1');
    // The session is the message's context.
    assert.equal(executor.seen.at(-1)?.contextId, 'conversation-1');
  } finally {
    await fetcher.close();
  }
});

test('invokeStream reads status messages as chunks and the artifact as the result', async () => {
  const fetcher = loopbackFetcher();
  try {
    const events = [];
    for await (const event of invokeStream(cardUrl(), { to: 3 }, { operation: 'count', fetcher }))
      events.push(event);
    assert.equal(calls.at(-1)?.method, 'SendStreamingMessage');
    assert.deepEqual(
      events.map((event) => [event.event, event.data]),
      [
        ['chunk', 1],
        ['chunk', 2],
        ['chunk', 3],
        ['result', { total: 3 }],
      ],
    );
    // invoke on the same operation reads the task the blocking send answers.
    const once = await invoke(cardUrl(), { to: 2 }, { operation: 'count', fetcher });
    assert.deepEqual(once.output, { total: 2 });
  } finally {
    await fetcher.close();
  }
});

test('a deferred operation returns at once and is polled with GetTask until it completes', async () => {
  const { agent, binding } = await described();
  const slow = withSlowDeferred(agent);
  executor.gate = new Gate();
  // The task finishes once the client has polled it once: no timing involved.
  onGetTask = () => executor.gate.open('done');
  const fetcher = loopbackFetcher();
  try {
    const result = await invoke(
      { agent: slow, binding },
      {},
      {
        operation: 'slow',
        fetcher,
        tasks: { intervalMs: 5 },
      },
    );
    assert.deepEqual(result.output, { done: true });
    assert.ok(result.taskId);
    const methods = calls.map((call) => call.method);
    assert.ok(methods.includes('GetTask'));
  } finally {
    onGetTask = () => {};
    await fetcher.close();
  }
});

test('aborting a followed task cancels it with CancelTask', async () => {
  const { agent, binding } = await described();
  const slow = withSlowDeferred(agent);
  executor.gate = new Gate();
  const controller = new AbortController();
  onGetTask = () => controller.abort(new Error('The caller gave up.'));
  const fetcher = loopbackFetcher();
  try {
    await assert.rejects(
      invoke(
        { agent: slow, binding },
        {},
        { operation: 'slow', fetcher, signal: controller.signal, tasks: { intervalMs: 5 } },
      ),
      /The caller gave up/,
    );
    assert.equal(calls.at(-1)?.method, 'CancelTask');
  } finally {
    onGetTask = () => {};
    await fetcher.close();
  }
});

test('a failed task is an error carrying the problem of its status message', async () => {
  const fetcher = loopbackFetcher();
  try {
    await assert.rejects(invoke(cardUrl(), {}, { operation: 'fail', fetcher }), (error: unknown) => {
      assert.ok(error instanceof RemoteError);
      assert.equal(error.status, 409);
      assert.equal(error.detail, 'No seats left.');
      return true;
    });
  } finally {
    await fetcher.close();
  }
});

test('JSON-RPC errors are typed: an A2A version the server does not serve', async () => {
  const { agent, binding } = await described();
  const fetcher = loopbackFetcher();
  try {
    await assert.rejects(
      invoke(
        { agent, binding: { ...binding, protocolVersion: '0.3' } },
        { a: 1, b: 1 },
        { operation: 'add', fetcher },
      ),
      (error: unknown) => {
        assert.ok(error instanceof RemoteError);
        assert.equal(error.code, '-32009');
        return true;
      },
    );
    assert.equal(calls.at(-1)?.method, 'message/send');
    assert.equal(calls.at(-1)?.version, '0.3');
  } finally {
    await fetcher.close();
  }
});

test('the binding goes through the secure fetcher: plain HTTP to loopback is refused by default', async () => {
  const { agent, binding } = await described();
  const strict = createSecureFetcher();
  const before = calls.length;
  try {
    await assert.rejects(
      invoke({ agent, binding }, { a: 1, b: 1 }, { operation: 'add', fetcher: strict }),
      (error: unknown) => {
        assert.ok(error instanceof TransportError);
        assert.equal(error.reason, 'refused');
        return true;
      },
    );
    assert.equal(calls.length, before, 'nothing was sent');
  } finally {
    await strict.close();
  }
});

test('of several A2A interfaces, the JSON-RPC one is called; gRPC is not spoken', async () => {
  const { agent, binding } = await described();
  const grpc: A2aBinding = { ...binding, url: 'https://example.org/grpc', protocolBinding: 'GRPC' };
  const fetcher = loopbackFetcher();
  try {
    const result = await invoke(
      { agent: { ...agent, bindings: [grpc, binding] } },
      { a: 4, b: 4 },
      { operation: 'add', fetcher },
    );
    assert.equal(result.binding.kind === 'a2a' && result.binding.protocolBinding, 'JSONRPC');
    assert.deepEqual(result.output, { sum: 8 });
  } finally {
    await fetcher.close();
  }
  await assert.rejects(invoke({ agent: { ...agent, bindings: [grpc] } }, {}, { operation: 'add' }), {
    name: 'UnsupportedTransportError',
  });
});

test('input validation still runs before anything is sent', async () => {
  const { agent, binding } = await described();
  const typed: Agent = {
    ...agent,
    operations: agent.operations.map((op) =>
      op.name === 'add' ? { ...op, input: { type: 'object', required: ['a'] } } : op,
    ),
  };
  const before = calls.length;
  await assert.rejects(
    invoke({ agent: typed, binding }, {} as JsonValue, { operation: 'add' }),
    InvalidInputError,
  );
  assert.equal(calls.length, before);
});

test('among the bindings Agentry speaks, A2A JSON-RPC ranks before wss', async () => {
  const { agent, binding } = await described();
  const withWss: Agent = { ...agent, bindings: [{ kind: 'wss', url: 'wss://example.org/ws' }, binding] };
  const fetcher = loopbackFetcher();
  try {
    const result = await invoke({ agent: withWss }, { a: 1, b: 2 }, { operation: 'add', fetcher });
    assert.equal(result.binding.kind, 'a2a');
    assert.deepEqual(result.output, { sum: 3 });
  } finally {
    await fetcher.close();
  }
});
