/**
 * The `a2a` binding over A2A's HTTP+JSON protocol binding, against the official SDK's REST server
 * (`@a2a-js/sdk/server/express`'s `restHandler` on an Express app on 127.0.0.1), for an agent whose card offers
 * HTTP+JSON only: the agent is found from its card, called, streamed, its task followed and cancelled, and its
 * errors read, in A2A v1.0.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { A2aBinding, Agent } from '@agentry/core';
import express from 'express';
import { InvalidInputError, invoke, invokeStream, RemoteError, resolve } from '../src/index.js';
import { CalculatorExecutor, Gate, skill, withSlowDeferred } from './a2a-sdk-agent.js';
import { loopbackFetcher } from './invoke-support.js';

let server: Server;
let origin: string;
let executor: CalculatorExecutor;
/** Every request the REST interface received: method and path. */
const requests: string[] = [];
/** Called when the server receives a task read. */
let onGetTask: () => void = () => {};

function cardJson(): Record<string, unknown> {
  return {
    name: 'Calculator',
    description: 'Adds, counts and waits.',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: ['add', 'count', 'slow', 'fail'].map(skill),
  };
}

before(async () => {
  executor = new CalculatorExecutor();
  const app = express();
  app.get('/.well-known/agent-card.json', (_request, response) => {
    response.json(cardJson());
  });
  app.use('/a2a', (request, _response, next) => {
    requests.push(`${request.method} ${request.originalUrl}`);
    if (request.method === 'GET' && /^\/tasks\/[^/:]+$/.test(request.path)) onGetTask();
    next();
  });
  // The handler reads the card when it answers, after the port is known.
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(
    cardJson() as unknown as AgentCard,
    new InMemoryTaskStore(),
    executor,
  );
  app.use('/a2a', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
});

after(async () => {
  executor.gate.open('done');
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const cardUrl = (): string => `${origin}/.well-known/agent-card.json`;

async function described(): Promise<{ agent: Agent; binding: A2aBinding }> {
  const fetcher = loopbackFetcher();
  try {
    const agent = (await resolve(cardUrl(), { fetcher })).agents[0]!;
    const binding = agent.bindings.find((candidate): candidate is A2aBinding => candidate.kind === 'a2a');
    assert.ok(binding, 'the card describes an A2A binding');
    return { agent, binding };
  } finally {
    await fetcher.close();
  }
}

/** The agent with `slow` declared deferred (see withSlowDeferred), and its binding. */
async function withDeferredSlow(): Promise<{ agent: Agent; binding: A2aBinding }> {
  const { agent, binding } = await described();
  return { agent: withSlowDeferred(agent), binding };
}

test('invoke resolves a card that offers HTTP+JSON only, posts to message:send, and reads the message', async () => {
  const fetcher = loopbackFetcher();
  try {
    const result = await invoke(
      cardUrl(),
      { a: 2, b: 3 },
      { operation: 'add', fetcher, sessionId: 'conversation-1' },
    );
    assert.deepEqual(result.output, { sum: 5 });
    assert.equal(result.binding.kind === 'a2a' && result.binding.protocolBinding, 'HTTP+JSON');
    assert.equal(requests.at(-1), 'POST /a2a/message:send');
    assert.equal(executor.seen.at(-1)?.contextId, 'conversation-1');
  } finally {
    await fetcher.close();
  }
});

test('invokeStream posts to message:stream and reads its unwrapped events: chunks, then the artifact', async () => {
  const fetcher = loopbackFetcher();
  try {
    const events = [];
    for await (const event of invokeStream(cardUrl(), { to: 3 }, { operation: 'count', fetcher }))
      events.push(event);
    assert.equal(requests.at(-1), 'POST /a2a/message:stream');
    assert.deepEqual(
      events.map((event) => [event.event, event.data]),
      [
        ['chunk', 1],
        ['chunk', 2],
        ['chunk', 3],
        ['result', { total: 3 }],
      ],
    );
  } finally {
    await fetcher.close();
  }
});

test('a deferred operation is followed at tasks/{id} until it completes', async () => {
  const { agent, binding } = await withDeferredSlow();
  executor.gate = new Gate();
  onGetTask = () => executor.gate.open('done');
  const fetcher = loopbackFetcher();
  try {
    const result = await invoke(
      { agent, binding },
      {},
      { operation: 'slow', fetcher, tasks: { intervalMs: 5 } },
    );
    assert.deepEqual(result.output, { done: true });
    assert.ok(result.taskId);
    assert.ok(requests.includes(`GET /a2a/tasks/${result.taskId}`), requests.join('\n'));
  } finally {
    onGetTask = () => {};
    await fetcher.close();
  }
});

test('aborting a followed task cancels it with POST tasks/{id}:cancel', async () => {
  const { agent, binding } = await withDeferredSlow();
  executor.gate = new Gate();
  const controller = new AbortController();
  onGetTask = () => controller.abort(new Error('The caller gave up.'));
  const fetcher = loopbackFetcher();
  try {
    await assert.rejects(
      invoke(
        { agent, binding },
        {},
        { operation: 'slow', fetcher, signal: controller.signal, tasks: { intervalMs: 5 } },
      ),
      /The caller gave up/,
    );
    assert.match(requests.at(-1) ?? '', /^POST \/a2a\/tasks\/[^/]+:cancel$/);
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

test('an error answered with an HTTP status is typed by the status and carries what the agent said', async () => {
  const fetcher = loopbackFetcher();
  try {
    // The caller's A2A-Version header wins over the binding's: one the server does not serve is a 400.
    await assert.rejects(
      invoke(cardUrl(), { a: 1, b: 1 }, { operation: 'add', fetcher, headers: { 'A2A-Version': '9.9' } }),
      (error: unknown) => {
        assert.ok(error instanceof InvalidInputError, String(error));
        assert.equal(error.status, 400);
        assert.match(error.detail ?? '', /version '9\.9' is not supported/);
        assert.equal(error.endpoint, `${origin}/a2a/message:send`);
        return true;
      },
    );
  } finally {
    await fetcher.close();
  }
});
