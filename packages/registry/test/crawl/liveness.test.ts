/**
 * Liveness probes against real servers: an MCP server (the SDK's, over Streamable HTTP) answering `initialize`,
 * an A2A card, REST endpoints answering HEAD, and endpoints that are down or gone; and the crawler recording the
 * results through the sink.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Agent } from '@agentry/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { probeLiveness } from '../../src/crawl/liveness.js';
import { createCrawler } from '../../src/crawl/scheduler.js';
import { openTestDatabase } from './support/db.js';
import { emittedOne } from './support/documents.js';
import { type Fleet, startFleet } from './support/fleet.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet();
  fleet.route('mcp.test', '/mcp', (request, response) => {
    void serveMcp(request, response);
  });
  fleet.route('rest.test', '/agents/echo/invoke', (request, response) => {
    response.writeHead(request.method === 'HEAD' ? 405 : 400, { allow: 'POST' });
    response.end();
  });
  fleet.route('broken.test', '/agents/echo/invoke', { status: 503, text: 'down' });
});
after(async () => {
  await fleet.close();
});

async function serveMcp(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const server = new McpServer({ name: 'probe-target', version: '1.0.0' });
  server.registerTool('ping', { description: 'Answers pong.' }, async () => ({
    content: [{ type: 'text', text: 'pong' }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  const body =
    chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
  await transport.handleRequest(request, response, body);
}

function agentWith(bindings: Agent['bindings']): Agent {
  return { id: 'echo', name: 'Echo', description: 'Echoes.', operations: [], bindings };
}

describe('probeLiveness', () => {
  test('an MCP server is up when it answers the initialize handshake', async () => {
    const agent = agentWith([
      { kind: 'mcp', server: `${fleet.origin('mcp.test')}/mcp`, transport: 'streamable-http' },
    ]);
    const result = await probeLiveness(agent, { fetcher: fleet.fetcher() });
    assert.equal(result.status, 'up', result.reason);
    assert.equal(result.probe, 'mcp initialize');
    assert.equal(result.lastSeenAt, result.checkedAt);
    assert.ok((result.latencyMs ?? -1) >= 0);
    assert.ok(fleet.requests('mcp.test').includes('POST /mcp'));
  });

  test('an A2A agent is up when its card is served', async () => {
    fleet.route('a2a.test', '/.well-known/agent-card.json', {
      json: emittedOne(fleet.origin('a2a.test'), 'a2a'),
    });
    const agent = agentWith([
      { kind: 'a2a', url: `${fleet.origin('a2a.test')}/a2a`, protocolBinding: 'JSONRPC' },
    ]);
    const result = await probeLiveness(agent, { fetcher: fleet.fetcher() });
    assert.equal(result.status, 'up', result.reason);
    assert.equal(result.probe, 'a2a card');
  });

  test('a REST endpoint is up when it answers HEAD at all (405 included), down on 5xx or when gone', async () => {
    const rest = (name: string): Agent =>
      agentWith([{ kind: 'woa-rest', base: fleet.origin(name), invokePath: '/agents/{agent_id}/invoke' }]);
    const up = await probeLiveness(rest('rest.test'), { fetcher: fleet.fetcher() });
    assert.equal(up.status, 'up', up.reason);
    assert.equal(up.probe, 'http HEAD');
    assert.ok(fleet.requests('rest.test').includes('HEAD /agents/echo/invoke'));
    const down = await probeLiveness(rest('broken.test'), { fetcher: fleet.fetcher() });
    assert.equal(down.status, 'down');
    assert.match(down.reason ?? '', /503/);
    const gone = await probeLiveness(rest('gone.test'), { fetcher: fleet.fetcher() });
    assert.equal(gone.status, 'down');
    assert.match(gone.reason ?? '', /404/);
    const nowhere = await probeLiveness(
      agentWith([{ kind: 'http', url: 'http://nowhere.invalid/x', method: 'POST' }]),
      { fetcher: fleet.fetcher() },
    );
    assert.equal(nowhere.status, 'down');
    assert.match(nowhere.reason ?? '', /ENOTFOUND/);
  });

  test('agents with nothing Agentry probes (stdio, local) are unknown, and nothing is started', async () => {
    const agent = agentWith([
      { kind: 'mcp', server: 'npx some-server', transport: 'stdio' },
      { kind: 'local', name: 'echo' },
    ]);
    const result = await probeLiveness(agent, { fetcher: fleet.fetcher() });
    assert.equal(result.status, 'unknown');
  });
});

test('the crawler probes crawled agents and records liveness through the sink', async () => {
  const database = await openTestDatabase();
  try {
    const name = 'live.test';
    const origin = fleet.origin(name);
    fleet.route(name, '/.well-known/woa.json', {
      json: {
        woa_version: '1',
        agents: [
          {
            id: 'echo',
            name: 'Echo',
            description: 'Echoes.',
            inputs: { type: 'object' },
            outputs: { type: 'object' },
            transports: ['rest'],
          },
        ],
        transports: {
          rest: { base: `https://${name}:${fleet.port}`, invoke_path: '/agents/{agent_id}/invoke' },
        },
      },
    });
    const crawler = createCrawler({
      db: database.db,
      fetcher: fleet.fetcher({ timeoutMs: 1000 }),
      sink: database.sink,
      liveness: { intervalMs: 60_000, timeoutMs: 1000 },
    });
    await crawler.add([origin]);
    await crawler.runOnce();
    const stored = database.sink.agent(origin, 'echo');
    // The document names an https endpoint the fleet does not serve: the probe finds it down, with the reason.
    assert.equal(stored?.liveness?.status, 'down');
    assert.equal(stored?.liveness?.probe, 'http HEAD');
    const detail = await crawler.host(origin);
    assert.equal(detail?.agentStates[0]?.liveness?.status, 'down');
  } finally {
    await database.remove();
  }
});
