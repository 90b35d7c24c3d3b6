/**
 * String targets, resolved then invoked, end to end over TLS (a throwaway certificate the fetcher trusts, no
 * allowHttp): an agent:// URI found through the well-known documents, explicit agent+https:// (POST with input, GET
 * without), agent+wss://, agent+unix:// (both spellings), agent+local://name/operation, and agent+matrix://.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { JsonValue } from '@agentry/core';
import { generate } from 'selfsigned';
import { WebSocketServer } from 'ws';
import {
  AgentNotFoundError,
  closeSocketConnections,
  createSecureFetcher,
  invoke,
  registerLocalAgent,
  type SecureFetcher,
  UnsupportedTransportError,
} from '../src/index.js';
import {
  jsonOf,
  rejection,
  sendJson,
  startServer,
  type TestServer,
  tempDirectory,
} from './invoke-support.js';

let server: Server;
let host: string;
let fetcher: SecureFetcher;
let wss: WebSocketServer;
let unixServer: TestServer;
const requests: Array<{ method: string; url: string; body: string }> = [];
const temp = tempDirectory('agentry-targets-');
const socketPath = join(temp.path, 'planner.sock');

before(async () => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  server = createServer({ key: pems.private, cert: pems.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', body });
      const origin = `https://${host}`;
      if (request.url === '/.well-known/woa.json') {
        return sendJson(response, 200, {
          woa_version: '1',
          agents: [
            {
              id: 'summarizer',
              name: 'Summarizer',
              description: 'Summarises text.',
              inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
              outputs: { type: 'object', properties: { summary: { type: 'string' } } },
              transports: ['rest'],
            },
            {
              id: 'keywords',
              name: 'Keywords',
              description: 'Lists key terms.',
              inputs: { type: 'object' },
              outputs: { type: 'object' },
              transports: ['rest'],
            },
          ],
          transports: { rest: { base: origin, invoke_path: '/agents/{agent_id}/invoke' } },
        });
      }
      if (request.url === '/agents/summarizer/invoke') {
        const envelope = JSON.parse(body) as { input: { text: string } };
        return sendJson(response, 200, { summary: `tl;dr ${envelope.input.text}` });
      }
      if (request.url?.startsWith('/echo')) {
        return sendJson(response, 200, { method: request.method ?? '', body: body === '' ? null : body });
      }
      sendJson(
        response,
        404,
        { title: 'Not Found', status: 404 },
        { 'content-type': 'application/problem+json' },
      );
    });
  });
  wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const { id, input } = JSON.parse(String(data)) as { id: string; input: JsonValue };
      socket.send(JSON.stringify({ id, type: 'result', output: { secure: true, input } }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  // HTTPS only (no allowHttp); loopback allowed; the throwaway certificate trusted.
  fetcher = createSecureFetcher({ ca: pems.cert, allowPrivateNetwork: true });
  unixServer = await startServer(
    {
      '*': (request, response) =>
        sendJson(response, 200, { path: request.path, envelope: jsonOf(request) as JsonValue }),
    },
    { socketPath },
  );
});

after(async () => {
  wss.close();
  await fetcher.close();
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
  await unixServer.close();
  await closeSocketConnections();
  temp.remove();
});

describe('agent:// URIs', () => {
  test('found through the well-known documents and called over its WoA REST binding', async () => {
    const result = await invoke(`agent://${host}/summarizer`, { text: 'a very long text' }, { fetcher });
    assert.deepEqual(result.output, { summary: 'tl;dr a very long text' });
    assert.equal(result.binding.kind, 'woa-rest');
    assert.ok(requests.some((request) => request.url === '/.well-known/woa.json'));
  });

  test('an agent the documents do not name (fallback off) is an AgentNotFoundError naming those they do', async () => {
    const error = await rejection(
      invoke(`agent://${host}/nobody`, {}, { fetcher, resolve: { fallback: false } }),
    );
    assert.ok(error instanceof AgentNotFoundError, String(error));
    assert.match(error.message, /names none of the 2 agents .* \(summarizer, keywords\)/);
    assert.match(error.detail ?? '', /\.well-known\/agents\.json/);
  });

  test('with the §6.2 fallback, the URI itself is called over HTTPS, and its 404 is the answer', async () => {
    const error = await rejection(invoke(`agent://${host}/nobody`, { q: 1 }, { fetcher }));
    assert.ok(error instanceof AgentNotFoundError, String(error));
    assert.equal(error.status, 404);
    assert.equal(error.endpoint, `https://${host}/nobody`);
  });
});

describe('explicit transports', () => {
  test('agent+https:// POSTs when there is input', async () => {
    const result = await invoke(`agent+https://${host}/echo?lang=en`, { text: 'hi' }, { fetcher });
    assert.deepEqual(result.output, { method: 'POST', body: '{"text":"hi"}' });
    assert.equal(requests.at(-1)?.url, '/echo?lang=en');
  });

  test('agent+https:// GETs when there is none', async () => {
    const result = await invoke(`agent+https://${host}/echo`, null, { fetcher });
    assert.deepEqual(result.output, { method: 'GET', body: null });
  });

  test('agent+wss:// over TLS', async () => {
    const result = await invoke(`agent+wss://${host}/ws`, { n: 1 }, { fetcher });
    assert.deepEqual(result.output, { secure: true, input: { n: 1 } });
  });

  test('agent+unix:// with the socket in the path: the default request path', async () => {
    const result = await invoke(`agent+unix://${socketPath}`, { n: 2 }, { fetcher, operation: 'plan' });
    assert.deepEqual(result.output, {
      path: '/invoke',
      envelope: { agent: 'planner', operation: 'plan', input: { n: 2 } },
    });
  });

  test('agent+unix:// with the socket as the authority and a request path', async () => {
    const result = await invoke(`agent+unix://${encodeURIComponent(socketPath)}/rpc`, { n: 3 }, { fetcher });
    assert.equal((result.output as { path: string }).path, '/rpc');
  });

  test('agent+local://name/operation calls the registered agent', async () => {
    const unregister = registerLocalAgent('clock', { now: () => ({ iso: '2026-01-01T00:00:00Z' }) });
    try {
      const result = await invoke('agent+local://clock/now', null, { fetcher });
      assert.deepEqual(result.output, { iso: '2026-01-01T00:00:00Z' });
      assert.equal(result.operation, 'now');
    } finally {
      unregister();
    }
  });

  test('agent+matrix:// is reported as a transport Agentry does not speak', async () => {
    const error = await rejection(
      invoke('agent+matrix://matrix.example.org/!room:example.org', {}, { fetcher }),
    );
    assert.ok(error instanceof UnsupportedTransportError, String(error));
    assert.equal(error.transport, 'matrix');
  });
});
