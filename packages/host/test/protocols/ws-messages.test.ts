import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  chunkMessage,
  errorMessage,
  parseCallMessage,
  resultMessage,
  splitLines,
} from '../../src/transports/ws/messages.js';
import { pathMatcher } from '../../src/transports/ws/paths.js';

const id = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.integer());
const name = fc.string({ minLength: 1, maxLength: 20 });
const meta = fc.record(
  {
    sessionId: fc.string(),
    taskId: fc.string(),
    version: fc.string(),
    idempotencyKey: fc.string(),
    delegationChain: fc.string(),
    confirm: fc.boolean(),
  },
  { requiredKeys: [] },
);

test('every well-formed request message reads back as the call it describes', () => {
  fc.assert(
    fc.property(
      id,
      name,
      name,
      fc.jsonValue(),
      fc.boolean(),
      meta,
      (callId, agent, operation, input, stream, extra) => {
        const parsed = parseCallMessage(
          JSON.stringify({ id: callId, agent, operation, input, stream, ...extra }),
        );
        assert.ok(parsed.ok);
        assert.equal(parsed.message.id, JSON.parse(JSON.stringify(callId)));
        assert.equal(parsed.message.agent, agent);
        assert.equal(parsed.message.operation, operation);
        // JSON drops -0's sign; compare as JSON does.
        assert.deepEqual(parsed.message.input, JSON.parse(JSON.stringify(input)));
        assert.equal(parsed.message.stream, stream);
        assert.deepEqual(parsed.message.meta, { ...extra });
      },
    ),
  );
});

test('no text makes the reader throw; what it refuses is a 400 problem', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc.jsonValue().map((value) => JSON.stringify(value)),
      ),
      (text) => {
        const parsed = parseCallMessage(text);
        if (!parsed.ok) {
          assert.equal(parsed.problem.status, 400);
          assert.equal(parsed.problem.code, 'MalformedMessage');
          assert.equal(typeof parsed.problem.detail, 'string');
        }
      },
    ),
  );
});

test('a member of the wrong type is refused with its pointer and the request id kept', () => {
  const notString = fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.string()), fc.boolean());
  const notBoolean = fc.oneof(fc.integer(), fc.constant(null), fc.string());
  const wrongMember = fc.oneof(
    fc.tuple(fc.constantFrom('agent', 'operation'), fc.oneof(notString, fc.constant(''))),
    fc.tuple(
      fc.constantFrom('sessionId', 'taskId', 'version', 'idempotencyKey', 'delegationChain'),
      notString,
    ),
    fc.tuple(fc.constantFrom('stream', 'confirm'), notBoolean),
  );
  fc.assert(
    fc.property(wrongMember, ([key, value]) => {
      const parsed = parseCallMessage(JSON.stringify({ id: 'call-1', agent: 'a', [key]: value }));
      assert.ok(!parsed.ok);
      assert.equal(parsed.id, 'call-1');
      const failures = parsed.problem['errors'] as { pointer: string }[];
      assert.equal(failures[0]?.pointer, `/${key}`);
    }),
  );
});

test('messages without a usable id, or that are not objects, are refused without an id', () => {
  for (const text of ['{}', '{"id": ""}', '{"id": true}', '[1]', '"text"', 'not json', '{"id": {"a": 1}}']) {
    const parsed = parseCallMessage(text);
    assert.ok(!parsed.ok, text);
    assert.equal(parsed.id, null);
  }
});

test('a missing input is null and stream defaults to false', () => {
  const parsed = parseCallMessage('{"id": 7}');
  assert.ok(parsed.ok);
  assert.equal(parsed.message.input, null);
  assert.equal(parsed.message.stream, false);
  assert.equal(parsed.message.agent, undefined);
});

test('frames split into their non-blank lines, CRLF or LF', () => {
  fc.assert(
    fc.property(
      fc.array(fc.jsonValue().map((value) => JSON.stringify(value))),
      fc.boolean(),
      (lines, crlf) => {
        const text = lines.join(crlf ? '\r\n\r\n' : '\n') + '\n';
        assert.deepEqual(
          splitLines(text),
          lines.filter((line) => line.trim() !== ''),
        );
      },
    ),
  );
});

test('answers are one JSON line each, carrying the id', () => {
  fc.assert(
    fc.property(id, fc.jsonValue(), (callId, value) => {
      for (const text of [chunkMessage(callId, value), resultMessage(callId, value)]) {
        assert.ok(text.endsWith('\n'));
        assert.equal(text.indexOf('\n'), text.length - 1);
        assert.equal(JSON.parse(text).id, JSON.parse(JSON.stringify(callId)));
      }
    }),
  );
  const error = JSON.parse(errorMessage(null, { type: 'about:blank', title: 'Bad', status: 400 }));
  assert.deepEqual(error, {
    id: null,
    type: 'error',
    error: { type: 'about:blank', title: 'Bad', status: 400 },
  });
});

test('upgrade paths: /ws names no agent, /agents/{id}/ws names one, under the base path', () => {
  const root = pathMatcher(undefined, 'http://host.test');
  assert.deepEqual(root('/ws'), {});
  assert.deepEqual(root('/agents/echo/ws?x=1'), { agentId: 'echo' });
  assert.deepEqual(root('/agents/a%20b/ws'), { agentId: 'a b' });
  assert.equal(root('/agents/echo/invoke'), undefined);
  assert.equal(root('/mcp'), undefined);
  const prefixed = pathMatcher(undefined, 'http://host.test/api/');
  assert.deepEqual(prefixed('/api/agents/echo/ws'), { agentId: 'echo' });
  assert.equal(prefixed('/agents/echo/ws'), undefined);
  assert.deepEqual(pathMatcher('/socket', 'http://host.test')('/socket'), {});
  assert.deepEqual(pathMatcher(/^\/x\/(\w+)$/, 'http://host.test')('/x/abc'), { agentId: 'abc' });
});
