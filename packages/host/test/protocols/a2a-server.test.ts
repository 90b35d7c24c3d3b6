/**
 * The official A2A SDK client (`@a2a-js/sdk`) against a host: it reads the host's card, picks the JSON-RPC
 * interface the card names, and sends messages, streams, and gets and cancels tasks, in A2A v1.0 and (through the
 * SDK's v0.3 transport) v0.3. Raw requests check what the SDK does not show: HTTP statuses, error data, versions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AgentCard, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, Client as SdkClient } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { type RunningHost, startHost } from '../support.js';
import { toolsAgent } from './agents.js';

let running: RunningHost;
let secured: RunningHost;
let client: Client;
let card: AgentCard;

before(async () => {
  running = await startHost({ agents: [toolsAgent()] });
  secured = await startHost({
    agents: [toolsAgent()],
    auth: {
      apiKeys: { 'key-1': { clientId: 'client-1' } },
      scopes: { echo: [] },
    },
  });
  client = await new ClientFactory().createFromUrl(running.url);
  card = await client.getAgentCard();
});

after(async () => {
  await running.close();
  await secured.close();
});

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

function request(parts: Part[], skillId?: string, returnImmediately = false) {
  const message: Message = {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: skillId === undefined ? undefined : { skillId },
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: undefined,
  };
}

/** The value of a part the host sends: always one DataPart. */
function dataOf(part: Part | undefined): unknown {
  assert.equal(part?.content?.$case, 'data', 'a DataPart');
  return part.content.value;
}

function isTask(result: Message | Task): result is Task {
  return 'status' in result;
}

const endpoint = (host: RunningHost): string => `${host.url}/agents/tools/a2a`;

async function rpc(
  host: RunningHost,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(endpoint(host), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

test('the card names the JSON-RPC endpoint the host serves, in both versions, with its skills and streaming', () => {
  const interfaces = card.supportedInterfaces.map((entry) => [
    entry.url,
    entry.protocolBinding,
    entry.protocolVersion,
  ]);
  assert.deepEqual(interfaces, [
    [endpoint(running), 'JSONRPC', '1.0'],
    [endpoint(running), 'JSONRPC', '0.3'],
  ]);
  assert.equal(card.capabilities?.streaming, true);
  assert.deepEqual(
    card.skills.map((skill) => skill.id),
    ['echo', 'count', 'shout', 'later', 'wipe', 'refuse'],
  );
  assert.equal(client.protocolVersion, '1.0');
});

test('SendMessage: a DataPart is the input, and the output comes back as an agent message DataPart', async () => {
  const result = await client.sendMessage(request([dataPart({ text: 'hello' })], 'echo'));
  assert.ok(!isTask(result), 'a synchronous operation answers a message');
  assert.equal(result.role, Role.ROLE_AGENT);
  const output = dataOf(result.parts[0]) as { text: string; sessionId: string; transport: string };
  assert.equal(output.text, 'hello');
  assert.equal(output.transport, 'a2a');
  // The message's context is the call's session.
  assert.equal(output.sessionId, result.contextId);
});

test('SendMessage: a TextPart is the input of a single-string operation', async () => {
  const result = await client.sendMessage(request([textPart('quiet')], 'shout'));
  assert.ok(!isTask(result));
  assert.equal(dataOf(result.parts[0]), 'QUIET');
});

test('SendMessage: invalid input is an invalid-params error carrying the problem and its pointer', async () => {
  await assert.rejects(client.sendMessage(request([dataPart({ text: '' })], 'echo')), (error: unknown) => {
    const failure = error as { envelopeCode?: number; data?: unknown };
    assert.equal(failure.envelopeCode, -32602);
    const problem = (failure.data as Array<Record<string, unknown>>).find((entry) => entry['status'] === 400);
    assert.equal(problem?.['code'], 'InvalidInput');
    assert.deepEqual(
      ((problem?.['errors'] ?? []) as Array<{ pointer: string }>).map((entry) => entry.pointer),
      ['/text'],
    );
    return true;
  });
});

test('SendMessage: without a skill, an agent of several operations says which there are', async () => {
  const { body } = await rpc(running, 'SendMessage', {
    message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { text: 'x' } }] },
  });
  const error = body['error'] as { code: number; data: Array<Record<string, unknown>> };
  assert.equal(error.code, -32602);
  const problem = error.data.find((entry) => entry['status'] === 400)!;
  assert.equal(problem['code'], 'SkillRequired');
  assert.deepEqual(problem['available'], ['echo', 'count', 'shout', 'later', 'wipe', 'refuse']);

  const unknown = await rpc(running, 'SendMessage', {
    message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ data: {} }], metadata: { skillId: 'nope' } },
  });
  const notFound = unknown.body['error'] as { code: number; data: Array<Record<string, unknown>> };
  assert.equal(notFound.code, -32602);
  assert.equal(notFound.data.find((entry) => entry['status'] === 404)?.['code'], 'OperationNotFound');
});

