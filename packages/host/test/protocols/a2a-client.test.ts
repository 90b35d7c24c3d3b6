/** Agentry's own client calling a host over its `a2a` bindings (A2A JSON-RPC v1.0 and v0.3), as the host describes them. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SecureFetcher } from '@agentry/client';
import { AuthRequiredError, InvalidInputError, invoke, invokeStream, RemoteError } from '@agentry/client';
import type { A2aBinding, Agent } from '@agentry/core';
import { type RunningHost, startHost } from '../support.js';
import { toolsAgent } from './agents.js';

let running: RunningHost;
let secured: RunningHost;

before(async () => {
  running = await startHost({ agents: [toolsAgent()] });
  secured = await startHost({
    agents: [toolsAgent()],
    auth: { apiKeys: { 'key-1': { clientId: 'client-1' } }, scopes: { echo: [] } },
  });
});

after(async () => {
  await running.close();
  await secured.close();
});

/** The hosted agent as its documents describe it, with its A2A binding of `version`. */
function target(host: RunningHost, version: '1.0' | '0.3'): { agent: Agent; binding: A2aBinding } {
  const agent = host.host.runtime.agents()[0]!.agent;
  const binding = agent.bindings.find(
    (candidate): candidate is A2aBinding => candidate.kind === 'a2a' && candidate.protocolVersion === version,
  );
  assert.ok(binding, `the host describes an A2A ${version} binding`);
  return { agent, binding };
}

for (const version of ['1.0', '0.3'] as const) {
  test(`a2a ${version}: invoke answers the output, with the session as the message's context`, async () => {
    const result = await invoke(
      target(running, version),
      { text: 'hello' },
      { operation: 'echo', fetcher: running.fetcher, sessionId: 'session-7' },
    );
    assert.deepEqual(result.output, { text: 'hello', sessionId: 'session-7', transport: 'a2a' });
    assert.equal(result.binding.kind, 'a2a');
    const bare = await invoke(
      target(running, version),
      { text: 'loud' },
      { operation: 'shout', fetcher: running.fetcher },
    );
    assert.equal(bare.output, 'LOUD');
  });

  test(`a2a ${version}: invokeStream yields each chunk, then the result`, async () => {
    const events = [];
    for await (const event of invokeStream(
      target(running, version),
      { to: 3 },
      { operation: 'count', fetcher: running.fetcher },
    )) {
      events.push([event.event, event.data]);
    }
    assert.deepEqual(events, [
      ['chunk', 1],
      ['chunk', 2],
      ['chunk', 3],
      ['result', { total: 3 }],
    ]);
  });

  test(`a2a ${version}: a deferred operation is polled with GetTask to its result`, async () => {
    const result = await invoke(
      target(running, version),
      { ms: 0 },
      { operation: 'later', fetcher: running.fetcher, tasks: { intervalMs: 5 } },
    );
    assert.deepEqual(result.output, { done: true });
    assert.ok(result.taskId);
    const task = (await (await fetch(`${running.url}/tasks/${result.taskId}`)).json()) as { status: string };
    assert.equal(task.status, 'completed');
  });

  test(`a2a ${version}: errors are typed from the problem the host answered`, async () => {
    const at = target(running, version);
    await assert.rejects(
      invoke(at, { text: '' }, { operation: 'echo', fetcher: running.fetcher, validate: 'off' }),
      (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.equal(error.pointer, '/text');
        return true;
      },
    );
    await assert.rejects(
      invoke(at, {}, { operation: 'refuse', fetcher: running.fetcher }),
      (error: unknown) => {
        assert.ok(error instanceof RemoteError);
        assert.equal(error.status, 409);
        assert.equal(error.code, 'out_of_stock');
        return true;
      },
    );
  });
}

test('aborting a deferred call over a2a cancels its task on the host (CancelTask)', async () => {
  const controller = new AbortController();
  const warnings: string[] = [];
  let taskId: string | undefined;
  // The caller gives up as its first GetTask goes out: the task is running on the host by then.
  const fetcher: SecureFetcher = {
    policy: running.fetcher.policy,
    close: () => Promise.resolve(),
    fetch(input, init) {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as RpcRequest) : undefined;
      if (body?.method === 'GetTask' && taskId === undefined) {
        taskId = body.params.id;
        controller.abort(new Error('Stop.'));
      }
      return running.fetcher.fetch(input, init);
    },
  };
  await assert.rejects(
    invoke(
      target(running, '1.0'),
      { ms: 60_000 },
      {
        operation: 'later',
        fetcher,
        signal: controller.signal,
        tasks: { intervalMs: 5 },
        onWarning: (warning) => warnings.push(warning.code),
      },
    ),
    /Stop\./,
  );
  assert.ok(taskId);
  const task = (await (await fetch(`${running.url}/tasks/${taskId}`)).json()) as { status: string };
  assert.equal(task.status, 'canceled');
  assert.deepEqual(warnings, []);
});

interface RpcRequest {
  method: string;
  params: { id?: string };
}

test('a2a: credentials are sent as on every HTTP binding, and their absence is AuthRequiredError', async () => {
  await assert.rejects(
    invoke(target(secured, '1.0'), { text: 'x' }, { operation: 'echo', fetcher: secured.fetcher }),
    AuthRequiredError,
  );
  const result = await invoke(
    target(secured, '1.0'),
    { text: 'x' },
    { operation: 'echo', fetcher: secured.fetcher, auth: { apiKey: 'key-1' } },
  );
  assert.equal((result.output as { text: string }).text, 'x');
});
