/** Agentry's own client calling a host over its `mcp` and `wss` bindings, as the host's documents describe them. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AgentNotFoundError,
  AuthRequiredError,
  ConfirmationRequiredError,
  InvalidInputError,
  invoke,
  invokeStream,
  RemoteError,
} from '@agentry/client';
import type { Agent, Binding } from '@agentry/core';
import { type RunningHost, startHost } from '../support.js';
import { toolsAgent } from './agents.js';

let running: RunningHost;
let secured: RunningHost;

before(async () => {
  running = await startHost({ agents: [toolsAgent()], webSocket: true });
  // Every operation needs an API key: the MCP endpoint as a whole needs credentials.
  secured = await startHost({
    agents: [toolsAgent()],
    webSocket: true,
    auth: {
      apiKeys: { 'key-1': { clientId: 'client-1' } },
      // Naming an operation here makes it need credentials.
      scopes: Object.fromEntries(
        ['echo', 'count', 'shout', 'later', 'wipe', 'refuse'].map((name) => [name, []]),
      ),
    },
  });
});

after(async () => {
  await running.close();
  await secured.close();
});

/** The hosted agent as its documents describe it, with only the binding of `kind`. */
function target(host: RunningHost, kind: Binding['kind']): { agent: Agent; binding: Binding } {
  const agent = host.host.runtime.agents()[0]!.agent;
  const binding = agent.bindings.find((candidate) => candidate.kind === kind);
  assert.ok(binding, `the host describes a ${kind} binding`);
  return { agent, binding };
}

test('the host describes its MCP and WebSocket bindings', () => {
  const { binding: mcp } = target(running, 'mcp');
  assert.equal(mcp.kind === 'mcp' && mcp.server, `${running.url}/mcp`);
  const { binding: wss } = target(running, 'wss');
  assert.equal(wss.kind === 'wss' && wss.url, `${running.url.replace(/^http/, 'ws')}/agents/tools/ws`);
});

for (const kind of ['mcp', 'wss'] as const) {
  test(`${kind}: invoke answers the output, with the session id carried`, async () => {
    const result = await invoke(
      target(running, kind),
      { text: 'hello' },
      { operation: 'echo', fetcher: running.fetcher, sessionId: 's-7' },
    );
    assert.deepEqual(result.output, { text: 'hello', sessionId: 's-7', transport: kind });
  });

  test(`${kind}: a non-object output arrives whole`, async () => {
    const result = await invoke(
      target(running, kind),
      { text: 'abc' },
      { operation: 'shout', fetcher: running.fetcher },
    );
    assert.equal(result.output, 'ABC');
  });

  test(`${kind}: a host's problem becomes the matching AgentError`, async () => {
    const options = { fetcher: running.fetcher, validate: 'off' as const };
    const invalid = await invoke(
      target(running, kind),
      { text: 5 },
      { ...options, operation: 'shout' },
    ).catch((error: unknown) => error);
    assert.ok(invalid instanceof InvalidInputError, String(invalid));
    assert.equal(invalid.status, 400);
    assert.equal(invalid.pointer, '/text');
    const refused = await invoke(target(running, kind), {}, { ...options, operation: 'refuse' }).catch(
      (error: unknown) => error,
    );
    assert.ok(refused instanceof RemoteError, String(refused));
    assert.equal(refused.status, 409);
    assert.equal(refused.code, 'out_of_stock');
  });

  test(`${kind}: confirm travels to the host, which runs the destructive operation`, async () => {
    const result = await invoke(
      target(running, kind),
      {},
      { operation: 'wipe', fetcher: running.fetcher, confirm: true },
    );
    assert.deepEqual(result.output, { wiped: true });
  });

  test(`${kind}: a deferred operation answers its result`, async () => {
    const result = await invoke(
      target(running, kind),
      { ms: 20 },
      { operation: 'later', fetcher: running.fetcher },
    );
    assert.deepEqual(result.output, { done: true });
  });

  test(`${kind}: missing credentials are an AuthRequiredError; an API key gets through`, async () => {
    const denied = await invoke(
      target(secured, kind),
      { text: 'x' },
      { operation: 'echo', fetcher: secured.fetcher },
    ).catch((error: unknown) => error);
    assert.ok(denied instanceof AuthRequiredError, String(denied));
    const allowed = await invoke(
      target(secured, kind),
      { text: 'x' },
      { operation: 'echo', fetcher: secured.fetcher, auth: { apiKey: 'key-1' } },
    );
    assert.equal((allowed.output as { text: string }).text, 'x');
  });
}

test('mcp: with every operation protected, a call without credentials is an HTTP 401 with a challenge', async () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  // Plain JSON answers, and SSE answers (a progress token asks for one), alike.
  for (const meta of [{}, { _meta: { progressToken: 1 } }]) {
    const response = await fetch(`${secured.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'count', arguments: { to: 2 }, ...meta },
      }),
    });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /ApiKey/);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await response.json()) as { status: number }).status, 401);
  }
});

test('wss: invokeStream yields each chunk, then the result', async () => {
  const events: { event: string; data: unknown }[] = [];
  for await (const event of invokeStream(
    target(running, 'wss'),
    { to: 3 },
    { operation: 'count', fetcher: running.fetcher },
  )) {
    events.push({ event: event.event, data: event.data });
  }
  assert.deepEqual(events, [
    { event: 'chunk', data: 1 },
    { event: 'chunk', data: 2 },
    { event: 'chunk', data: 3 },
    { event: 'result', data: { total: 3 } },
  ]);
});

test('wss: without confirm the client refuses before anything is sent', async () => {
  const local = await invoke(
    target(running, 'wss'),
    {},
    { operation: 'wipe', fetcher: running.fetcher },
  ).catch((error: unknown) => error);
  assert.ok(local instanceof ConfirmationRequiredError);
});

test('wss: a handshake to an agent the host does not have is refused with 404 before upgrading', async () => {
  const { agent } = target(running, 'wss');
  const missing: Binding = { kind: 'wss', url: `${running.url.replace(/^http/, 'ws')}/agents/ghost/ws` };
  const error = await invoke(
    { agent, binding: missing },
    { text: 'x' },
    { operation: 'echo', fetcher: running.fetcher },
  ).catch((thrown: unknown) => thrown);
  assert.ok(error instanceof AgentNotFoundError, String(error));
  assert.equal(error.status, 404);
  assert.equal(error.code, 'AgentNotFound');
});
