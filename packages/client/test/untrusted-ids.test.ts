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

// A run of slashes that does not end the text made `/\/+$/` retry at every slash of the run: 50,000 took 5 s,
// and a document can carry far more. The bases below would not finish that way; trimmed by a loop, they do.
const SLASHES = '/'.repeat(200_000);

test('a base URL with a long inner run of slashes is trimmed in linear time', { timeout: 60_000 }, () => {
  const base = `https://agent.example${SLASHES}x`;
  const binding = { kind: 'woa-rest' as const, base, invokePath: '/invoke' };
  assert.equal(woaInvokeUrl(binding, 'a'), `${base}/invoke`);
  assert.equal(restTaskUrl(base, '1.0', 't'), `${base}/tasks/t`);
  assert.equal(restTaskUrl(`${base}//`, '1.0', 't'), `${base}/tasks/t`);
  assert.equal(pollUrlFor(`${base}/`, 't', 'https://agent.example/'), `${base}/t`);
});
