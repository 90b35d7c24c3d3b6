import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Agent, getCodec } from '@agentry/core';
import { headersWithMeta } from '../../src/runtime/call-meta.js';
import { findTool, hostedTools } from '../../src/transports/mcp/tools.js';

function agent(id: string, operations: Agent['operations']): Agent {
  return { id, name: id, description: `${id} agent`, operations, bindings: [] };
}

const echo = agent('echo', [
  {
    name: 'say',
    title: 'Say',
    input: { type: 'object', properties: { text: { type: 'string' } } },
    safe: true,
  },
  { name: 'count', input: { type: 'integer' }, output: { type: 'array' }, idempotent: true },
]);
const admin = agent('admin', [{ name: 'wipe', sensitivity: 'irreversible' }]);
const other = agent('other-echo', [{ name: 'say' }]);

test('tools are what core mcp codec writes for the operations, in order', () => {
  const tools = hostedTools([echo]);
  const written = getCodec('mcp').emit([echo]).document as { tools: unknown[] };
  assert.deepEqual(
    tools.map((tool) => tool.definition),
    written.tools,
  );
  assert.deepEqual(
    tools.map((tool) => [tool.name, tool.agentId, tool.operation]),
    [
      ['say', 'echo', 'say'],
      ['count', 'echo', 'count'],
    ],
  );
  // A non-object input schema is wrapped as the codec does; a non-object output schema is not written.
  assert.deepEqual(tools[1]?.definition['inputSchema'], { type: 'object' });
  assert.equal(tools[1]?.definition['outputSchema'], undefined);
  assert.deepEqual(tools[0]?.definition['annotations'], { readOnlyHint: true });
  assert.deepEqual(tools[1]?.definition['annotations'], { idempotentHint: true });
});

test('unique names across agents stay plain; a collision qualifies every tool with its agent id', () => {
  assert.deepEqual(
    hostedTools([echo, admin]).map((tool) => tool.name),
    ['say', 'count', 'wipe'],
  );
  const qualified = hostedTools([echo, admin, other]);
  assert.deepEqual(
    qualified.map((tool) => tool.name),
    ['echo.say', 'echo.count', 'admin.wipe', 'other-echo.say'],
  );
  assert.equal(qualified[3]?.definition['name'], 'other-echo.say');
  assert.deepEqual(qualified[2]?.definition['annotations'], { destructiveHint: true });
});

test('a call finds listed names first, and <agentId>.<operation> always', () => {
  const agents = [echo, admin];
  const tools = hostedTools(agents);
  assert.equal(findTool(tools, agents, 'wipe')?.agentId, 'admin');
  assert.equal(findTool(tools, agents, 'echo.count')?.operation, 'count');
  assert.equal(findTool(tools, agents, 'admin.say'), undefined);
  assert.equal(findTool(tools, agents, 'nothing'), undefined);
});

test('_meta fills in the headers the HTTP request did not send', () => {
  const headers = headersWithMeta(new Headers({ 'x-session-id': 'from-header', authorization: 'Bearer t' }), {
    sessionId: 'from-meta',
    taskId: 't-1',
    confirm: true,
    idempotencyKey: 'k-1',
    version: '2.0.0',
    delegationChain: 'a.b.c',
    progressToken: 3,
  });
  assert.equal(headers.get('x-session-id'), 'from-header');
  assert.equal(headers.get('x-task-id'), 't-1');
  assert.equal(headers.get('x-agent-confirmation'), 'true');
  assert.equal(headers.get('idempotency-key'), 'k-1');
  assert.equal(headers.get('x-agent-version'), '2.0.0');
  assert.equal(headers.get('x-delegation-chain'), 'a.b.c');
  assert.equal(headers.get('authorization'), 'Bearer t');
  // Only `true` confirms, values that are not strings are ignored, and a value no header can hold is dropped.
  const odd = headersWithMeta(new Headers(), { confirm: 'yes', sessionId: 5, taskId: 'bad\nvalue' });
  assert.equal(odd.get('x-agent-confirmation'), null);
  assert.equal(odd.get('x-session-id'), null);
  assert.equal(odd.get('x-task-id'), null);
});
