/**
 * Streaming (SSE and NDJSON, read by our client's invokeStream) and deferred tasks (202, polling, cancelling,
 * signed callbacks), over a real loopback server.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type InvokeEvent, invoke, invokeStream, resolve } from '@agentry/client';
import type { Agent } from '@agentry/core';
import { CALLBACK_HEADER, SIGNATURE_HEADER, verifyCallbackSignature } from '../src/index.js';
import { textAgent } from './fixtures/agents.js';
import { json, type RunningHost, startHost } from './support.js';

const SECRET = 'callback-secret';

describe('streams and deferred tasks', () => {
  let running: RunningHost;
  let agent: Agent;
  let receiver: Server;
  let receiverUrl: string;
  const received: Array<{ body: string; signature: string | undefined }> = [];
  let onReceived: () => void = () => {};

  before(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push({
          body,
          signature: request.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined,
        });
        response.writeHead(204).end();
        onReceived();
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    running = await startHost({
      agents: [textAgent()],
      tasks: {
        retryAfterSeconds: 0,
        callbacks: {
          secret: SECRET,
          fetch: async (url, init) => {
            const response = await fetch(url, init);
            return { status: response.status };
          },
        },
      },
    });
    agent = (await resolve(`${running.url}/agents/text/agent.json`, { fetcher: running.fetcher })).agent!;
  });
  after(async () => {
    await running.close();
    await new Promise<void>((done) => receiver.close(() => done()));
  });

  const collect = async (events: AsyncIterable<InvokeEvent>): Promise<InvokeEvent[]> => {
    const out: InvokeEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };

  test('invokeStream reads SSE chunks, then the result', async () => {
    const events = await collect(
      invokeStream({ agent }, { to: 3 }, { operation: 'count', fetcher: running.fetcher }),
    );
    assert.deepEqual(
      events.map((event) => [event.event, event.data]),
      [
        ['chunk', 1],
        ['chunk', 2],
        ['chunk', 3],
        ['result', { total: 3 }],
      ],
    );
  });

  test('invokeStream reads NDJSON lines when asked for them', async () => {
    const events = await collect(
      invokeStream(
        { agent },
        { to: 2 },
        {
          operation: 'count',
          fetcher: running.fetcher,
          headers: { accept: 'application/x-ndjson' },
        },
      ),
    );
    assert.deepEqual(
      events.map((event) => [event.event, event.data]),
      [
        ['chunk', 1],
        ['chunk', 2],
        ['result', { total: 2 }],
      ],
    );
  });

  test('a streaming operation called for JSON answers its final output', async () => {
    const result = await invoke({ agent }, { to: 4 }, { operation: 'count', fetcher: running.fetcher });
    assert.deepEqual(result.output, { total: 4 });
  });

  test('a failure inside a stream ends it with an error event', async () => {
    const response = await fetch(`${running.url}/agents/text/operations/fail`, {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
    });
    // Not a generator: the failure happens before any event, so it is a plain problem answer.
    assert.equal(response.status, 500);
  });

  test('a deferred operation answers 202 with Location, and the task can be polled to its result', async () => {
    const response = await fetch(`${running.url}/agents/text/operations/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 0 }),
    });
    assert.equal(response.status, 202);
    const location = response.headers.get('location')!;
    assert.match(location, new RegExp(`^${running.url}/tasks/[0-9a-f-]{36}$`));
    assert.equal(response.headers.get('retry-after'), '0');
    const accepted = await json(response);
    let status = await json(await fetch(location));
    for (let i = 0; i < 100 && status['status'] !== 'completed'; i++) {
      await new Promise((done) => setTimeout(done, 10));
      status = await json(await fetch(location));
    }
    assert.equal(status['status'], 'completed');
    assert.deepEqual(status['result'], { done: true, taskId: accepted['taskId'] });
  });

  test('our client waits for a deferred task', async () => {
    const result = await invoke(
      { agent },
      { ms: 20 },
      {
        operation: 'slow',
        fetcher: running.fetcher,
        tasks: { intervalMs: 10 },
      },
    );
    assert.equal((result.output as { done: boolean }).done, true);
    assert.equal(result.taskId, (result.output as { taskId: string }).taskId);
  });

  test('DELETE cancels a running task and aborts its handler', async () => {
    const response = await fetch(`${running.url}/agents/text/operations/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 60_000 }),
    });
    const location = response.headers.get('location')!;
    const running1 = await json(await fetch(location));
    assert.equal(running1['status'], 'running');
    assert.deepEqual(running1['progress'], { started: true });
    const cancelled = await fetch(location, { method: 'DELETE' });
    assert.equal(cancelled.status, 200);
    assert.equal((await json(cancelled))['status'], 'canceled');
    assert.equal((await json(await fetch(location)))['status'], 'canceled');
  });

  test('unknown tasks are 404', async () => {
    const response = await fetch(`${running.url}/tasks/00000000-0000-0000-0000-000000000000`);
    assert.equal(response.status, 404);
    assert.equal((await json(response))['code'], 'TaskNotFound');
  });

  test('a finished task is POSTed to the callback URL, signed', async () => {
    const arrived = new Promise<void>((done) => {
      onReceived = done;
    });
    const response = await fetch(`${running.url}/agents/text/operations/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CALLBACK_HEADER]: receiverUrl },
      body: JSON.stringify({ ms: 0 }),
    });
    assert.equal(response.status, 202);
    await arrived;
    const delivery = received.at(-1)!;
    assert.equal(JSON.parse(delivery.body).status, 'completed');
    assert.ok(verifyCallbackSignature(SECRET, delivery.signature ?? null, delivery.body));
    assert.ok(!verifyCallbackSignature('another secret', delivery.signature ?? null, delivery.body));
    assert.ok(!verifyCallbackSignature(SECRET, delivery.signature ?? null, `${delivery.body} `));
  });

  test('a callback URL that is not http(s) is refused', async () => {
    const response = await fetch(`${running.url}/agents/text/operations/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CALLBACK_HEADER]: 'file:///etc/passwd' },
      body: '{}',
    });
    assert.equal(response.status, 400);
    assert.equal((await json(response))['code'], 'InvalidCallbackUrl');
  });
});
