/**
 * Task ids and agent ids come from remote documents and answers; one holding a lone surrogate (legal in JSON text)
 * made encodeURIComponent throw a URIError out of the client. They are encoded with core's safe helper: the lone
 * half becomes U+FFFD, and well-formed ids are encoded as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restTaskUrl } from '../src/invoke/bindings/a2a-rest.js';
import { woaInvokeUrl } from '../src/invoke/bindings/woa-rest.js';
import { pollUrlFor } from '../src/invoke/tasks.js';

test('a task id with a lone surrogate makes a poll URL, not a URIError', () => {
  assert.equal(
    pollUrlFor('/tasks', 'task\ud800-1', 'https://agent.example/invoke'),
    'https://agent.example/tasks/task%EF%BF%BD-1',
  );
  assert.equal(
    restTaskUrl('https://agent.example/a2a', '1.0', '\udc00'),
    'https://agent.example/a2a/tasks/%EF%BF%BD',
  );
  assert.equal(
    pollUrlFor('/tasks/{id}', 'a b', 'https://agent.example/'),
    'https://agent.example/tasks/a%20b',
  );
});

test('an agent id with a lone surrogate makes a WoA invocation URL', () => {
  const binding = {
    kind: 'woa-rest' as const,
    base: 'https://agent.example',
    invokePath: '/agents/{agent_id}/invoke',
  };
  assert.equal(woaInvokeUrl(binding, 'x\ud83d'), 'https://agent.example/agents/x%EF%BF%BD/invoke');
});
