/**
 * `agentry resolve` and `agentry invoke` end to end: a real loopback origin serving an agents.json map, an agent://
 * descriptor and a TD AgentCard, and the agents' HTTP endpoints; the CLI runs as a separate process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Agent, codecs } from '@agentry/core';
import { agentryAsync } from './run-cli.js';

const dev = ['--scheme', 'http', '--allow-http', '--allow-private-network'];
let server: Server;
let origin = '';
let authority = '';
const requests: Array<{ method: string; url: string; body: string }> = [];

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => done(body));
  });
}

function echoAgent(): Agent {
  return {
    id: 'echo',
    name: 'Echo',
    description: 'Repeats the text it is given.',
    version: '1.0.0',
    operations: [
      {
        name: 'echo',
        description: 'Return the text.',
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        output: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
      },
    ],
    bindings: [{ kind: 'http', url: `${origin}/echo`, method: 'POST' }],
  };
}

function bookingsAgent(): Agent {
  return {
    id: 'bookings',
    name: 'Bookings',
    description: 'Cancels bookings.',
    operations: [
      {
        name: 'cancel',
        description: 'Cancel a booking; fees are not refunded.',
        input: { type: 'object', properties: { booking: { type: 'string' } }, required: ['booking'] },
        output: { type: 'object', properties: { cancelled: { type: 'boolean' } } },
        sensitivity: 'irreversible',
      },
    ],
    bindings: [{ kind: 'http', url: `${origin}/cancel`, method: 'POST' }],
  };
}

before(async () => {
  server = createServer(async (request, response) => {
    const body = await readBody(request);
    requests.push({ method: request.method ?? '', url: request.url ?? '', body });
    const json = (status: number, value: unknown, type = 'application/json') => {
      response
        .writeHead(status, { 'content-type': type, 'cache-control': 'max-age=60' })
        .end(JSON.stringify(value));
    };
    switch (request.url) {
      case '/.well-known/agents.json':
        return json(200, {
          agents: { echo: `${origin}/agents/echo/agent.json`, bookings: `${origin}/agents/bookings/card` },
        });
      case '/agents/echo/agent.json':
        return json(200, codecs['agent-json'].emit([echoAgent()]).document, 'application/ld+json');
      case '/agents/bookings/card':
        return json(200, codecs.td.emit([bookingsAgent()]).document, 'application/td+json');
      case '/echo':
        return json(200, { echo: (JSON.parse(body) as { text: string }).text });
      case '/cancel':
        return json(200, { cancelled: true });
      default:
        return json(
          404,
          { type: 'about:blank', title: 'Not Found', status: 404 },
          'application/problem+json',
        );
    }
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  authority = `127.0.0.1:${port}`;
});
after(() => new Promise<void>((done) => server.close(() => done())));

describe('agentry resolve', () => {
  test('agent:// through agents.json to the descriptor: the agent, its binding and the documents read', async () => {
    const run = await agentryAsync(['resolve', `agent://${authority}/echo`, ...dev, '--json']);
    assert.equal(run.status, 0, run.stderr);
    const resolution = JSON.parse(run.stdout) as {
      agent: { id: string; operations: Array<{ name: string }> };
      binding: { kind: string; url: string };
      documents: Array<{ url: string; format?: string; status?: number }>;
    };
    assert.equal(resolution.agent.id, 'echo');
    assert.deepEqual(
      resolution.agent.operations.map((op) => op.name),
      ['echo'],
    );
    assert.deepEqual(resolution.binding, { kind: 'http', url: `${origin}/echo`, method: 'POST' });
    const read = resolution.documents.map((doc) => [doc.url, doc.status, doc.format]);
    assert.deepEqual(read.slice(0, 2), [
      [`${origin}/.well-known/agents.json`, 200, 'agents-json'],
      [`${origin}/agents/echo/agent.json`, 200, 'agent-json'],
    ]);
  });

  test('human output names the agent, the binding and each document', async () => {
    const run = await agentryAsync(['resolve', `agent://${authority}/echo`, ...dev]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /agent\s+echo — Echo 1\.0\.0/);
    assert.match(run.stdout, new RegExp(`binding\\s+HTTP POST ${origin}/echo`));
    assert.match(run.stdout, new RegExp(`200\\s+${origin}/\\.well-known/agents\\.json agents-json`));
  });

  test('without the development flags nothing on loopback is fetched, and the refusal says why', async () => {
    const before = requests.length;
    const run = await agentryAsync(['resolve', `agent://${authority}/echo`, '--scheme', 'http', '--json']);
    assert.equal(run.status, 1);
    assert.equal(requests.length, before, 'no request reached the server');
    assert.match(run.stdout, /--allow-http|--allow-private-network/);
  });

  test('an invalid agent URI is a usage error naming the part', async () => {
    const run = await agentryAsync(['resolve', 'agent://exa mple/x']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /host/);
  });
});

describe('agentry invoke', () => {
  test('calls the operation over the resolved binding and prints the output', async () => {
    const run = await agentryAsync([
      'invoke',
      `agent://${authority}/echo`,
      '-i',
      '{"text": "hello"}',
      ...dev,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { echo: 'hello' });
    assert.deepEqual(requests.at(-1), { method: 'POST', url: '/echo', body: '{"text":"hello"}' });
  });

  test('--json gives the operation, binding, status and attempts', async () => {
    const run = await agentryAsync([
      'invoke',
      `agent://${authority}/echo`,
      '-i',
      '{"text": "x"}',
      '--json',
      ...dev,
    ]);
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as {
      output: unknown;
      status: number;
      operation: string;
      attempts: number;
    };
    assert.deepEqual(out.output, { echo: 'x' });
    assert.equal(out.status, 200);
    assert.equal(out.operation, 'echo');
    assert.equal(out.attempts, 1);
  });

  test('input that fails the schema is refused before anything is sent, with its JSON pointer', async () => {
    const calls = () => requests.filter((r) => r.url === '/echo').length;
    const before = calls();
    const run = await agentryAsync(['invoke', `agent://${authority}/echo`, '-i', '{"text": 42}', ...dev]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /\/text/);
    assert.equal(calls(), before, 'the agent was not called');
  });

  test('an irreversible operation needs --yes when there is no terminal to ask, and sends nothing without it', async () => {
    const refused = await agentryAsync([
      'invoke',
      `agent://${authority}/bookings`,
      '-i',
      '{"booking": "B1"}',
      ...dev,
    ]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--yes/);
    assert.equal(requests.filter((r) => r.url === '/cancel').length, 0);
    const confirmed = await agentryAsync([
      'invoke',
      `agent://${authority}/bookings`,
      '-i',
      '{"booking": "B1"}',
      '--yes',
      ...dev,
    ]);
    assert.equal(confirmed.status, 0, confirmed.stderr);
    assert.deepEqual(JSON.parse(confirmed.stdout), { cancelled: true });
    assert.equal(requests.filter((r) => r.url === '/cancel').length, 1);
  });

  test('input from a file with @', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-invoke-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'input.json'), '{"text": "from a file"}');
    const run = await agentryAsync([
      'invoke',
      `agent://${authority}/echo`,
      '-i',
      `@${join(dir, 'input.json')}`,
      ...dev,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { echo: 'from a file' });
  });

  test('input that is not JSON is a usage error saying where', async () => {
    const run = await agentryAsync(['invoke', `agent://${authority}/echo`, '-i', '{text: 1}', ...dev]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /not JSON.*line 1, column 2/);
  });
});
