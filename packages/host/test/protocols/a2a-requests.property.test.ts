/**
 * The A2A endpoint under arbitrary requests: any body, any JSON-RPC envelope, any message shape. None may crash
 * the host or be answered with a server error (HTTP 5xx, or JSON-RPC's internal error); every answer is a JSON-RPC response (or an HTTP refusal such as
 * 413) that echoes the request id, and the endpoint answers a valid request correctly afterwards.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createHost } from '../../src/index.js';
import { toolsAgent } from './agents.js';

const BASE = 'http://a2a.test';
const host = createHost({ agents: [toolsAgent()], baseUrl: BASE });
const ENDPOINT = `${BASE}/agents/tools/a2a`;
const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'CancelTask',
  'ListTasks',
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'GetExtendedAgentCard',
  'nope',
] as const;
/** Skills that answer at once: arbitrary input must not start the slow or destructive operations of toolsAgent. */
const SKILLS = ['echo', 'unknown-skill'] as const;

async function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return host.fetch(
    new Request(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }),
  );
}

/** Reads a JSON-RPC answer: one JSON object (a stream's first event for a streaming method). */
async function answerOf(response: Response): Promise<Record<string, unknown>> {
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (type.startsWith('text/event-stream')) {
    const data = /^data: ?(.*)$/m.exec(text);
    assert.ok(data, `an event stream with data: ${text.slice(0, 200)}`);
    return JSON.parse(data[1]!) as Record<string, unknown>;
  }
  assert.match(type, /json/, `a JSON answer, got ${type}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function checkRpcAnswer(answer: Record<string, unknown>, id: unknown): void {
  assert.equal(answer['jsonrpc'], '2.0');
  assert.ok('result' in answer !== 'error' in answer, 'exactly one of result and error');
  if ('error' in answer) {
    const error = answer['error'] as { code: unknown; message: unknown };
    assert.ok(Number.isInteger(error.code), 'an integer error code');
    // Internal error: something threw that should have been a refusal of the request.
    assert.notEqual(error.code, -32603, JSON.stringify(answer));
    assert.equal(typeof error.message, 'string');
  }
  if (typeof id === 'string' || typeof id === 'number') assert.deepEqual(answer['id'], id);
}

const part = fc.oneof(
  fc.record({ kind: fc.constant('data'), data: fc.jsonValue() }),
  fc.record({ kind: fc.constant('text'), text: fc.string() }),
  fc.record({ data: fc.jsonValue() }),
  fc.record({ text: fc.string() }),
  fc.record({ kind: fc.constant('file'), file: fc.record({ uri: fc.webUrl() }) }),
  fc.jsonValue(),
);
const message = fc.record(
  {
    messageId: fc.oneof(fc.uuid(), fc.jsonValue()),
    role: fc.constantFrom('user', 'agent', 'ROLE_USER', 1, null),
    kind: fc.constant('message'),
    parts: fc.oneof(fc.array(part, { maxLength: 3 }), fc.jsonValue()),
    metadata: fc.oneof(fc.record({ skillId: fc.constantFrom(...SKILLS) }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const params = fc.oneof(
  fc.record({
    message,
    configuration: fc.oneof(fc.record({ returnImmediately: fc.boolean() }), fc.jsonValue()),
  }),
  fc.record({ id: fc.oneof(fc.string(), fc.jsonValue()) }),
  fc.jsonValue(),
);
const envelope = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.jsonValue()),
    params,
  },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);

test('any body is answered without a server error, as JSON-RPC or an HTTP refusal', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string(),
        fc.jsonValue().map((value) => JSON.stringify(value)),
      ),
      async (body) => {
        const response = await post(body);
        assert.ok(response.status < 500, `status ${response.status}`);
        if (response.status === 200) checkRpcAnswer(await answerOf(response), undefined);
        else await response.body?.cancel();
      },
    ),
    { numRuns: 300 },
  );
});

test('any JSON-RPC envelope and message shape gets a JSON-RPC answer with its id, and valid calls still work', async () => {
  await fc.assert(
    fc.asyncProperty(envelope, fc.constantFrom(undefined, '1.0', '0.3', '9'), async (request, version) => {
      const response = await post(
        JSON.stringify(request),
        version === undefined ? {} : { 'a2a-version': version },
      );
      assert.ok(response.status < 500, `status ${response.status}`);
      if (response.status === 200) checkRpcAnswer(await answerOf(response), request.id);
      else await response.body?.cancel();
    }),
    { numRuns: 400 },
  );
});

// Well-formed sends whose parts and inputs are arbitrary: what reaches the mapping of a message onto an operation.
const sendV03 = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.integer(),
  method: fc.constantFrom('message/send', 'message/stream'),
  params: fc.record({
    message: fc.record({
      kind: fc.constant('message'),
      messageId: fc.uuid(),
      role: fc.constant('user'),
      parts: fc.array(
        fc.oneof(
          fc.record({
            kind: fc.constant('data'),
            data: fc.oneof(fc.record({ text: fc.string() }), fc.jsonValue()),
          }),
          fc.record({ kind: fc.constant('text'), text: fc.string() }),
          fc.record({ kind: fc.constant('file'), file: fc.record({ uri: fc.webUrl() }) }),
        ),
        { maxLength: 3 },
      ),
      metadata: fc.record({ skillId: fc.constantFrom(...SKILLS) }),
    }),
  }),
});
const sendV1 = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.string(),
  method: fc.constantFrom('SendMessage', 'SendStreamingMessage'),
  params: fc.record({
    message: fc.record({
      messageId: fc.uuid(),
      role: fc.constant('ROLE_USER'),
      parts: fc.array(
        fc.oneof(
          fc.record({ data: fc.oneof(fc.record({ text: fc.string() }), fc.jsonValue()) }),
          fc.record({ text: fc.string() }),
        ),
        { maxLength: 3 },
      ),
      metadata: fc.record({ skillId: fc.constantFrom(...SKILLS) }),
    }),
  }),
});

test('well-formed sends with arbitrary parts and inputs: a result or a refusal, never an internal error', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(sendV03, sendV1), async (request) => {
      const response = await post(JSON.stringify(request), {
        'a2a-version': request.method.includes('/') ? '0.3' : '1.0',
      });
      assert.ok(response.status < 500, `status ${response.status}`);
      if (response.status === 200) checkRpcAnswer(await answerOf(response), request.id);
      else await response.body?.cancel();
    }),
    { numRuns: 300 },
  );
  const valid = await post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'after',
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm-1',
          role: 'user',
          parts: [{ kind: 'data', data: { text: 'still here' } }],
          metadata: { skillId: 'echo' },
        },
      },
    }),
  );
  const answer = await answerOf(valid);
  checkRpcAnswer(answer, 'after');
  assert.ok('result' in answer, JSON.stringify(answer));
  assert.match(JSON.stringify(answer['result']), /still here/);
});