test('SendMessage: a failing operation and an unconfirmed destructive one are errors with their problems', async () => {
  const refused = await rpc(running, 'SendMessage', {
    message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ data: {} }], metadata: { skillId: 'refuse' } },
  });
  const error = refused.body['error'] as {
    code: number;
    message: string;
    data: Array<Record<string, unknown>>;
  };
  assert.equal(error.code, -32000);
  assert.equal(error.message, 'Only 2 left.');
  assert.equal(error.data.at(-1)?.['code'], 'out_of_stock');

  const unconfirmed = await rpc(running, 'SendMessage', {
    message: { messageId: 'm4', role: 'ROLE_USER', parts: [{ data: {} }], metadata: { skillId: 'wipe' } },
  });
  assert.equal((unconfirmed.body['error'] as { data: Array<{ status?: number }> }).data.at(-1)?.status, 428);
  const confirmed = await rpc(
    running,
    'SendMessage',
    { message: { messageId: 'm5', role: 'ROLE_USER', parts: [{ data: {} }], metadata: { skillId: 'wipe' } } },
    { 'x-agent-confirmation': 'true' },
  );
  const message = (confirmed.body['result'] as { message: { parts: Array<{ data: unknown }> } }).message;
  assert.deepEqual(message.parts[0]?.data, { wiped: true });
});

test('SendStreamingMessage: a streaming operation streams a task, a status per chunk, the output artifact, completed', async () => {
  const kinds: string[] = [];
  const chunks: unknown[] = [];
  let output: unknown;
  let finalState: TaskState | undefined;
  for await (const event of client.sendMessageStream(request([dataPart({ to: 3 })], 'count'))) {
    const payload = event.payload!;
    kinds.push(payload.$case);
    if (payload.$case === 'statusUpdate') {
      const state = payload.value.status?.state;
      if (state === TaskState.TASK_STATE_WORKING)
        chunks.push(dataOf(payload.value.status?.message?.parts[0]));
      else finalState = state;
    }
    if (payload.$case === 'artifactUpdate') output = dataOf(payload.value.artifact?.parts[0]);
  }
  assert.deepEqual(kinds, [
    'task',
    'statusUpdate',
    'statusUpdate',
    'statusUpdate',
    'artifactUpdate',
    'statusUpdate',
  ]);
  assert.deepEqual(chunks, [1, 2, 3]);
  assert.deepEqual(output, { total: 3 });
  assert.equal(finalState, TaskState.TASK_STATE_COMPLETED);
});

test('SendStreamingMessage: an operation that answers once streams its one message', async () => {
  const events = [];
  for await (const event of client.sendMessageStream(request([dataPart({ text: 'once' })], 'echo'))) {
    events.push(event);
  }
  assert.equal(events.length, 1);
  const payload = events[0]!.payload!;
  assert.equal(payload.$case, 'message');
  assert.equal((dataOf(payload.value.parts[0]) as { text: string }).text, 'once');
});

test('a deferred operation is a task: waited for by default, its output the artifact', async () => {
  const result = await client.sendMessage(request([dataPart({ ms: 0 })], 'later'));
  assert.ok(isTask(result), 'a deferred operation answers a task');
  assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.deepEqual(dataOf(result.artifacts[0]?.parts[0]), { done: true });
  const again = await client.getTask({ tenant: '', id: result.id });
  assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(again.contextId, result.contextId);
  await assert.rejects(client.cancelTask({ tenant: '', id: result.id, metadata: undefined }), {
    name: 'TaskNotCancelableError',
  });
});

