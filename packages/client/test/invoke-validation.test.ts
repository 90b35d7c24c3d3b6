/**
 * Input and output validation against the operation's schemas, with a real server counting what reaches it:
 * strict (throws with a JSON pointer per failure, nothing sent), warn (warnings, the call goes on), off, and
 * schemas that cannot be compiled.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent, JsonValue, Operation } from '@agentry/core';
import { InvalidInputError, InvalidOutputError, invoke } from '../src/index.js';
import { loopbackFetcher, rejection, sendJson, startServer, type TestServer } from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;
let answer: JsonValue = { summary: 'ok' };

before(async () => {
  server = await startServer({ 'POST /summarize': (_request, response) => sendJson(response, 200, answer) });
});

after(async () => {
  await server.close();
  await fetcher.close();
});

const summarize: Operation = {
  name: 'summarize',
  input: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      max_words: { type: 'integer', minimum: 10, maximum: 400 },
    },
    required: ['text'],
    additionalProperties: false,
  },
  output: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
};

function agentWith(operation: Operation = summarize): Agent {
  return {
    id: 'summarizer',
    name: 'Summarizer',
    description: 'Summarises.',
    operations: [operation],
    bindings: [{ kind: 'http', url: `${server.origin}/summarize`, method: 'POST' }],
  };
}

const sent = () => server.hits('POST', '/summarize').length;

describe('input', () => {
  test('strict: every failure with its pointer, and nothing is sent', async () => {
    const before = sent();
    const error = await rejection(
      invoke({ agent: agentWith() }, { max_words: 3, colour: 'red' }, { fetcher }),
    );
    assert.ok(error instanceof InvalidInputError);
    assert.deepEqual(
      error.failures
        .map(({ pointer, keyword }) => ({ pointer, keyword }))
        .sort((a, b) => a.keyword!.localeCompare(b.keyword!)),
      [
        { pointer: '', keyword: 'additionalProperties' },
        { pointer: '/max_words', keyword: 'minimum' },
        { pointer: '', keyword: 'required' },
      ],
    );
    assert.match(error.message, /\(root\): missing required property "text"/);
    assert.match(error.message, /\/max_words: must be >= 10/);
    assert.equal(error.agent, 'summarizer');
    assert.equal(error.operation, 'summarize');
    assert.equal(sent(), before);
  });

  test('warn: warnings with pointers, and the call is made', async () => {
    const before = sent();
    const result = await invoke({ agent: agentWith() }, { text: 42 }, { fetcher, validate: 'warn' });
    assert.deepEqual(
      result.warnings.map(({ code, pointer }) => ({ code, pointer })),
      [{ code: 'input.invalid', pointer: '/text' }],
    );
    assert.equal(sent(), before + 1);
  });

  test('off: no check at all', async () => {
    const result = await invoke({ agent: agentWith() }, { text: 42 }, { fetcher, validate: 'off' });
    assert.deepEqual(result.warnings, []);
  });

  test('a schema that cannot be compiled is reported and the call goes on', async () => {
    const broken: Operation = { name: 'summarize', input: { type: 'no-such-type' } };
    const result = await invoke({ agent: agentWith(broken) }, {}, { fetcher });
    assert.deepEqual(
      result.warnings.map((warning) => warning.code),
      ['input.schema-unusable'],
    );
  });
});

describe('output', () => {
  test('strict: an output off its schema is an InvalidOutputError that still carries the output', async () => {
    answer = { summary: 7 };
    try {
      const error = await rejection(invoke({ agent: agentWith() }, { text: 'x' }, { fetcher }));
      assert.ok(error instanceof InvalidOutputError);
      assert.deepEqual(error.output, { summary: 7 });
      assert.equal(error.pointer, '/summary');
      assert.match(error.message, /\/summary: must be string/);
    } finally {
      answer = { summary: 'ok' };
    }
  });

  test('warn: the output is returned with a warning', async () => {
    answer = {};
    try {
      const result = await invoke({ agent: agentWith() }, { text: 'x' }, { fetcher, validate: 'warn' });
      assert.deepEqual(result.output, {});
      assert.deepEqual(
        result.warnings.map(({ code, pointer }) => ({ code, pointer })),
        [{ code: 'output.invalid', pointer: '' }],
      );
    } finally {
      answer = { summary: 'ok' };
    }
  });
});
