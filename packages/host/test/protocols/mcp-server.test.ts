/** The host's MCP server, driven by the MCP SDK's own client over Streamable HTTP. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, type McpHandler } from '../../src/transports/mcp/server.js';
import { type RunningHost, startHost } from '../support.js';
import { otherAgent, toolsAgent } from './agents.js';

let single: RunningHost;
let pair: RunningHost;
let guarded: RunningHost;

before(async () => {
  single = await startHost({ agents: [toolsAgent()] });
  pair = await startHost({ agents: [toolsAgent(), otherAgent()] });
  // Only echo needs credentials: the endpoint as a whole does not.
  guarded = await startHost({
    agents: [toolsAgent()],
    auth: { apiKeys: { 'key-1': { clientId: 'client-1' } }, scopes: { echo: [] } },
  });
});

after(async () => {
  await single.close();
  await pair.close();
  await guarded.close();
});

/** An SDK client talking to `handler` in process, through the transport's `fetch` hook. */
async function connectTo(handler: McpHandler): Promise<Client> {
  const client = new Client({ name: 'protocol-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) => handler(new Request(url, init)),
    }),
  );
  return client;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'protocol-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function withClient<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The JSON a result's single text item holds. */
function problemIn(result: unknown): Record<string, unknown> {
  const [item] = (result as { content: { type: string; text: string }[] }).content;
  assert.equal(item?.type, 'text');
  return JSON.parse(item.text) as Record<string, unknown>;
}

test('initialize names the hosted agent; tools/list shows every operation with schemas and annotations', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    assert.deepEqual(client.getServerVersion(), { name: 'tools', title: 'Protocol tools', version: '2.1.0' });
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['echo', 'count', 'shout', 'later', 'wipe', 'refuse'],
    );
    const echo = tools.find((tool) => tool.name === 'echo')!;
    assert.equal(echo.title, 'Echo');
    assert.equal(echo.description, 'Echo the text back, with what the call carried.');
    assert.deepEqual(echo.inputSchema.required, ['text']);
    assert.equal(echo.outputSchema?.type, 'object');
    assert.deepEqual(echo.annotations, { readOnlyHint: true, idempotentHint: true });
    const wipe = tools.find((tool) => tool.name === 'wipe')!;
    assert.deepEqual(wipe.annotations, { destructiveHint: true });
    // A bare-string output has no MCP output schema.
    assert.equal(tools.find((tool) => tool.name === 'shout')!.outputSchema, undefined);
  });
});

test('a valid call answers structuredContent and the same JSON as text', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    const result = await client.callTool({
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { sessionId: 's-42' },
    });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { text: 'hi', sessionId: 's-42', transport: 'mcp' });
    assert.deepEqual(problemIn(result), result.structuredContent);
    // A bare string is text only: structured results are objects.
    const shout = await client.callTool({ name: 'shout', arguments: { text: 'abc' } });
    assert.equal(shout.structuredContent, undefined);
    assert.deepEqual(shout.content, [{ type: 'text', text: '"ABC"' }]);
  });
});

test('invalid arguments are a tool error carrying the 400 problem and its pointer', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 5 } });
    assert.equal(result.isError, true);
    const problem = problemIn(result);
    assert.equal(problem['status'], 400);
    assert.equal(problem['code'], 'InvalidInput');
    assert.deepEqual(
      (problem['errors'] as { pointer: string }[]).map((failure) => failure.pointer),
      ['/text'],
    );
    // echo declares an output schema, which SDK clients would check an error's structuredContent against.
    assert.equal(result.structuredContent, undefined);
    const refused = await client.callTool({ name: 'refuse', arguments: {} });
    assert.equal(refused.isError, true);
    assert.equal((refused.structuredContent as { code?: string }).code, 'out_of_stock');
    assert.equal((refused.structuredContent as { status?: number }).status, 409);
  });
});

test('an unknown tool is a JSON-RPC -32602 error whose data lists the tools', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    const error = await client.callTool({ name: 'nope', arguments: {} }).then(
      () => assert.fail('expected an error'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof McpError);
    assert.equal(error.code, -32602);
    assert.match(error.message, /Unknown tool: nope/);
    const data = error.data as { code: string; available: string[] };
    assert.equal(data.code, 'OperationNotFound');
    assert.ok(data.available.includes('echo'));
  });
});

