/**
 * What a call carries and what it is given: X-Session-ID, X-Task-ID, X-Agent-Version, credentials where the agent's
 * scheme wants them, the caller's own headers; and targets given as a Resolution or an agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent, SecurityScheme } from '@agentry/core';
import type { Resolution } from '../src/index.js';
import { AgentNotFoundError, invoke } from '../src/index.js';
import { loopbackFetcher, rejection, sendJson, startServer, type TestServer } from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;

before(async () => {
  server = await startServer({
    'POST /echo': (request, response) =>
      sendJson(
        response,
        200,
        { ok: true },
        { 'x-task-id': request.headers['x-task-id'] ? 'echoed' : 'assigned-7' },
      ),
  });
});

after(async () => {
  await server.close();
  await fetcher.close();
});

function agent(schemes?: SecurityScheme[]): Agent {
  const out: Agent = {
    id: 'echo',
    name: 'Echo',
    description: 'Echoes.',
    url: 'agent://echo.example/echo',
    operations: [{ name: 'echo' }],
    bindings: [{ kind: 'http', url: `${server.origin}/echo?fixed=1`, method: 'POST' }],
  };
  if (schemes !== undefined) out.auth = { schemes };
  return out;
}

const last = () => server.hits('POST', '/echo').at(-1)!;

describe('headers', () => {
  test('session, task and version identifiers', async () => {
    const result = await invoke(
      { agent: agent() },
      {},
      { fetcher, sessionId: 'sess-1', taskId: 'task-1', version: '2.1.0' },
    );
    const { headers } = last();
    assert.equal(headers['x-session-id'], 'sess-1');
    assert.equal(headers['x-task-id'], 'task-1');
    assert.equal(headers['x-agent-version'], '2.1.0');
    assert.equal(result.taskId, 'task-1');
  });

  test("the agent's X-Task-ID is the result's task id when the caller gave none", async () => {
    const result = await invoke({ agent: agent() }, {}, { fetcher });
    assert.equal(result.taskId, 'assigned-7');
    assert.equal(result.headers['x-task-id'], 'assigned-7');
    assert.equal(last().headers['x-session-id'], undefined);
  });

  test('a bearer token', async () => {
    await invoke({ agent: agent() }, {}, { fetcher, auth: { bearer: 'abc' } });
    assert.equal(last().headers.authorization, 'Bearer abc');
  });

  test('an API key goes in X-API-Key when the agent names no scheme', async () => {
    await invoke({ agent: agent() }, {}, { fetcher, auth: { apiKey: 'k1' } });
    assert.equal(last().headers['x-api-key'], 'k1');
  });

  test("an API key goes where the agent's scheme says: header, query or cookie", async () => {
    await invoke(
      { agent: agent([{ id: 'key', type: 'apiKey', in: 'header', name: 'X-Key' }]) },
      {},
      {
        fetcher,
        auth: { apiKey: 'k2' },
      },
    );
    assert.equal(last().headers['x-key'], 'k2');

    await invoke(
      { agent: agent([{ id: 'key', type: 'apiKey', in: 'query', name: 'api_key' }]) },
      {},
      {
        fetcher,
        auth: { apiKey: 'k3' },
      },
    );
    assert.equal(last().query.get('api_key'), 'k3');
    assert.equal(last().query.get('fixed'), '1', "the endpoint's own query is kept");
    assert.equal(last().headers['x-api-key'], undefined);

    await invoke(
      { agent: agent([{ id: 'key', type: 'apiKey', in: 'cookie', name: 'session' }]) },
      {},
      {
        fetcher,
        auth: { apiKey: 'k 4' },
      },
    );
    assert.equal(last().headers.cookie, 'session=k%204');
  });

  test("the caller's headers win, whatever their case", async () => {
    await invoke(
      { agent: agent() },
      {},
      {
        fetcher,
        sessionId: 'ours',
        headers: { 'x-session-id': 'theirs', 'X-Custom': 'yes' },
      },
    );
    assert.equal(last().headers['x-session-id'], 'theirs');
    assert.equal(last().headers['x-custom'], 'yes');
  });
});

describe('targets', () => {
  const resolution = (agents: Agent[], extra: Partial<Resolution> = {}): Resolution => ({
    target: 'agent://echo.example/echo',
    agents,
    documents: [
      { url: 'https://echo.example/.well-known/agents.json', fromCache: false, revalidated: false },
    ],
    issues: [],
    ...extra,
  });

  test('a Resolution: its agent, binding and negotiated version', async () => {
    const echo = agent();
    const result = await invoke(
      resolution([echo], { agent: echo, binding: echo.bindings[0]!, version: '1.4.0' }),
      {},
      { fetcher },
    );
    assert.deepEqual(result.output, { ok: true });
    assert.equal(last().headers['x-agent-version'], '1.4.0');
  });

  test('a Resolution with one agent and none chosen uses that one', async () => {
    const result = await invoke(resolution([agent()]), {}, { fetcher });
    assert.equal(result.binding.kind, 'http');
  });

  test('a Resolution that names no agent among several says which it found', async () => {
    const error = await rejection(
      invoke(resolution([agent(), { ...agent(), id: 'other' }]), {}, { fetcher }),
    );
    assert.ok(error instanceof AgentNotFoundError);
    assert.match(error.message, /names none of the 2 agents .* \(echo, other\)/);
  });

  test('a Resolution that found nothing says what was tried', async () => {
    const error = await rejection(
      invoke(
        resolution([], {
          documents: [
            {
              url: 'https://echo.example/.well-known/agents.json',
              status: 404,
              fromCache: false,
              revalidated: false,
            },
          ],
        }),
        {},
        { fetcher },
      ),
    );
    assert.ok(error instanceof AgentNotFoundError);
    assert.match(
      error.message,
      /No agent found at agent:\/\/echo\.example\/echo; tried .*agents\.json \(404\)/,
    );
  });

  test("the caller's binding is used when it serves the operation", async () => {
    const echo = agent();
    const other = { kind: 'http' as const, url: `${server.origin}/echo?via=caller`, method: 'POST' as const };
    await invoke({ agent: echo, binding: other }, {}, { fetcher });
    assert.equal(last().query.get('via'), 'caller');
  });
});
