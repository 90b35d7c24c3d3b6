/**
 * Hostile request bodies against a real host on loopback: nesting too deep to walk is a 400 that says where, on
 * every JSON endpoint (the envelope, per-operation endpoints, A2A, MCP); an operation's own catastrophic pattern
 * checks a long value in linear time (a hang would outlast the test's timeout); and a definition whose pattern the
 * linear-time engine cannot run stops with a message that names the pattern and the construct.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AgentDefinitionError, defineAgent } from '../src/index.js';
import { textAgent } from './fixtures/agents.js';
import { json, type RunningHost, startHost } from './support.js';

function patternAgent() {
  return defineAgent({
    id: 'codes',
    name: 'Codes',
    description: 'Checks codes.',
    operations: {
      check: {
        description: 'Check a code.',
        // Exponential under a backtracking engine on "aaaa…!".
        input: {
          type: 'object',
          properties: { code: { type: 'string', pattern: '^(a+)+$' } },
          required: ['code'],
        },
        handler: () => ({ ok: true }),
      },
    },
  });
}

const DEPTH = 3000;
const deepValue = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;

describe('hostile bodies', () => {
  let running: RunningHost;
  before(async () => {
    running = await startHost({ agents: [textAgent(), patternAgent()] });
  });
  after(() => running.close());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  test('a body nested 3,000 deep is a 400 naming the limit and the path, on the envelope and per operation', async () => {
    for (const [path, body] of [
      ['/agents/text/invoke', `{"operation": "echo", "input": {"value": ${deepValue}}}`],
      ['/agents/text/operations/echo', `{"value": ${deepValue}}`],
    ] as const) {
      const response = await post(path, body);
      assert.equal(response.status, 400, path);
      const problem = await json(response);
      assert.equal(problem['code'], 'InvalidJson');
      assert.match(
        String(problem['detail']),
        /^Nesting deeper than 256 levels at \/(input\/)?value\/a\/a\/.*…/,
      );
    }
  });

  test('invalid JSON nested 100,000 deep is a 400 with the line and column', async () => {
    const response = await post('/agents/text/operations/echo', `{"value": ${'['.repeat(100_000)}`);
    assert.equal(response.status, 400);
    assert.match(
      String((await json(response))['detail']),
      /nesting deeper than 256 levels at line 1, column \d+/,
    );
  });

  test('A2A and MCP answer a parse error that says why, not a 500', async () => {
    const rpc = `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": ${deepValue}}`;
    // A2A answers JSON-RPC errors with HTTP 200, as the protocol does.
    const a2a = await post('/agents/text/a2a', rpc);
    assert.equal(a2a.status, 200);
    const a2aAnswer = (await a2a.json()) as { error: { code: number; message: string } };
    assert.equal(a2aAnswer.error.code, -32700);
    assert.match(a2aAnswer.error.message, /Nesting deeper than 256 levels/);
    const mcp = await post('/mcp', rpc, { accept: 'application/json, text/event-stream' });
    assert.equal(mcp.status, 400);
    const answer = (await mcp.json()) as { error: { code: number; message: string } };
    assert.equal(answer.error.code, -32700);
    assert.match(answer.error.message, /Nesting deeper than 256 levels/);
  });

  test("an operation's catastrophic pattern checks a 100,000-character value in linear time", async () => {
    const bad = await post(
      '/agents/codes/operations/check',
      JSON.stringify({ code: `${'a'.repeat(100_000)}!` }),
    );
    assert.equal(bad.status, 400);
    assert.match(String((await json(bad))['detail']), /must match pattern/);
    const good = await post('/agents/codes/operations/check', JSON.stringify({ code: 'a'.repeat(100_000) }));
    assert.equal(good.status, 200);
  });
});

test('a schema pattern the linear-time engine cannot run stops the definition, naming it', () => {
  assert.throws(
    () =>
      defineAgent({
        id: 'look',
        name: 'Look',
        description: 'Looks ahead.',
        operations: {
          run: {
            description: 'Run.',
            input: { type: 'string', pattern: '^(?!admin)\\w+$' },
            handler: () => null,
          },
        },
      }),
    (error: unknown) =>
      error instanceof AgentDefinitionError &&
      error.message.includes('input schema of agent "look" operation "run" cannot be used') &&
      error.message.includes('"^(?!admin)\\\\w+$" uses a negative lookahead'),
  );
});
