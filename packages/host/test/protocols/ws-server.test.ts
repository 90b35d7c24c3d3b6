/** The WebSocket endpoint at the message level, with a plain `ws` client. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { attachWebSocket } from '../../src/transports/ws/server.js';
import { type RunningHost, startHost } from '../support.js';
import { otherAgent, toolsAgent } from './agents.js';

let running: RunningHost;
let wsBase: string;

before(async () => {
  running = await startHost({ agents: [toolsAgent(), otherAgent()], webSocket: true });
  wsBase = running.url.replace(/^http/, 'ws');
});

after(async () => {
  await running.close();
});

interface Conversation {
  socket: WebSocket;
  /** Every message received, parsed. */
  messages: Record<string, unknown>[];
  /** Resolves when `count` messages have arrived. */
  received(count: number): Promise<Record<string, unknown>[]>;
  closed: Promise<{ code: number; reason: string }>;
}

async function open(path: string, headers: Record<string, string> = {}): Promise<Conversation> {
  const socket = new WebSocket(`${wsBase}${path}`, { headers });
  const messages: Record<string, unknown>[] = [];
  const waiters: { count: number; resolve: (value: Record<string, unknown>[]) => void }[] = [];
  socket.on('message', (data) => {
    for (const line of String(data).split('\n')) {
      if (line.trim() !== '') messages.push(JSON.parse(line) as Record<string, unknown>);
    }
    for (const waiter of waiters.filter((candidate) => messages.length >= candidate.count)) {
      waiter.resolve(messages.slice(0, waiter.count));
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await once(socket, 'open');
  return {
    socket,
    messages,
    received: (count) =>
      messages.length >= count
        ? Promise.resolve(messages.slice(0, count))
        : new Promise((resolve) => waiters.push({ count, resolve })),
    closed,
  };
}

test('a request names the agent on /ws; the answer carries its id', async () => {
  const talk = await open('/ws');
  talk.socket.send(JSON.stringify({ id: 'a1', agent: 'other', operation: 'echo', input: { text: 'hi' } }));
  assert.deepEqual(await talk.received(1), [{ id: 'a1', type: 'result', output: { other: 'hi' } }]);
  talk.socket.close();
  await talk.closed;
});

test('calls may share a connection; stream: false sends only the final message', async () => {
  const talk = await open('/agents/tools/ws');
  talk.socket.send(
    `${JSON.stringify({ id: 1, operation: 'count', input: { to: 2 }, stream: true })}\n${JSON.stringify({
      id: 2,
      operation: 'count',
      input: { to: 2 },
    })}\n`,
  );
  const messages = await talk.received(4);
  assert.deepEqual(
    messages.filter((message) => message['id'] === 1),
    [
      { id: 1, type: 'chunk', data: 1 },
      { id: 1, type: 'chunk', data: 2 },
      { id: 1, type: 'result', output: { total: 2 } },
    ],
  );
  assert.deepEqual(
    messages.filter((message) => message['id'] === 2),
    [{ id: 2, type: 'result', output: { total: 2 } }],
  );
  talk.socket.close();
  await talk.closed;
});

test('message metadata becomes the call headers; handshake headers win', async () => {
  const talk = await open('/agents/tools/ws', { 'X-Session-ID': 'from-handshake' });
  talk.socket.send(
    JSON.stringify({ id: 'm', operation: 'echo', input: { text: 't' }, sessionId: 'from-message' }),
  );
  const [answer] = await talk.received(1);
  assert.deepEqual(answer?.['output'], { text: 't', sessionId: 'from-handshake', transport: 'wss' });
  const plain = await open('/agents/tools/ws');
  plain.socket.send(
    JSON.stringify({ id: 'n', operation: 'echo', input: { text: 't' }, sessionId: 'from-message' }),
  );
  const [second] = await plain.received(1);
  assert.equal((second!['output'] as { sessionId: string }).sessionId, 'from-message');
  talk.socket.close();
  plain.socket.close();
  await Promise.all([talk.closed, plain.closed]);
});

test('a destructive operation is refused with 428 unless the message confirms it', async () => {
  const talk = await open('/agents/tools/ws');
  talk.socket.send(JSON.stringify({ id: 'no', operation: 'wipe', input: {} }));
  talk.socket.send(JSON.stringify({ id: 'yes', operation: 'wipe', input: {}, confirm: true }));
  const messages = await talk.received(2);
  const no = messages.find((message) => message['id'] === 'no');
  const yes = messages.find((message) => message['id'] === 'yes');
  assert.equal((no!['error'] as { status: number }).status, 428);
  assert.deepEqual(yes?.['output'], { wiped: true });
  talk.socket.close();
  await talk.closed;
});

test('a malformed message is answered with a 400 problem, then the connection closes', async () => {
  const broken = await open('/agents/tools/ws');
  broken.socket.send('{not json');
  const [answer] = await broken.received(1);
  assert.equal(answer?.['id'], null);
  assert.equal(answer?.['type'], 'error');
  assert.equal((answer!['error'] as { status: number }).status, 400);
  assert.equal((await broken.closed).code, 1008);

  const wrongType = await open('/agents/tools/ws');
  wrongType.socket.send(JSON.stringify({ id: 'w', operation: 'echo', input: {}, stream: 'yes' }));
  const [refusal] = await wrongType.received(1);
  assert.equal(refusal?.['id'], 'w');
  const problem = refusal!['error'] as { status: number; errors: { pointer: string }[] };
  assert.equal(problem.status, 400);
  assert.equal(problem.errors[0]?.pointer, '/stream');
  assert.equal((await wrongType.closed).code, 1008);

  const binary = await open('/agents/tools/ws');
  binary.socket.send(Buffer.from([1, 2, 3]));
  assert.equal((await binary.closed).code, 1003);
});

test('a message naming another agent than the path is refused; unknown operations are the runtime 404', async () => {
  const talk = await open('/agents/tools/ws');
  talk.socket.send(JSON.stringify({ id: 'x', agent: 'other', operation: 'echo', input: { text: 'a' } }));
  talk.socket.send(JSON.stringify({ id: 'y', operation: 'nothing', input: {} }));
  const messages = await talk.received(2);
  const byId = Object.fromEntries(messages.map((message) => [message['id'], message['error']])) as Record<
    string,
    { status: number; code: string }
  >;
  assert.equal(byId['x']?.status, 400);
  assert.equal(byId['y']?.status, 404);
  assert.equal(byId['y']?.code, 'OperationNotFound');
  talk.socket.close();
  await talk.closed;
});

test('a message larger than the bound closes the connection (1009)', async () => {
  const talk = await open('/agents/tools/ws');
  talk.socket.send(
    JSON.stringify({ id: 'big', operation: 'echo', input: { text: 'x'.repeat(2 * 1024 * 1024) } }),
  );
  assert.equal((await talk.closed).code, 1009);
});

test('upgrades to paths that are not WebSocket endpoints are refused with 404', async () => {
  const socket = new WebSocket(`${wsBase}/agents/tools/invoke`);
  socket.on('error', () => {});
  const [, response] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number }];
  assert.equal(response.statusCode, 404);
  socket.terminate();
});

test('pages of other sites may not connect (403); pages of the host itself and programs may', async () => {
  const foreign = new WebSocket(`${wsBase}/ws`, { origin: 'https://evil.example' });
  foreign.on('error', () => {});
  const [, response] = (await once(foreign, 'unexpected-response')) as [
    unknown,
    { statusCode: number; headers: Record<string, string> } & NodeJS.ReadableStream,
  ];
  assert.equal(response.statusCode, 403);
  assert.equal(response.headers['content-type'], 'application/problem+json');
  foreign.terminate();

  for (const headers of [{}, { origin: running.url }] as Record<string, string>[]) {
    const talk = await open('/ws', headers);
    talk.socket.send(JSON.stringify({ id: 'o', agent: 'other', operation: 'echo', input: { text: 'hi' } }));
    assert.deepEqual(await talk.received(1), [{ id: 'o', type: 'result', output: { other: 'hi' } }]);
    talk.socket.close();
    await talk.closed;
  }
});

test('webSocket.allowedOrigins lets named sites connect, and only those', async () => {
  const allowing = await startHost({
    agents: [otherAgent()],
    webSocket: { allowedOrigins: ['https://app.example'] },
  });
  try {
    const base = allowing.url.replace(/^http/, 'ws');
    const allowed = new WebSocket(`${base}/ws`, { origin: 'https://app.example' });
    await once(allowed, 'open');
    allowed.close();
    for (const origin of ['http://app.example', 'https://app.example.evil', 'null']) {
      const refused = new WebSocket(`${base}/ws`, { origin });
      refused.on('error', () => {});
      const [, response] = (await once(refused, 'unexpected-response')) as [unknown, { statusCode: number }];
      assert.equal(response.statusCode, 403, origin);
      refused.terminate();
    }
  } finally {
    await allowing.close();
  }
});

test('attached to a server of its own at a custom path; close() ends open connections with 1001', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = attachWebSocket(server, running.host.runtime, { path: '/socket' });
  try {
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/socket`;
    const socket = new WebSocket(url);
    const closed = once(socket, 'close');
    await once(socket, 'open');
    socket.send(JSON.stringify({ id: 1, agent: 'other', operation: 'echo', input: { text: 'z' } }));
    const [data] = await once(socket, 'message');
    assert.deepEqual(JSON.parse(String(data)), { id: 1, type: 'result', output: { other: 'z' } });
    endpoint.close();
    const [code] = await closed;
    assert.equal(code, 1001);
  } finally {
    endpoint.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
