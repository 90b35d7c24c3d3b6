/**
 * The parts together over A2A: an agent hosted with `createHost` is registered with a registry by its A2A card
 * alone, and the registry's gateway calls it. The card names only the A2A JSON-RPC endpoint, so the call can only
 * go through the client's A2A binding to the host's A2A server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { createHost, defineAgent } from '@agentry/host';
import { type NodeServer, serveNode } from '@agentry/host/node';
import { createRegistry, type Registry } from '@agentry/registry';
import pino from 'pino';
import { listeningServer } from '../src/io/server.js';

const ADMIN = 'a2a-gateway-admin-token-0123456789';

const shouter = defineAgent({
  id: 'shouter',
  name: 'Shouter',
  description: 'Says any text back in capitals.',
  operations: {
    shout: {
      description: 'The text in capitals.',
      input: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1 } },
        required: ['text'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { loud: { type: 'string' } }, required: ['loud'] },
      safe: true,
      handler: (input) => ({ loud: (input as { text: string }).text.toUpperCase() }),
    },
  },
});

let served: NodeServer;
let hostUrl: string;
const hostPaths: string[] = [];
let registry: Registry;
let dir: string;

before(async () => {
  const { server, url } = await listeningServer(0, '127.0.0.1');
  hostUrl = url;
  server.on('request', (request) => hostPaths.push(`${request.method} ${request.url}`));
  served = await serveNode(
    createHost({ agents: [shouter], baseUrl: url, logger: pino({ level: 'silent' }) }),
    {
      server,
    },
  );
  dir = mkdtempSync(join(tmpdir(), 'agentry-a2a-gateway-'));
  registry = await createRegistry({
    databasePath: join(dir, 'registry.db'),
    embeddings: 'none',
    adminToken: ADMIN,
    logger: pino({ level: 'silent' }),
    fetcher: createSecureFetcher({ allowHttp: true, allowAddresses: [`127.0.0.1:${new URL(url).port}`] }),
  });
});

after(async () => {
  await registry.close();
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  return registry.fetch(
    new Request(`http://registry.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

test('an agent registered by its A2A card is invoked through the gateway over A2A JSON-RPC', async () => {
  const card = (await (await fetch(`${hostUrl}/.well-known/agent-card.json`)).json()) as Record<
    string,
    unknown
  >;
  const registered = await call('POST', '/agents', card);
  assert.equal(registered.status, 201, await registered.clone().text());
  const { id } = (await registered.json()) as { id: string };

  hostPaths.length = 0;
  const invoked = await call('POST', `/agents/${encodeURIComponent(id)}/invoke`, {
    operation: 'shout',
    input: { text: 'quiet please' },
  });
  assert.equal(invoked.status, 200, await invoked.clone().text());
  assert.deepEqual(await invoked.json(), { loud: 'QUIET PLEASE' });
  assert.deepEqual(hostPaths, ['POST /agents/shouter/a2a']);

  // Invalid input reaches the host over A2A too (the card carries no input schema for the client to check first), and
  // the host's refusal comes back as the gateway's problem, with the pointer of the bad input.
  hostPaths.length = 0;
  const refused = await call('POST', `/agents/${encodeURIComponent(id)}/invoke`, {
    operation: 'shout',
    input: { text: '' },
  });
  assert.equal(refused.status, 400, await refused.clone().text());
  assert.match(refused.headers.get('content-type') ?? '', /problem\+json/);
  const problem = (await refused.json()) as { pointer?: string; detail?: string };
  assert.equal(problem.pointer, '/input/text');
  assert.equal(problem.detail, '/text: must NOT have fewer than 1 characters');
  assert.deepEqual(hostPaths, ['POST /agents/shouter/a2a']);
});
