/**
 * Explicit `agent+<transport>://` URIs (agent:// §6.1): the URI is the binding; no document is asked for.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SecureFetcher } from '../src/fetch/types.js';
import { resolve } from '../src/resolve/index.js';
import { loopbackFetcher } from './resolve-support.js';

/** A real fetcher that notes every URL it is asked for. */
function countingFetcher(): { fetcher: SecureFetcher; calls: string[] } {
  const inner = loopbackFetcher();
  const calls: string[] = [];
  const fetcher: SecureFetcher = {
    policy: inner.policy,
    fetch(url, init) {
      calls.push(String(url));
      return inner.fetch(url, init);
    },
    close: () => inner.close(),
  };
  return { fetcher, calls };
}

describe('explicit transports', () => {
  const cases = [
    {
      target: 'agent+https://example.com/assistants/chatgpt?query=hello',
      binding: { kind: 'http', url: 'https://example.com/assistants/chatgpt?query=hello', method: 'POST' },
      methodByPayload: true,
      id: 'assistants',
    },
    {
      target: 'agent+https://[2001:db8::1]:8443',
      binding: { kind: 'http', url: 'https://[2001:db8::1]:8443/', method: 'POST' },
      methodByPayload: true,
      id: '2001:db8::1',
    },
    {
      target: 'agent+wss://stream.example.com/live?topic=a',
      binding: { kind: 'wss', url: 'wss://stream.example.com/live?topic=a' },
      id: 'live',
    },
    {
      target: 'agent+unix:///run/agents/planner.sock/gen-iti?city=Oslo',
      binding: { kind: 'unix', socketPath: '/run/agents/planner.sock', path: '/gen-iti?city=Oslo' },
      id: 'planner',
    },
    {
      target: 'agent+unix://%2Frun%2Fagents%2Fplanner.sock/gen-iti',
      binding: { kind: 'unix', socketPath: '/run/agents/planner.sock', path: '/gen-iti' },
      id: 'planner',
    },
    {
      target: 'agent+unix:///run/agents/planner.sock',
      binding: { kind: 'unix', socketPath: '/run/agents/planner.sock' },
      id: 'planner',
    },
    {
      target: 'agent+local://examplelocalagent',
      binding: { kind: 'local', name: 'examplelocalagent' },
      id: 'examplelocalagent',
    },
    {
      target: 'agent+local://Desktop/open-file',
      binding: { kind: 'local', name: 'desktop' },
      id: 'desktop',
      operation: 'open-file',
    },
  ] as const;

  for (const expected of cases) {
    test(expected.target, async () => {
      const { fetcher, calls } = countingFetcher();
      const resolution = await resolve(expected.target, { fetcher });
      assert.deepEqual(calls, [], 'no document is asked for');
      assert.deepEqual(resolution.documents, []);
      assert.deepEqual(resolution.binding, expected.binding);
      assert.equal(resolution.methodByPayload, 'methodByPayload' in expected ? true : undefined);
      assert.equal(resolution.source, 'transport');
      assert.equal(resolution.agent?.id, expected.id);
      assert.deepEqual(resolution.agent?.bindings, [expected.binding]);
      assert.equal(resolution.operation, 'operation' in expected ? expected.operation : undefined);
      assert.equal(resolution.uri?.transport, expected.target.match(/^agent\+(\w+)/)?.[1]);
      assert.deepEqual(resolution.issues, []);
    });
  }

  test('agent+matrix:// is recognised but not spoken: an issue, an `other` binding, nothing chosen', async () => {
    const resolution = await resolve('agent+matrix://matrix.example.org/rooms/planning');
    assert.equal(resolution.binding, undefined);
    assert.deepEqual(resolution.agent?.bindings, [
      {
        kind: 'other',
        protocol: 'matrix',
        config: { uri: 'agent+matrix://matrix.example.org/rooms/planning' },
      },
    ]);
    const [issue] = resolution.issues;
    assert.equal(issue?.severity, 'error');
    assert.equal(issue?.code, 'resolve.transport.unsupported');
    assert.match(issue?.message ?? '', /Matrix/);
  });

  test('a protocol token the draft does not define parses, and is reported as unsupported', async () => {
    const resolution = await resolve('agent+grpc://rpc.example.com/svc');
    assert.equal(resolution.uri?.supported, false);
    assert.equal(resolution.binding, undefined);
    assert.equal(resolution.agent?.bindings[0]?.kind, 'other');
    assert.match(resolution.issues[0]?.message ?? '', /"grpc", which agent:\/\/ §6\.1 does not define/);
  });

  test('userinfo is not carried into the binding, and a warning says so', async () => {
    const resolution = await resolve('agent+https://user:secret@example.com/x');
    assert.deepEqual(resolution.binding, { kind: 'http', url: 'https://example.com/x', method: 'POST' });
    assert.equal(resolution.issues[0]?.code, 'resolve.userinfo.ignored');
  });

  test('?version= and options.version set the version (options first)', async () => {
    assert.equal((await resolve('agent+https://example.com/x?version=2.0.0')).version, '2.0.0');
    assert.equal(
      (await resolve('agent+https://example.com/x?version=2.0.0', { version: '3.1.0' })).version,
      '3.1.0',
    );
    assert.equal((await resolve('agent+local://a')).version, undefined);
  });
});
