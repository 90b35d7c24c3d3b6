/**
 * A small hostile input must not make a large problem answer (issue #20): a host lists the first 100 failures of
 * an input and counts the rest in `errors_truncated`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_LISTED_FAILURES } from '../src/errors.js';
import { defineAgent } from '../src/index.js';
import { json, type RunningHost, startHost } from './support.js';

let running: RunningHost;

before(async () => {
  const agent = defineAgent({
    id: 'lists',
    name: 'Lists',
    description: 'Takes a list of words.',
    operations: {
      count: {
        description: 'Count the words.',
        input: {
          type: 'object',
          properties: { words: { type: 'array', items: { type: 'string' } } },
          required: ['words'],
        },
        handler: (input) => ({ count: (input as { words: string[] }).words.length }),
      },
    },
  });
  running = await startHost({ agents: [agent] });
});
after(() => running.close());

test('an input with 5,000 wrong items gets the first 100 failures and a count of the rest', async () => {
  const words = Array.from({ length: 5000 }, (_, i) => i);
  const response = await fetch(`${running.url}/agents/lists/operations/count`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ words }),
  });
  assert.equal(response.status, 400);
  const body = await json(response);
  assert.equal((body['errors'] as unknown[]).length, MAX_LISTED_FAILURES);
  assert.equal(body['errors_truncated'], 5000 - MAX_LISTED_FAILURES);
});
