import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import type { Agent } from '@agentry/core';
import { createGateway, type Gateway, type GatewayResult } from '../../src/gateway/index.js';
import { recordOf } from '../resolve/records.js';
import { type AgentServer, invokePath, sendJson, startAgentServer, summarizerAgent } from './agent-server.js';

const loopback = () => createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });

async function bodyOf(result: GatewayResult): Promise<Record<string, unknown>> {
  return (await result.response.json()) as Record<string, unknown>;
}

async function expectProblem(
  result: GatewayResult,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  assert.equal(result.ok, false);
  assert.equal(
    result.response.status,
    status,
    `status of ${JSON.stringify(await result.response.clone().text())}`,
  );
  assert.equal(result.response.headers.get('content-type'), 'application/problem+json');
  const problem = await bodyOf(result);
  assert.equal(problem['status'], status);
  assert.equal(problem['code'], code);
  assert.deepEqual(problem['error'], { code, message: problem['detail'] });
  assert.equal(typeof problem['type'], 'string');
  return problem;
}

describe('gateway', () => {
  let server: AgentServer;
  let gateway: Gateway;
  const fetcher = loopback();

  before(async () => {
    server = await startAgentServer();
    gateway = createGateway({ fetcher, timeoutMs: 2_000 });
  });
  after(async () => {
    await gateway.close();
    await fetcher.close();
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.routes.clear();
  });

  const summarize = (
    status = 200,
    body: unknown = { summary: 'short' },
    headers: Record<string, string> = {},
  ) =>
    server.routes.set(invokePath('summarizer'), (_request, response) =>
      sendJson(response, status, body, headers),
    );

  it('invokes the agent with the envelope and answers its output', async () => {
    summarize(200, { summary: 'short' }, { 'x-task-id': 'task-9' });
    const record = recordOf(summarizerAgent(server.origin));
    const result = await gateway.invoke(
      record,
      { operation: 'summarize', input: { text: 'a long text' } },
      new Headers(),
    );
    assert.equal(result.ok, true);
    assert.equal(result.response.status, 200);
    assert.equal(result.operation, 'summarize');
    assert.ok(result.latencyMs >= 0);
    assert.equal(result.response.headers.get('x-agent-operation'), 'summarize');
    assert.equal(result.response.headers.get('x-task-id'), 'task-9');
    assert.deepEqual(await bodyOf(result), { summary: 'short' });
    assert.equal(server.requests.length, 1);
    assert.deepEqual(server.requests[0]!.body, {
      agent: 'summarizer',
      operation: 'summarize',
      input: { text: 'a long text' },
    });
  });

  it("relays a streaming agent's events as they arrive to a caller that takes text/event-stream", async () => {
    let finish = () => {};
    const last = new Promise<void>((resolve) => {
      finish = resolve;
    });
    server.routes.set(invokePath('summarizer'), (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: chunk\ndata: {"partial":"sho"}\n\n');
      // The rest waits until the caller has read the first event: it is relayed before the agent has finished.
      void last.then(() => {
        response.write('event: chunk\ndata: {"partial":"rt"}\n\n');
        response.end('event: result\ndata: {"summary":"short"}\n\n');
      });
    });
    const record = recordOf(summarizerAgent(server.origin));
    const call = { operation: 'summarize', input: { text: 'a long text' } };
    const result = await gateway.invoke(record, call, new Headers({ accept: 'text/event-stream' }));
    assert.equal(result.ok, true);
    assert.equal(result.response.headers.get('content-type'), 'text/event-stream');
    const reader = result.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    assert.equal(text, 'event: chunk\ndata: {"partial":"sho"}\n\n');
    finish();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += read.value;
    assert.equal(
      text,
      'event: chunk\ndata: {"partial":"sho"}\n\nevent: chunk\ndata: {"partial":"rt"}\n\nevent: result\ndata: {"summary":"short"}\n\n',
    );
    // The stream completed: a success, timed to its end.
    const ended = await result.ended!;
    assert.equal(ended.ok, true);
    assert.equal(ended.failure, undefined);
    assert.ok(ended.latencyMs >= result.latencyMs);

    // An agent that answers once gives that answer as JSON, even to a caller that takes a stream; one call.
    summarize(200, { summary: 'once' });
    const once = await gateway.invoke(
      record,
      call,
      new Headers({ accept: 'application/json, text/event-stream' }),
    );
    assert.equal(once.response.headers.get('content-type'), 'application/json');
    assert.equal(once.response.headers.get('x-agent-operation'), 'summarize');
    assert.deepEqual(await bodyOf(once), { summary: 'once' });
    assert.equal(server.requests.length, 2);
  });

  describe('a stream that fails after its first event counts as a failure of the agent', () => {
    const record = () => recordOf(summarizerAgent(server.origin));
    const call = { operation: 'summarize', input: { text: 'a long text' } };

    /** The agent sends its first chunk, then `fail` once the caller has read it. */
    const failingAfterFirst = (fail: (response: import('node:http').ServerResponse) => void) => {
      let afterFirst = () => {};
      const read = new Promise<void>((resolve) => {
        afterFirst = resolve;
      });
      server.routes.set(invokePath('summarizer'), (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('event: chunk\ndata: {"partial":"sho"}\n\n');
        void read.then(() => fail(response));
      });
      return afterFirst;
    };

    /** Reads the relayed stream to its end, letting the agent go on once the first event has arrived. */
    const readAll = async (result: GatewayResult, afterFirst: () => void): Promise<string> => {
      assert.equal(result.ok, true, 'it started well');
      assert.equal(result.response.headers.get('content-type'), 'text/event-stream');
      const reader = result.response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
      afterFirst();
      for (let read = await reader.read(); !read.done; read = await reader.read()) text += read.value;
      return text;
    };

    it('when the agent breaks the connection off mid-way', async () => {
      const afterFirst = failingAfterFirst((response) => response.destroy());
      const result = await gateway.invoke(record(), call, new Headers({ accept: 'text/event-stream' }));
      const text = await readAll(result, afterFirst);
      assert.match(text, /^event: chunk\n[\s\S]*\nevent: error\ndata: \{.*"status":502/);
      const ended = await result.ended!;
      assert.equal(ended.ok, false);
      assert.equal(ended.failure, 'agent');
      assert.ok(ended.latencyMs >= result.latencyMs);
    });

    it('when the agent ends it with an error event', async () => {
      const afterFirst = failingAfterFirst((response) =>
        response.end(
          'event: error\ndata: {"error":{"code":"InternalError","message":"ran out of words"}}\n\n',
        ),
      );
      const result = await gateway.invoke(record(), call, new Headers({ accept: 'text/event-stream' }));
      const text = await readAll(result, afterFirst);
      assert.match(text, /\nevent: error\ndata: \{.*"status":502/);
      const ended = await result.ended!;
      assert.equal(ended.ok, false);
      assert.equal(ended.failure, 'agent');
    });

    it("but not when the caller goes away mid-way: that is not the agent's failure", async () => {
      failingAfterFirst((response) => response.end('event: result\ndata: {"summary":"short"}\n\n'));
      const result = await gateway.invoke(record(), call, new Headers({ accept: 'text/event-stream' }));
      const reader = result.response.body!.getReader();
      await reader.read();
      await reader.cancel();
      const ended = await result.ended!;
      assert.equal(ended.ok, false);
      assert.equal(ended.failure, 'gateway');
    });
  });

  it('tells a caller that takes text/event-stream of a deferred task while it waits, then its result', async () => {
    server.routes.set(invokePath('summarizer'), (_request, response) =>
      sendJson(
        response,
        202,
        { taskId: 't1', status: 'working' },
        { location: `${server.origin}/tasks/t1`, 'retry-after': '0' },
      ),
    );
    let polls = 0;
    server.routes.set('/tasks/t1', (_request, response) => {
      polls++;
      if (polls === 1) sendJson(response, 202, { status: 'working' }, { 'retry-after': '0' });
      else sendJson(response, 200, { status: 'completed', result: { summary: 'later' } });
    });
    const record = recordOf(summarizerAgent(server.origin));
    const result = await gateway.invoke(
      record,
      { operation: 'summarize', input: { text: 'a long text' } },
      new Headers({ accept: 'text/event-stream' }),
    );
    assert.equal(result.response.headers.get('content-type'), 'text/event-stream');
    assert.equal(
      await result.response.text(),
      [
        'event: task\ndata: {"id":"t1","status":"working","polls":0}\n\n',
        'event: task\ndata: {"id":"t1","status":"working","polls":1}\n\n',
        'event: result\ndata: {"summary":"later"}\n\n',
      ].join(''),
    );
  });

  describe("AIDIP §5.1's body: the operation's input itself", () => {
    const envelopeSent = (input: unknown) => ({ agent: 'summarizer', operation: 'summarize', input });
    const single = (): Agent => {
      const agent = summarizerAgent(server.origin);
      return { ...agent, operations: agent.operations.slice(0, 1) };
    };

    it('an agent with one operation takes the input as the whole body', async () => {
      summarize();
      const result = await gateway.invoke(recordOf(single()), { text: 'a long text' }, new Headers());
      assert.equal(result.response.status, 200, await result.response.clone().text());
      assert.deepEqual(await bodyOf(result), { summary: 'short' });
      assert.deepEqual(server.requests[0]!.body, envelopeSent({ text: 'a long text' }));
    });

    it('`operation` beside the input names the operation and is taken out of the input', async () => {
      summarize();
      const body = { operation: 'summarize', text: 'a long text' };
      const result = await gateway.invoke(recordOf(summarizerAgent(server.origin)), body, new Headers());
      assert.equal(result.response.status, 200, await result.response.clone().text());
      assert.equal(result.operation, 'summarize');
      assert.deepEqual(server.requests[0]!.body, envelopeSent({ text: 'a long text' }));
    });

    it("`operation` stays in the input when the operation's schema has such a property", async () => {
      summarize();
      const agent = single();
      agent.operations[0]!.input = {
        type: 'object',
        properties: { operation: { type: 'string' }, text: { type: 'string' } },
        required: ['operation', 'text'],
      };
      const body = { operation: 'summarize', text: 'x' };
      const result = await gateway.invoke(recordOf(agent), body, new Headers());
      assert.equal(result.response.status, 200, await result.response.clone().text());
      assert.deepEqual(server.requests[0]!.body, envelopeSent(body));
    });

    it('an `operation` that names none of the operations is part of the input', async () => {
      summarize();
      const agent = single();
      agent.operations[0]!.input = { type: 'object' };
      const body = { operation: 'add', text: 'x' };
      const result = await gateway.invoke(recordOf(agent), body, new Headers());
      assert.equal(result.response.status, 200, await result.response.clone().text());
      assert.deepEqual(server.requests[0]!.body, envelopeSent(body));
    });

    it('the operation query parameter names the operation and leaves the body as it is', async () => {
      summarize();
      const agent = single();
      agent.operations[0]!.input = { type: 'object' };
      const body = { operation: 'summarize', text: 'x' };
      const result = await gateway.invoke(
        recordOf({
          ...agent,
          operations: [...agent.operations, ...summarizerAgent(server.origin).operations.slice(1)],
        }),
        body,
        new Headers(),
        {
          operation: 'summarize',
        },
      );
      assert.equal(result.response.status, 200, await result.response.clone().text());
      assert.deepEqual(server.requests[0]!.body, envelopeSent(body));
    });

    it('X-Agent-Body: input sends a body shaped like the envelope as the input', async () => {
      summarize();
      const agent = single();
      agent.operations[0]!.input = { type: 'object', properties: { input: { type: 'string' } } };
      const headers = new Headers({ 'x-agent-body': 'input' });
      const result = await gateway.invoke(recordOf(agent), { input: 'verbatim' }, headers);
      assert.equal(result.response.status, 200, await result.response.clone().text());
      assert.deepEqual(server.requests[0]!.body, envelopeSent({ input: 'verbatim' }));
    });

    it('X-Agent-Body: envelope holds a body to the envelope', async () => {
      const headers = new Headers({ 'x-agent-body': 'envelope' });
      const result = await gateway.invoke(recordOf(single()), { text: 'x' }, headers);
      const problem = await expectProblem(result, 400, 'InvalidInput');
      assert.match(String(problem['detail']), /Send the operation's input itself, or \{"operation"/);
      assert.equal(server.requests.length, 0);
    });

    it('an input failing its schema is pointed at in the body, where the input is', async () => {
      const result = await gateway.invoke(recordOf(single()), { text: '' }, new Headers());
      const problem = await expectProblem(result, 400, 'InvalidInput');
      assert.equal(problem['pointer'], '/text');
    });
  });

  it('passes call metadata and agent credentials on, and never the registry credentials', async () => {
    summarize();
    const headers = new Headers({
      authorization: 'Bearer registry-token',
      cookie: 'session=registry',
      'x-api-key': 'registry-key',
      'x-agent-authorization': 'Bearer agent-token',
      'x-session-id': 'session-1',
      'x-task-id': 'task-1',
      'x-agent-version': '2.0.0',
      'idempotency-key': 'key-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'x-request-id': 'req-1',
    });
    const result = await gateway.invoke(
      recordOf(summarizerAgent(server.origin)),
      { input: { text: 't' }, operation: 'summarize' },
      headers,
    );
    assert.equal(result.ok, true);
    const sent = server.requests[0]!.headers;
    assert.equal(sent['authorization'], 'Bearer agent-token');
    assert.equal(sent['cookie'], undefined);
    assert.equal(sent['x-api-key'], undefined);
    assert.equal(sent['x-agent-authorization'], undefined);
    assert.equal(sent['x-session-id'], 'session-1');
    assert.equal(sent['x-task-id'], 'task-1');
    assert.equal(sent['x-agent-version'], '2.0.0');
    assert.equal(sent['idempotency-key'], 'key-1');
    assert.equal(sent['traceparent'], '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    assert.equal(sent['x-request-id'], 'req-1');
  });

  it("puts an API key where the agent's scheme says", async () => {
    server.routes.set('/translate', (_request, response) => sendJson(response, 200, { text: 'bonjour' }));
    const agent: Agent = {
      id: 'translator',
      name: 'Translator',
      description: 'Translates.',
      operations: [{ name: 'translate' }],
      bindings: [{ kind: 'http', url: `${server.origin}/translate`, method: 'POST' }],
      auth: {
        schemes: [{ id: 'key', type: 'apiKey', in: 'header', name: 'X-Translate-Key' }],
        security: [{ key: [] }],
      },
    };
    const result = await gateway.invoke(
      recordOf(agent),
      { input: { text: 'hello' } },
      new Headers({ 'x-agent-api-key': 'k-1' }),
    );
    assert.equal(result.ok, true);
    assert.deepEqual(await bodyOf(result), { text: 'bonjour' });
    assert.equal(server.requests[0]!.headers['x-translate-key'], 'k-1');
    assert.deepEqual(server.requests[0]!.body, { text: 'hello' });
  });

  describe('requests the gateway refuses before calling', () => {
    const cases: Array<[string, unknown, number, string, string | undefined]> = [
      ['an AIDIP body whose input fails the schema', { operation: 'summarize' }, 400, 'InvalidInput', ''],
      [
        'an AIDIP body naming no operation of several',
        'summarize this',
        400,
        'OperationNotFound',
        '/operation',
      ],
      [
        'an X-Agent-Body-less envelope with a bad confirm',
        { input: {}, confirm: 'yes' },
        400,
        'InvalidInput',
        '/confirm',
      ],
      ['an operation that is not a string', { operation: 3, input: {} }, 400, 'InvalidInput', '/operation'],
      ['an envelope naming another agent', { agent: 'other', input: {} }, 400, 'InvalidInput', '/agent'],
      [
        'input failing the schema',
        { operation: 'summarize', input: { text: '' } },
        400,
        'InvalidInput',
        '/input/text',
      ],
      ['an unknown operation', { operation: 'translate', input: {} }, 400, 'OperationNotFound', '/operation'],
      ['several operations and none named', { input: { text: 'x' } }, 400, 'OperationNotFound', '/operation'],
      [
        'an irreversible operation without confirmation',
        { operation: 'purge', input: null },
        428,
        'ConfirmationRequired',
        undefined,
      ],
    ];
    for (const [what, body, status, code, pointer] of cases) {
      it(`answers ${status} ${code} for ${what}`, async () => {
        summarize();
        const result = await gateway.invoke(recordOf(summarizerAgent(server.origin)), body, new Headers());
        const problem = await expectProblem(result, status, code);
        assert.equal(problem['pointer'], pointer);
        if (pointer) {
          // The place is named once at most, not once per message that mentions it.
          const detail = String(problem['detail']);
          assert.ok(detail.split(pointer).length - 1 <= 1, detail);
        }
        assert.equal(result.failure, 'caller');
        assert.equal(server.requests.length, 0, 'nothing reached the agent');
      });
    }

    it('answers 400 for an X-Agent-Body that is neither envelope nor input', async () => {
      const headers = new Headers({ 'x-agent-body': 'both' });
      const result = await gateway.invoke(recordOf(summarizerAgent(server.origin)), { text: 'x' }, headers);
      const problem = await expectProblem(result, 400, 'InvalidInput');
      assert.match(String(problem['detail']), /x-agent-body is "envelope" or "input", not "both"/);
      assert.equal(server.requests.length, 0);
    });

    it('lists the operations there are', async () => {
      const result = await gateway.invoke(
        recordOf(summarizerAgent(server.origin)),
        { operation: 'x', input: {} },
        new Headers(),
      );
      const problem = await expectProblem(result, 400, 'OperationNotFound');
      assert.deepEqual(problem['available'], ['summarize', 'purge']);
    });

    it('runs a confirmed irreversible operation, telling the agent it was confirmed', async () => {
      summarize(200, null);
      const result = await gateway.invoke(
        recordOf(summarizerAgent(server.origin)),
        { operation: 'purge', input: null, confirm: true },
        new Headers(),
      );
      assert.equal(result.ok, true);
      assert.equal(server.requests[0]!.headers['x-agent-confirmation'], 'true');
    });

    it('answers 410 for a retired agent', async () => {
      const result = await gateway.invoke(
        recordOf(summarizerAgent(server.origin), { status: 'retired' }),
        { input: {} },
        new Headers(),
      );
      await expectProblem(result, 410, 'AgentRetired');
    });
  });

  describe("the agent's error answers", () => {
    const cases: Array<
      [string, number, unknown, Record<string, string>, number, string, 'agent' | 'caller']
    > = [
      [
        '404',
        404,
        { error: { code: 'NotFound', message: 'No such document.' } },
        {},
        404,
        'NotFound',
        'agent',
      ],
      [
        '409',
        409,
        { type: 'about:blank', title: 'Conflict', status: 409, detail: 'Already running.', code: 'Busy' },
        {},
        409,
        'Busy',
        'caller',
      ],
      [
        '422',
        422,
        { error: { code: 'InvalidInput', message: 'text is too short' } },
        {},
        422,
        'InvalidInput',
        'caller',
      ],
      [
        '401',
        401,
        { error: { code: 'Unauthorized', message: 'Missing token.' } },
        {},
        401,
        'AgentAuthRequired',
        'caller',
      ],
      [
        '403',
        403,
        { error: { code: 'Forbidden', message: 'Not yours.' } },
        {},
        403,
        'AgentForbidden',
        'caller',
      ],
      [
        '429',
        429,
        { error: { code: 'RateLimited', message: 'Slow down.' } },
        { 'retry-after': '120' },
        429,
        'RateLimited',
        'caller',
      ],
      ['500', 500, { error: { code: 'AgentError', message: 'Boom.' } }, {}, 502, 'AgentError', 'agent'],
      [
        '503',
        503,
        { error: { code: 'Overloaded', message: 'Busy.' } },
        { 'retry-after': '7' },
        503,
        'Overloaded',
        'agent',
      ],
    ];
    for (const [what, agentStatus, body, headers, status, code, party] of cases) {
      it(`maps the agent's ${what} to ${status} ${code}`, async () => {
        summarize(agentStatus, body, headers);
        const result = await gateway.invoke(
          recordOf(summarizerAgent(server.origin)),
          { operation: 'summarize', input: { text: 'x' } },
          new Headers(),
        );
        const problem = await expectProblem(result, status, code);
        assert.equal(problem['agent'], 'summarizer');
        assert.equal(problem['operation'], 'summarize');
        assert.equal(result.failure, party);
        if (headers['retry-after'] !== undefined)
          assert.equal(result.response.headers.get('retry-after'), headers['retry-after']);
        if (status === 502) assert.equal(problem['agent_status'], agentStatus);
        assert.equal(server.requests.length, 1, 'one try: retrying is the caller’s decision');
      });
    }

    it('answers 502 when the output breaks the output schema', async () => {
      summarize(200, { wrong: true });
      const result = await gateway.invoke(
        recordOf(summarizerAgent(server.origin)),
        { operation: 'summarize', input: { text: 'x' } },
        new Headers(),
      );
      const problem = await expectProblem(result, 502, 'InvalidOutput');
      assert.ok(Array.isArray(problem['errors']));
      assert.equal(result.failure, 'agent');
    });

    it('answers 502 when the answer is not JSON', async () => {
      server.routes.set(invokePath('summarizer'), (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"summary": ');
      });
      const result = await gateway.invoke(
        recordOf(summarizerAgent(server.origin)),
        { operation: 'summarize', input: { text: 'x' } },
        new Headers(),
      );
      await expectProblem(result, 502, 'BadAgentResponse');
    });
  });

  it('answers 504 when the agent does not answer in time', async () => {
    server.routes.set(invokePath('summarizer'), () => {
      // Never answers; the server's close() ends the connection.
    });
    const quick = createGateway({ fetcher, timeoutMs: 200 });
    const result = await quick.invoke(
      recordOf(summarizerAgent(server.origin)),
      { operation: 'summarize', input: { text: 'x' } },
      new Headers(),
    );
    const problem = await expectProblem(result, 504, 'Timeout');
    assert.equal(problem['agent'], 'summarizer');
    assert.equal(result.failure, 'agent');
    await quick.close();
  });

  it('answers 502 when nothing listens at the endpoint', async () => {
    const closed = await startAgentServer();
    const origin = closed.origin;
    await closed.close();
    const result = await gateway.invoke(
      recordOf(summarizerAgent(origin)),
      { operation: 'summarize', input: { text: 'x' } },
      new Headers(),
    );
    await expectProblem(result, 502, 'AgentUnreachable');
  });
});

describe('gateway address checks', () => {
  let server: AgentServer;
  before(async () => {
    server = await startAgentServer();
    server.routes.set(invokePath('summarizer'), (_request, response) =>
      sendJson(response, 200, { summary: 's' }),
    );
  });
  after(() => server.close());

  it('refuses loopback and private addresses with the default fetcher, without a request', async () => {
    const strict = createGateway();
    try {
      for (const origin of [
        server.origin,
        server.origin.replace('http:', 'https:'),
        'https://10.1.2.3',
        'https://[::1]:9',
      ]) {
        const result = await strict.invoke(
          recordOf(summarizerAgent(origin)),
          { operation: 'summarize', input: { text: 'x' } },
          new Headers(),
        );
        const problem = await expectProblem(result, 502, 'AddressRefused');
        assert.ok(!String(problem['detail']).includes('127.0.0.1'), 'the detail does not echo the address');
        assert.equal(result.failure, 'gateway');
      }
      assert.equal(server.requests.length, 0);
    } finally {
      await strict.close();
    }
  });

  it('refuses unix-socket and local agents unless local bindings are allowed', async () => {
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    const gateway = createGateway({ fetcher });
    const agent: Agent = {
      id: 'docker',
      name: 'Socket',
      description: 'Talks to a local socket.',
      operations: [{ name: 'run' }],
      bindings: [{ kind: 'unix', socketPath: '/var/run/docker.sock', path: '/containers/json' }],
    };
    try {
      const result = await gateway.invoke(recordOf(agent), { input: null }, new Headers());
      await expectProblem(result, 502, 'AddressRefused');
      const local: Agent = { ...agent, id: 'clock', bindings: [{ kind: 'local', name: 'clock' }] };
      await expectProblem(
        await gateway.invoke(recordOf(local), { input: null }, new Headers()),
        502,
        'AddressRefused',
      );
    } finally {
      await gateway.close();
      await fetcher.close();
    }
  });

  it('calls the network binding of an agent that also has a local one', async () => {
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    const gateway = createGateway({ fetcher });
    const agent = summarizerAgent(server.origin);
    agent.bindings.unshift({ kind: 'unix', socketPath: '/var/run/docker.sock' });
    try {
      const result = await gateway.invoke(
        recordOf(agent),
        { operation: 'summarize', input: { text: 'x' } },
        new Headers(),
      );
      assert.equal(result.ok, true);
    } finally {
      await gateway.close();
      await fetcher.close();
    }
  });
});
