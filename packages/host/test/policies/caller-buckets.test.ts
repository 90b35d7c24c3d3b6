/**
 * Anonymous callers are told apart by their address on every surface: two clients on different loopback addresses
 * (127.0.0.1 and 127.0.0.2, the client socket bound with `localAddress`) neither share a rate-limit bucket nor get
 * each other's response stored under an idempotency key, over REST, MCP (the SDK's client), A2A and WebSocket.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocket } from 'ws';
import { type AgentDefinition, defineAgent } from '../../src/index.js';
import { nodeFetch, type RunningHost, startHost } from '../support.js';

const FIRST = '127.0.0.1';
const SECOND = '127.0.0.2';

/** `ping` allows two calls a minute per client; `book` numbers each booking it really makes. */
function bookingAgent(): AgentDefinition {
  let bookings = 0;
  return defineAgent({
    id: 'desk',
    name: 'Booking desk',
    description: 'Books seats and answers pings, for the caller-bucket tests.',
    version: '1.0.0',
    operations: {
      ping: {
        description: 'Answers pong.',
        input: { type: 'object' },
        rateLimit: '2/minute',
        handler: () => ({ pong: true }),
      },
      book: {
        description: 'Books a seat.',
        input: { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] },
        handler: (input) => ({ seat: (input as { seat: string }).seat, booking: ++bookings }),
      },
    },
  });
}

let running: RunningHost;

before(async () => {
  running = await startHost({ agents: [bookingAgent()], webSocket: true });
});

after(async () => {
  await running.close();
});

async function envelope(
  from: string,
  operation: string,
  input: unknown,
  headers: Record<string, string> = {},
) {
  const response = await nodeFetch({ localAddress: from })(`${running.url}/agents/desk/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ operation, input }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

test('REST: each address has its own bucket and its own idempotency keys', async () => {
  for (let call = 0; call < 2; call++) assert.equal((await envelope(FIRST, 'ping', {})).status, 200);
  assert.equal((await envelope(FIRST, 'ping', {})).status, 429);
  assert.equal((await envelope(SECOND, 'ping', {})).status, 200, 'the second client still has calls');

  const key = { 'idempotency-key': 'rest-booking' };
  const first = await envelope(FIRST, 'book', { seat: '1A' }, key);
  const again = await envelope(FIRST, 'book', { seat: '1A' }, key);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  const other = await envelope(SECOND, 'book', { seat: '1A' }, key);
  assert.equal(other.headers.get('idempotent-replayed'), null, 'not the first client’s booking');
  assert.notDeepEqual(other.body, first.body);
});

async function mcpClient(from: string): Promise<Client> {
  const client = new Client({ name: `caller-${from}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      fetch: nodeFetch({ localAddress: from }),
    }),
  );
  return client;
}

function toolText(result: unknown): unknown {
  const [item] = (result as { content: { text: string }[] }).content;
  return JSON.parse(item!.text);
}

test('MCP: each address has its own bucket and its own idempotency keys', async () => {
  const first = await mcpClient(FIRST);
  const second = await mcpClient(SECOND);
  try {
    // The REST test spent the first address's pings; the MCP endpoint counts against the same client.
    const limited = await first.callTool({ name: 'ping', arguments: {} });
    assert.equal(limited.isError, true);
    assert.equal((toolText(limited) as { code: string }).code, 'RateLimited');
    const fresh = await mcpClient('127.0.0.3');
    try {
      assert.equal((await fresh.callTool({ name: 'ping', arguments: {} })).isError, undefined);
    } finally {
      await fresh.close();
    }

    const book = { name: 'book', arguments: { seat: '2B' }, _meta: { idempotencyKey: 'mcp-booking' } };
    const booked = toolText(await first.callTool(book));
    assert.deepEqual(toolText(await first.callTool(book)), booked, 'the same client gets its booking back');
    assert.notDeepEqual(toolText(await second.callTool(book)), booked, 'another client books anew');
  } finally {
    await first.close();
    await second.close();
  }
});

async function a2aBook(from: string, key: string) {
  const response = await nodeFetch({ localAddress: from })(`${running.url}/agents/desk/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: crypto.randomUUID(),
          parts: [{ kind: 'data', data: { seat: '3C' } }],
          metadata: { skillId: 'book' },
        },
      },
    }),
  });
  assert.equal(response.status, 200);
  return JSON.stringify(((await response.json()) as { result: { parts: unknown } }).result.parts);
}

test('A2A: an idempotency key is the caller’s own', async () => {
  const booked = await a2aBook(FIRST, 'a2a-booking');
  assert.equal(await a2aBook(FIRST, 'a2a-booking'), booked);
  assert.notEqual(await a2aBook(SECOND, 'a2a-booking'), booked);
});

async function wsBook(from: string, key: string): Promise<unknown> {
  const socket = new WebSocket(`${running.url.replace(/^http/, 'ws')}/agents/desk/ws`, {
    localAddress: from,
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ id: 1, operation: 'book', input: { seat: '4D' }, idempotencyKey: key }));
  const [data] = await once(socket, 'message');
  socket.close();
  await once(socket, 'close');
  return (JSON.parse(String(data)) as { output: unknown }).output;
}

test('WebSocket: an idempotency key is the caller’s own', async () => {
  const booked = await wsBook(FIRST, 'ws-booking');
  assert.deepEqual(await wsBook(FIRST, 'ws-booking'), booked);
  assert.notDeepEqual(await wsBook(SECOND, 'ws-booking'), booked);
});
