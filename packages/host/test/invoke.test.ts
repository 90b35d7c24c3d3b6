/**
 * Invocation over real loopback servers: our client over the WoA REST envelope (HTTPS, as WoA requires) and over
 * the per-operation HTTP endpoints, then each error the host answers, as problem details.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentNotFoundError,
  ConfirmationRequiredError,
  InvalidInputError,
  invoke,
  OperationNotFoundError,
  RemoteError,
  resolve,
} from '@agentry/client';
import type { HttpBinding } from '@agentry/core';
import { defineAgent } from '../src/index.js';
import { clockAgent, SECRET_MESSAGE, textAgent } from './fixtures/agents.js';
import { json, type RunningHost, startHost } from './support.js';

describe('our client calls a host over WoA REST (https)', () => {
  let running: RunningHost;
  before(async () => {
    running = await startHost({ agents: [textAgent(), clockAgent()], https: true });
  });
  after(() => running.close());

  test('resolving the origin finds the agents, and invoke uses the REST envelope', async () => {
    const resolution = await resolve(running.url, { fetcher: running.fetcher });
    const ids = resolution.agents.map((agent) => agent.id);
    assert.ok(ids.includes('text') && ids.includes('clock'), ids.join(', '));
    const result = await invoke(
      `${running.url}/.well-known/woa.json#text`,
      { text: 'one two three four' },
      {
        operation: 'summarize',
        fetcher: running.fetcher,
      },
    );
    assert.equal(result.binding.kind, 'woa-rest');
    assert.deepEqual(result.output, { summary: 'one two three', words: 3 });
  });

  test('the agent:// descriptor names the same bindings, and its http binding works', async () => {
    const resolution = await resolve(`${running.url}/agents/text/agent.json`, { fetcher: running.fetcher });
    const agent = resolution.agent!;
    const http = agent.bindings.find(
      (binding): binding is HttpBinding =>
        binding.kind === 'http' && binding.operations?.includes('echo') === true,
    )!;
    const result = await invoke(
      { agent, binding: http },
      { value: [1, 2] },
      {
        operation: 'echo',
        fetcher: running.fetcher,
        sessionId: 's-1',
      },
    );
    assert.equal(result.binding.kind, 'http');
    assert.deepEqual(result.output, { value: [1, 2], sessionId: 's-1', transport: 'operation' });
  });

  test('a TD card read by the client calls the operation through its form', async () => {
    const result = await invoke(`${running.url}/agents/clock/card`, null, {
      fetcher: running.fetcher,
      operation: 'default',
    });
    assert.deepEqual(result.output, { iso: '2026-01-01T00:00:00.000Z' });
  });

  test('input the schema refuses is a 400 whose failures carry JSON pointers', async () => {
    const agent = (await resolve(`${running.url}/.well-known/woa.json#text`, { fetcher: running.fetcher }))
      .agent!;
    await assert.rejects(
      invoke({ agent }, { text: '' }, { operation: 'summarize', fetcher: running.fetcher, validate: 'off' }),
      (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.equal(error.status, 400);
        assert.equal(error.pointer, '/text');
        return true;
      },
    );
  });

  test('a handler failure is a 500 that says nothing of it, and is logged', async () => {
    const agent = (await resolve(`${running.url}/agents/text/agent.json`, { fetcher: running.fetcher }))
      .agent!;
    await assert.rejects(
      invoke({ agent }, null, { operation: 'fail', fetcher: running.fetcher }),
      (error: unknown) => {
        assert.ok(error instanceof RemoteError);
        assert.equal(error.status, 500);
        assert.ok(!JSON.stringify(error.toJSON()).includes('hunter2'));
        return true;
      },
    );
    const logged = running.logger.entries.find((entry) => entry.message.includes('"fail"'));
    assert.equal(logged?.level, 'error');
    assert.equal(logged?.details?.['message'], SECRET_MESSAGE);
  });

  test('no document was published with problems', () => {
    assert.deepEqual(
      running.logger.entries.filter((entry) => entry.message.includes('document')),
      [],
    );
  });
});

describe('the invocation routes over HTTP', () => {
  let running: RunningHost;
  const post = (path: string, body: string | undefined, headers: Record<string, string> = {}) =>
    fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });

  before(async () => {
    const guarded = defineAgent({
      id: 'vault',
      name: 'Vault',
      description: 'Deletes things.',
      operations: {
        wipe: {
          description: 'Wipe everything.',
          sensitivity: 'irreversible',
          handler: () => ({ wiped: true }),
        },
      },
    });
    running = await startHost({ agents: [textAgent(), clockAgent(), guarded], limits: { bodyBytes: 1024 } });
  });
  after(() => running.close());

  test('the envelope route runs the named operation', async () => {
    const response = await post(
      '/agents/text/invoke',
      JSON.stringify({ agent: 'text', operation: 'summarize', input: { text: 'a b' } }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await response.json(), { summary: 'a b', words: 2 });
  });

  test('an envelope naming another agent than the URL is a 400 problem', async () => {
    const response = await post('/agents/text/invoke', JSON.stringify({ agent: 'clock', input: {} }));
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const body = await json(response);
    assert.equal(body['code'], 'AgentMismatch');
    assert.deepEqual(body['errors'], [{ pointer: '/agent', detail: body['detail'] }]);
  });

  test('an envelope without an operation runs "default"', async () => {
    const response = await post('/agents/clock/invoke', JSON.stringify({ input: {} }));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { iso: '2026-01-01T00:00:00.000Z' });
  });

  test('POST /invoke takes the agent from the envelope, and requires it', async () => {
    const response = await post('/invoke', JSON.stringify({ agent: 'clock', input: {} }));
    assert.deepEqual(await response.json(), { iso: '2026-01-01T00:00:00.000Z' });
    const missing = await post('/invoke', JSON.stringify({ input: {} }));
    assert.equal(missing.status, 400);
    assert.equal((await json(missing))['code'], 'InvalidEnvelope');
  });

  test('malformed JSON is a 400 that says where', async () => {
    const response = await post('/agents/text/invoke', '{"operation": "echo",\n "input": {');
    assert.equal(response.status, 400);
    const body = await json(response);
    assert.equal(body['code'], 'InvalidJson');
    assert.match(String(body['detail']), /line 2, column/);
  });

  test('schema failures list every failure with its pointer', async () => {
    const response = await post(
      '/agents/text/operations/summarize',
      JSON.stringify({ text: '', maxWords: -1 }),
    );
    assert.equal(response.status, 400);
    const body = await json(response);
    assert.equal(body['code'], 'InvalidInput');
    const pointers = (body['errors'] as Array<{ pointer: string }>).map((failure) => failure.pointer).sort();
    assert.deepEqual(pointers, ['/maxWords', '/text']);
  });

  test('unknown agents and operations are 404, naming what exists', async () => {
    const agent = await post('/agents/nobody/invoke', JSON.stringify({ input: {} }));
    assert.equal(agent.status, 404);
    assert.equal((await json(agent))['code'], 'AgentNotFound');
    const operation = await post('/agents/text/operations/nothing', '{}');
    assert.equal(operation.status, 404);
    const body = await json(operation);
    assert.equal(body['code'], 'OperationNotFound');
    assert.ok((body['available'] as string[]).includes('summarize'));
  });

  test('our client maps those 404s to its typed errors', async () => {
    const agent = (await resolve(`${running.url}/agents/text/agent.json`, { fetcher: running.fetcher }))
      .agent!;
    const http = agent.bindings.find(
      (binding): binding is HttpBinding =>
        binding.kind === 'http' && binding.operations?.includes('echo') === true,
    )!;
    await assert.rejects(
      invoke(
        { agent, binding: { ...http, url: `${running.url}/agents/ghost/operations/echo` } },
        { value: 1 },
        {
          operation: 'echo',
          fetcher: running.fetcher,
        },
      ),
      AgentNotFoundError,
    );
    await assert.rejects(
      invoke(
        { agent, binding: { ...http, url: `${running.url}/agents/text/operations/ghost` } },
        { value: 1 },
        {
          operation: 'echo',
          fetcher: running.fetcher,
        },
      ),
      OperationNotFoundError,
    );
  });

  test('an Accept the host cannot satisfy is a 406 listing what it can', async () => {
    const response = await post('/agents/text/operations/echo', '{"value":1}', { accept: 'text/html' });
    assert.equal(response.status, 406);
    assert.deepEqual((await json(response))['supported'], [
      'application/json',
      'text/event-stream',
      'application/x-ndjson',
    ]);
  });

  test('an unsupported body type is a 415', async () => {
    const response = await post('/agents/text/operations/echo', 'value=1', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(response.status, 415);
    assert.equal((await json(response))['code'], 'UnsupportedMediaType');
  });

  test('a body over the limit is a 413, declared or streamed', async () => {
    const big = JSON.stringify({ value: 'x'.repeat(2000) });
    const declared = await post('/agents/text/operations/echo', big);
    assert.equal(declared.status, 413);
    const chunked = await fetch(`${running.url}/agents/text/operations/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assert.equal((await json(chunked))['code'], 'PayloadTooLarge');
  });

  test('an output that breaks its schema is a 500, logged', async () => {
    const response = await post('/agents/text/operations/broken', '');
    const body = await json(response);
    assert.equal(response.status, 500, JSON.stringify(body));
    assert.equal(body['code'], 'InvalidOutput');
    assert.ok(
      running.logger.entries.some((entry) => entry.message.includes('"broken"') && entry.level === 'error'),
    );
  });

  test('a HostError answers its own problem', async () => {
    const response = await post('/agents/text/operations/refuse', '');
    assert.equal(response.status, 409);
    const body = await json(response);
    assert.equal(body['type'], 'https://w3id.org/agentry/problems/out-of-stock');
    assert.equal(body['detail'], 'Only 2 left.');
    assert.deepEqual(body['error'], { code: 'out_of_stock', message: 'Only 2 left.' });
  });

  test('safe operations take GET with the input as query parameters', async () => {
    const response = await fetch(
      `${running.url}/agents/text/operations/summarize?text=a%20b%20c%20d&maxWords=2`,
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { summary: 'a b', words: 2 });
    const unsafe = await fetch(`${running.url}/agents/text/operations/echo?value=1`);
    assert.equal(unsafe.status, 405);
    assert.equal(unsafe.headers.get('allow'), 'POST');
  });

  test('the envelope route only takes POST', async () => {
    const response = await fetch(`${running.url}/agents/text/invoke`);
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });

  test('an irreversible operation needs confirmation, which our client gives with confirm: true', async () => {
    const agent = (await resolve(`${running.url}/agents/vault/agent.json`, { fetcher: running.fetcher }))
      .agent!;
    const refused = await post('/agents/vault/operations/wipe', '');
    assert.equal(refused.status, 428);
    const result = await invoke({ agent }, null, {
      operation: 'wipe',
      fetcher: running.fetcher,
      confirm: true,
    });
    assert.deepEqual(result.output, { wiped: true });
    await assert.rejects(
      invoke({ agent }, null, { operation: 'wipe', fetcher: running.fetcher }),
      ConfirmationRequiredError,
    );
  });
});