test('a streaming operation sends a progress notification per chunk, then its result', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    assert.deepEqual(result.structuredContent, { total: 3 });
    assert.deepEqual(progress, [
      { progress: 1, message: '1' },
      { progress: 2, message: '2' },
      { progress: 3, message: '3' },
    ]);
    // Without a progress token, the same operation answers its final value alone.
    const quiet = await client.callTool({ name: 'count', arguments: { to: 2 } });
    assert.deepEqual(quiet.structuredContent, { total: 2 });
  });
});

test('a deferred operation is waited for, and answers its result', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    const result = await client.callTool({ name: 'later', arguments: { ms: 30 } });
    assert.deepEqual(result.structuredContent, { done: true });
  });
});

test('a destructive operation needs confirm in _meta (or the header), else a 428 tool error', async () => {
  await withClient(`${single.url}/mcp`, async (client) => {
    const refused = await client.callTool({ name: 'wipe', arguments: {} });
    assert.equal(refused.isError, true);
    assert.equal((refused.structuredContent as { status: number }).status, 428);
    const confirmed = await client.callTool({ name: 'wipe', arguments: {}, _meta: { confirm: true } });
    assert.deepEqual(confirmed.structuredContent, { wiped: true });
  });
});

test('colliding operation names are qualified with the agent id; an agent endpoint keeps plain names', async () => {
  await withClient(`${pair.url}/mcp`, async (client) => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'tools.echo'));
    assert.ok(tools.some((tool) => tool.name === 'other.echo'));
    assert.ok(!tools.some((tool) => tool.name === 'echo'));
    const result = await client.callTool({ name: 'other.echo', arguments: { text: 'x' } });
    assert.deepEqual(result.structuredContent, { other: 'x' });
  });
  await withClient(`${pair.url}/agents/other/mcp`, async (client) => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['echo'],
    );
    assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'y' } })).structuredContent, {
      other: 'y',
    });
  });
});

test('the endpoint answers POST only, bounds bodies and refuses what is not JSON', async () => {
  const get = await fetch(`${single.url}/mcp`, { headers: { accept: 'text/event-stream' } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  await get.body?.cancel();
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const notJson = await fetch(`${single.url}/mcp`, { method: 'POST', headers, body: '{nope' });
  assert.equal(notJson.status, 400);
  assert.equal(((await notJson.json()) as { error: { code: number } }).error.code, -32700);
  const huge = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'ping',
    params: { pad: 'x'.repeat(5 * 1024 * 1024) },
  });
  // Through the host's web handler: the bound is the MCP handler's, whatever server adapter carries the request.
  const tooLarge = await single.host.fetch(
    new Request(`${single.url}/mcp`, { method: 'POST', headers, body: huge }),
  );
  assert.equal(tooLarge.status, 413);
  const chunked = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let sent = 0; sent < 5; sent++)
        controller.enqueue(new TextEncoder().encode(huge.slice(0, 1024 * 1024)));
      controller.close();
    },
  });
  const undeclared = await single.host.fetch(
    new Request(`${single.url}/mcp`, {
      method: 'POST',
      headers,
      body: chunked,
      duplex: 'half',
    } as RequestInit),
  );
  assert.equal(undeclared.status, 413);
  await tooLarge.body?.cancel();
});

test('a deferred operation that outlasts the bound is a 504 tool error naming its task, which goes on', async () => {
  const handler = createMcpHandler(single.host.runtime, { tasks: { timeoutMs: 20 } });
  const client = await connectTo(handler);
  try {
    const result = await client.callTool({ name: 'later', arguments: { ms: 60_000 } });
    assert.equal(result.isError, true);
    const problem = result.structuredContent as {
      status: number;
      code: string;
      taskId: string;
      location: string;
    };
    assert.equal(problem.status, 504);
    assert.equal(problem.code, 'TaskPending');
    const poll = await single.host.fetch(new Request(`${single.url}${problem.location}`));
    assert.equal(poll.status, 200);
    assert.equal(((await poll.json()) as { status: string }).status, 'running');
  } finally {
    await client.close();
  }
});

test('where only some tools need credentials, a refused call is a tool error, not an HTTP 401', async () => {
  await withClient(`${guarded.url}/mcp`, async (client) => {
    const refused = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    assert.equal(refused.isError, true);
    assert.equal(problemIn(refused)['status'], 401);
    const open = await client.callTool({ name: 'shout', arguments: { text: 'x' } });
    assert.equal(open.isError, undefined);
  });
});