test('GetTask and CancelTask follow a task returned immediately, over the host task runtime', async () => {
  const result = await client.sendMessage(request([dataPart({ ms: 60_000 })], 'later', true));
  assert.ok(isTask(result));
  assert.notEqual(result.status?.state, TaskState.TASK_STATE_COMPLETED);
  const polled = await client.getTask({ tenant: '', id: result.id });
  assert.equal(polled.id, result.id);
  assert.equal(polled.status?.state, TaskState.TASK_STATE_WORKING);
  const cancelled = await client.cancelTask({ tenant: '', id: result.id, metadata: undefined });
  assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
  // The same task over the host's HTTP task route.
  const overHttp = (await (await fetch(`${running.url}/tasks/${result.id}`)).json()) as { status: string };
  assert.equal(overHttp.status, 'canceled');
  await assert.rejects(client.getTask({ tenant: '', id: 'no-such-task' }), { name: 'TaskNotFoundError' });
});

test('v0.3: the SDK v0.3 transport sends, streams and gets tasks in v0.3 shapes', async () => {
  const legacy = new SdkClient(new LegacyJsonRpcTransport({ endpoint: endpoint(running) }), card);
  const result = await legacy.sendMessage(request([dataPart({ text: 'old' })], 'echo'));
  assert.ok(!isTask(result));
  assert.equal((dataOf(result.parts[0]) as { text: string }).text, 'old');

  const bare = await legacy.sendMessage(request([textPart('loud')], 'shout'));
  assert.ok(!isTask(bare));
  // v0.3 DataParts hold objects: a bare string travels wrapped and is unwrapped by the SDK.
  assert.equal(dataOf(bare.parts[0]), 'LOUD');

  const chunks: unknown[] = [];
  for await (const event of legacy.sendMessageStream(request([dataPart({ to: 2 })], 'count'))) {
    const payload = event.payload!;
    if (payload.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_WORKING) {
      chunks.push(dataOf(payload.value.status.message?.parts[0]));
    }
  }
  assert.deepEqual(chunks, [1, 2]);

  const task = await legacy.sendMessage(request([dataPart({ ms: 0 })], 'later'));
  assert.ok(isTask(task));
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
  const read = await legacy.getTask({ tenant: '', id: task.id });
  assert.deepEqual(dataOf(read.artifacts[0]?.parts[0]), { done: true });

  const raw = await rpc(running, 'message/send', {
    message: {
      kind: 'message',
      messageId: 'm6',
      role: 'user',
      parts: [{ kind: 'data', data: { text: '' } }],
      metadata: { skillId: 'echo' },
    },
  });
  const error = raw.body['error'] as { code: number; data: Record<string, unknown> };
  assert.equal(error.code, -32602);
  assert.equal(error.data['code'], 'InvalidInput');
});

test('credentials: a call without them is an HTTP 401 with the challenge, and with them it runs', async () => {
  const message = {
    messageId: 'm7',
    role: 'ROLE_USER',
    parts: [{ data: { text: 'x' } }],
    metadata: { skillId: 'echo' },
  };
  const refused = await rpc(secured, 'SendMessage', { message });
  assert.equal(refused.status, 401);
  assert.ok(refused.headers.get('www-authenticate'));
  assert.equal((refused.body['error'] as { data: Array<{ status?: number }> }).data.at(-1)?.status, 401);
  const allowed = await rpc(secured, 'SendMessage', { message }, { 'x-api-key': 'key-1' });
  assert.ok(allowed.body['result']);
});

test('protocol errors: unknown methods, unsupported methods and versions, malformed requests', async () => {
  assert.equal(((await rpc(running, 'DoSomething', {})).body['error'] as { code: number }).code, -32601);
  assert.equal(((await rpc(running, 'ListTasks', {})).body['error'] as { code: number }).code, -32004);
  assert.equal(
    ((await rpc(running, 'CreateTaskPushNotificationConfig', {})).body['error'] as { code: number }).code,
    -32003,
  );
  const version = await rpc(running, 'GetTask', { id: 'x' }, { 'a2a-version': '2.0' });
  assert.equal((version.body['error'] as { code: number }).code, -32009);
  const notJson = await fetch(endpoint(running), { method: 'POST', body: '{oops' });
  assert.equal(((await notJson.json()) as { error: { code: number } }).error.code, -32700);
  const notRpc = await fetch(endpoint(running), { method: 'POST', body: '{"method": 1}' });
  assert.equal(((await notRpc.json()) as { error: { code: number } }).error.code, -32600);
  const get = await fetch(endpoint(running));
  assert.equal(get.status, 405);
  await get.body?.cancel();
  const tooLarge = await fetch(endpoint(running), {
    method: 'POST',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { pad: 'x'.repeat(2 << 20) },
    }),
  });
  assert.equal(tooLarge.status, 413);
  await tooLarge.body?.cancel();
});
