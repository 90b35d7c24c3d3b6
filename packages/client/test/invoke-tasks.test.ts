/**
 * Deferred tasks against a real server: 202 with Location, polled until done (pending answers, Retry-After and
 * body hints, 429 while polling, a 303 to the result), AWP `poll_endpoint` with the task id filled in, failed and
 * cancelled tasks, no way to poll, and cancellation with DELETE on abort and on timeout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent } from '@agentry/core';
import { type InvokeEvent, invoke, invokeStream, RemoteError, TransportError } from '../src/index.js';
import {
  documentRoute,
  loadAgent,
  loopbackFetcher,
  rejection,
  sendJson,
  startServer,
  type TestServer,
} from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;
/** Called by the never-ending task's poll route, so a test can abort after polls have started. */
let onSlowPoll: (count: number) => void = () => {};

const polls = (path: string) => server.hits('GET', path).length;

before(async () => {
  server = await startServer({
    'POST /jobs': (_request, response) =>
      sendJson(
        response,
        202,
        { taskId: 'abc', status: 'queued', pollIntervalMs: 1 },
        { location: '/jobs/abc' },
      ),
    'GET /jobs/abc': (_request, response) => {
      const count = polls('/jobs/abc');
      if (count === 1) return sendJson(response, 202, { status: 'running' }, { 'retry-after': '0' });
      if (count === 2) return sendJson(response, 429, { title: 'slow down' }, { 'retry-after': '0' });
      if (count === 3) return sendJson(response, 200, { status: 'working', pollIntervalMs: 1 });
      sendJson(response, 200, { status: 'completed', result: { summary: 'done at last' } });
    },
    'POST /redirecting': (_request, response) =>
      sendJson(response, 202, {}, { location: '/redirecting/1', 'x-task-id': 'r-1' }),
    'GET /redirecting/1': (_request, response) => {
      response.writeHead(303, { location: '/results/1' });
      response.end();
    },
    'GET /results/1': (_request, response) => sendJson(response, 200, { plain: 'result' }),
    'POST /failing': (_request, response) =>
      sendJson(response, 202, { id: 'f1' }, { location: '/failing/f1' }),
    'GET /failing/f1': (_request, response) =>
      sendJson(response, 200, {
        status: 'failed',
        error: { code: 'OUT_OF_INK', message: 'The printer is empty.' },
      }),
    'POST /cancelled': (_request, response) => sendJson(response, 202, {}, { location: '/cancelled/1' }),
    'GET /cancelled/1': (_request, response) => sendJson(response, 200, { status: 'cancelled' }),
    'POST /nowhere': (_request, response) => sendJson(response, 202, { status: 'queued' }),
    'POST /slow': (_request, response) => sendJson(response, 202, { taskId: 's1' }, { location: '/slow/s1' }),
    'GET /slow/s1': (_request, response) => {
      sendJson(response, 202, { status: 'running' }, { 'retry-after': '0' });
      onSlowPoll(polls('/slow/s1'));
    },
    'DELETE /slow/s1': (_request, response) => {
      response.writeHead(204);
      response.end();
    },
    'POST /api/render': (_request, response) =>
      sendJson(response, 202, { job_id: 'j 1', status: 'accepted' }),
    'GET /api/jobs/j%201': (_request, response) =>
      polls('/api/jobs/j%201') < 2
        ? sendJson(response, 200, { status: 'running', pollIntervalMs: 1 })
        : sendJson(response, 200, { status: 'done', output: { url: 'https://cdn.example/render.png' } }),
  });
  const { origin } = server;
  server.routes.set(
    'GET /agent.json',
    documentRoute({
      awp_version: '0.1',
      domain: new URL(origin).host,
      intent: 'Render images.',
      actions: [
        {
          id: 'render',
          description: 'Render a scene; takes a while.',
          auth_required: false,
          inputs: { scene: { type: 'string', required: true } },
          outputs: { url: 'url' },
          endpoint: `${origin}/api/render`,
          method: 'POST',
          execution_model: 'async',
          poll_endpoint: '/api/jobs/{job_id}',
        },
      ],
    }),
  );
});

after(async () => {
  await server.close();
  await fetcher.close();
});

function taskAgent(path: string, surfaceErrors?: Record<string, { recovery: string }>): Agent {
  const agent: Agent = {
    id: 'worker',
    name: 'Worker',
    description: 'Works slowly.',
    operations: [{ name: 'work', executionModel: 'async' }],
    bindings: [{ kind: 'http', url: `${server.origin}${path}`, method: 'POST' }],
  };
  if (surfaceErrors !== undefined) agent.surface = { errors: surfaceErrors };
  return agent;
}

const quick = { intervalMs: 1, maxIntervalMs: 5 };

describe('polling to a result', () => {
  test('202 + Location: polled through pending answers, a 429 and hints until completed', async () => {
    const result = await invoke({ agent: taskAgent('/jobs') }, {}, { fetcher, tasks: quick });
    assert.deepEqual(result.output, { summary: 'done at last' });
    assert.equal(result.taskId, 'abc');
    assert.equal(result.status, 200);
    assert.equal(polls('/jobs/abc'), 4);
  });

  test('a poll redirected (303) to the result; the task id from X-Task-ID', async () => {
    const result = await invoke({ agent: taskAgent('/redirecting') }, {}, { fetcher, tasks: quick });
    assert.deepEqual(result.output, { plain: 'result' });
    assert.equal(result.taskId, 'r-1');
  });

  test("AWP poll_endpoint: the task id fills the endpoint's placeholder", async () => {
    const agent = await loadAgent(`${server.origin}/agent.json`);
    assert.equal(agent.operations[0]?.pollEndpoint, '/api/jobs/{job_id}');
    const result = await invoke({ agent }, { scene: 'sunset' }, { fetcher, tasks: quick });
    assert.deepEqual(result.output, { url: 'https://cdn.example/render.png' });
    assert.equal(result.taskId, 'j 1');
    assert.equal(polls('/api/jobs/j%201'), 2);
  });

  test('invokeStream gives the deferred result as one result event', async () => {
    const events: InvokeEvent[] = [];
    for await (const event of invokeStream(
      { agent: taskAgent('/redirecting') },
      {},
      { fetcher, tasks: quick },
    )) {
      events.push(event);
    }
    assert.deepEqual(events, [{ event: 'result', data: { plain: 'result' } }]);
  });
});

describe('tasks that do not succeed', () => {
  test('a failed task is the AgentError its error object describes, with the recovery hint', async () => {
    const agent = taskAgent('/failing', { OUT_OF_INK: { recovery: 'refill the printer, then retry' } });
    const error = await rejection(invoke({ agent }, {}, { fetcher, tasks: quick }));
    assert.ok(error instanceof RemoteError, String(error));
    assert.equal(error.code, 'OUT_OF_INK');
    assert.equal(error.detail, 'The printer is empty.');
    assert.equal(error.recovery, 'refill the printer, then retry');
    assert.equal(error.endpoint, `${server.origin}/failing/f1`);
  });

  test('a task the agent cancelled is a RemoteError saying so', async () => {
    const error = await rejection(invoke({ agent: taskAgent('/cancelled') }, {}, { fetcher, tasks: quick }));
    assert.ok(error instanceof RemoteError);
    assert.match(error.message, /cancelled by the agent/);
  });

  test('a 202 with no Location, poll URL or poll endpoint is a protocol error', async () => {
    const error = await rejection(invoke({ agent: taskAgent('/nowhere') }, {}, { fetcher, tasks: quick }));
    assert.ok(error instanceof TransportError);
    assert.equal(error.reason, 'protocol');
    assert.match(error.message, /no way to follow it/);
  });
});

describe('cancelling', () => {
  test('an abort while polling cancels the task with DELETE and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('no longer needed');
    onSlowPoll = (count) => {
      if (count === 2) controller.abort(reason);
    };
    const before = server.hits('DELETE', '/slow/s1').length;
    const error = await rejection(
      invoke({ agent: taskAgent('/slow') }, {}, { fetcher, tasks: quick, signal: controller.signal }),
    );
    assert.equal(error, reason);
    assert.equal(server.hits('DELETE', '/slow/s1').length, before + 1);
  });

  test('a task still running at the timeout is cancelled, and the timeout is a TransportError', async () => {
    onSlowPoll = () => {};
    const before = server.hits('DELETE', '/slow/s1').length;
    const error = await rejection(
      invoke({ agent: taskAgent('/slow') }, {}, { fetcher, tasks: { ...quick, timeoutMs: 30 } }),
    );
    assert.ok(error instanceof TransportError, String(error));
    assert.equal(error.reason, 'timeout');
    assert.match(error.message, /task s1.*was cancelled.*tasks\.timeoutMs/);
    assert.equal(server.hits('DELETE', '/slow/s1').length, before + 1);
  });
});
