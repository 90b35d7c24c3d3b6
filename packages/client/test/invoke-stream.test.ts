/**
 * Streaming as an async iterator: SSE (`text/event-stream`) and NDJSON (`application/x-ndjson`) answers written in
 * awkward pieces, NDJSON over wss, local async iterables; error events, broken streams, early exits, and what
 * `invoke` makes of a streamed answer.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Agent, JsonValue } from '@agentry/core';
import { WebSocketServer } from 'ws';
import {
  InvalidOutputError,
  type InvokeEvent,
  invoke,
  invokeStream,
  RateLimitedError,
  RemoteError,
  registerLocalAgent,
  TransportError,
} from '../src/index.js';
import { loopbackFetcher, rejection, sendJson, startServer, type TestServer } from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;
let wss: WebSocketServer;
let earlyExitClosed: Promise<void>;
let signalEarlyExitClosed: () => void;

/** Writes `pieces` one by one, each flushed separately, so the client sees them split at odd places. */
async function writePieces(response: ServerResponse, contentType: string, pieces: string[]): Promise<void> {
  response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
  for (const piece of pieces) {
    await new Promise<void>((resolve) => response.write(piece, () => resolve()));
  }
  response.end();
}

const SSE_PIECES = [
  ': a comment line, ignored\n',
  'id: 1\ndata: {"tok',
  'en":"Hel"}\n\n',
  'id: 2\nevent: progress\ndata: {"percent":50}\n\n',
  'data: plain text, not JSON\n\n',
  'event: result\r\ndata: {"text":"Hello"}\r\n\r\n',
];

before(async () => {
  earlyExitClosed = new Promise((resolve) => {
    signalEarlyExitClosed = resolve;
  });
  server = await startServer({
    'POST /sse': (_request, response) => writePieces(response, 'text/event-stream', SSE_PIECES),
    'POST /sse-error': (_request, response) =>
      writePieces(response, 'text/event-stream; charset=utf-8', [
        'data: {"n":1}\n\n',
        'event: error\ndata: {"type":"about:blank","title":"Too Many Requests","status":429,"detail":"quota used up"}\n\n',
        'data: {"n":2}\n\n',
      ]),
    'POST /ndjson': (_request, response) =>
      writePieces(response, 'application/x-ndjson', ['{"n":1}\n{"n"', ':2}\r\n\n', '{"n":3}']),
    'POST /ndjson-broken': (_request, response) =>
      writePieces(response, 'application/x-ndjson', ['{"n":1}\n', 'not json\n', '{"n":3}\n']),
    'POST /ndjson-messages': (_request, response) =>
      writePieces(response, 'application/x-ndjson', [
        '{"type":"chunk","data":1}\n{"type":"chunk","data":2}\n',
        '{"type":"result","output":{"count":2}}\n',
      ]),
    'POST /ndjson-error': (_request, response) =>
      writePieces(response, 'application/x-ndjson', [
        '{"type":"chunk","data":1}\n',
        '{"type":"error","error":{"type":"https://w3id.org/agentry/problems/busy","title":"Busy","status":503,"detail":"Try later."}}\n',
      ]),
    'POST /json': (_request, response) => sendJson(response, 200, { text: 'once' }),
    'POST /endless': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.on('close', () => signalEarlyExitClosed());
      let n = 0;
      const timer = setInterval(() => response.write(`${JSON.stringify({ n: ++n })}\n`), 5);
      response.on('close', () => clearInterval(timer));
    },
  });
  wss = new WebSocketServer({ server: server.server, path: '/ws' });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id: string; stream: boolean; input: { to: number } };
      const send = (value: JsonValue) => socket.send(JSON.stringify(value));
      send({ id: message.id, type: 'chunk', data: { streamRequested: message.stream } });
      for (let n = 1; n <= message.input.to; n++) send({ id: message.id, type: 'chunk', data: n });
      send({
        id: message.id,
        type: 'result',
        output: message.input.to === 99 ? 'not a number' : message.input.to,
      });
    });
  });
});

after(async () => {
  wss.close();
  await server.close();
  await fetcher.close();
});

function httpAgent(path: string, output?: Agent['operations'][number]['output']): Agent {
  return {
    id: 'streamer',
    name: 'Streamer',
    description: 'Streams.',
    operations: [{ name: 'talk', streaming: true, ...(output === undefined ? {} : { output }) }],
    bindings: [{ kind: 'http', url: `${server.origin}${path}`, method: 'POST' }],
  };
}

async function all(stream: AsyncIterable<InvokeEvent>): Promise<InvokeEvent[]> {
  const events: InvokeEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('SSE', () => {
  test('events in order, with their names and ids; JSON data parsed, other data kept as text', async () => {
    const events = await all(invokeStream({ agent: httpAgent('/sse') }, {}, { fetcher }));
    assert.deepEqual(events, [
      { event: 'message', data: { token: 'Hel' }, id: '1' },
      { event: 'progress', data: { percent: 50 }, id: '2' },
      { event: 'message', data: 'plain text, not JSON' },
      { event: 'result', data: { text: 'Hello' } },
    ]);
    assert.match(String(server.hits('POST', '/sse').at(-1)?.headers.accept), /^text\/event-stream/);
  });

  test('an error event ends the stream with the AgentError it describes, after the events before it', async () => {
    const seen: JsonValue[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of invokeStream({ agent: httpAgent('/sse-error') }, {}, { fetcher })) {
          seen.push(event.data);
        }
      })(),
    );
    assert.deepEqual(seen, [{ n: 1 }]);
    assert.ok(error instanceof RateLimitedError, String(error));
    assert.equal(error.detail, 'quota used up');
  });

  test('invoke() on an SSE answer returns the result event', async () => {
    const result = await invoke({ agent: httpAgent('/sse') }, {}, { fetcher });
    assert.deepEqual(result.output, { text: 'Hello' });
  });

  test('the result event is validated against the output schema', async () => {
    const agent = httpAgent('/sse', { type: 'object', required: ['summary'] });
    const error = await rejection(all(invokeStream({ agent }, {}, { fetcher })));
    assert.ok(error instanceof InvalidOutputError);
    assert.deepEqual(error.output, { text: 'Hello' });
  });
});

describe('NDJSON', () => {
  test('one event per line, whatever the chunking; blank lines and CRLF allowed; last line unterminated', async () => {
    const events = await all(invokeStream({ agent: httpAgent('/ndjson') }, {}, { fetcher }));
    assert.deepEqual(events, [
      { event: 'message', data: { n: 1 } },
      { event: 'message', data: { n: 2 } },
      { event: 'message', data: { n: 3 } },
    ]);
  });

  test('invoke() on an NDJSON answer returns every line', async () => {
    const result = await invoke({ agent: httpAgent('/ndjson') }, {}, { fetcher });
    assert.deepEqual(result.output, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  test('lines shaped as stream messages are chunk and result events; invoke() returns the result', async () => {
    const events = await all(invokeStream({ agent: httpAgent('/ndjson-messages') }, {}, { fetcher }));
    assert.deepEqual(events, [
      { event: 'chunk', data: 1 },
      { event: 'chunk', data: 2 },
      { event: 'result', data: { count: 2 } },
    ]);
    const result = await invoke({ agent: httpAgent('/ndjson-messages') }, {}, { fetcher });
    assert.deepEqual(result.output, { count: 2 });
  });

  test('an error message line ends the stream with the error it describes', async () => {
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of invokeStream({ agent: httpAgent('/ndjson-error') }, {}, { fetcher }))
          seen.push(event);
      })(),
    );
    assert.deepEqual(seen, [{ event: 'chunk', data: 1 }]);
    assert.ok(error instanceof RemoteError, String(error));
    assert.equal(error.status, 503);
    assert.match(error.message, /Try later/);
  });

  test('a line that is not JSON is a protocol TransportError quoting it', async () => {
    const error = await rejection(all(invokeStream({ agent: httpAgent('/ndjson-broken') }, {}, { fetcher })));
    assert.ok(error instanceof TransportError, String(error));
    assert.equal(error.reason, 'protocol');
    assert.match(error.message, /"not json"/);
  });

  test('leaving the loop early closes the connection', async () => {
    let count = 0;
    for await (const _event of invokeStream({ agent: httpAgent('/endless') }, {}, { fetcher })) {
      if (++count === 3) break;
    }
    await earlyExitClosed;
    assert.equal(count, 3);
  });
});

describe('answers that are not streams', () => {
  test('a JSON answer is one result event', async () => {
    const events = await all(invokeStream({ agent: httpAgent('/json') }, {}, { fetcher }));
    assert.deepEqual(events, [{ event: 'result', data: { text: 'once' } }]);
  });
});

describe('wss', () => {
  const wsAgent = (): Agent => ({
    id: 'counter',
    name: 'Counter',
    description: 'Counts.',
    operations: [{ name: 'count', output: { type: 'integer' } }],
    bindings: [{ kind: 'wss', url: `${server.origin.replace('http:', 'ws:')}/ws` }],
  });

  test('chunk messages, then the result message', async () => {
    const events = await all(invokeStream({ agent: wsAgent() }, { to: 3 }, { fetcher }));
    assert.deepEqual(events, [
      { event: 'chunk', data: { streamRequested: true } },
      { event: 'chunk', data: 1 },
      { event: 'chunk', data: 2 },
      { event: 'chunk', data: 3 },
      { event: 'result', data: 3 },
    ]);
  });

  test('invoke() over wss asks for no stream and returns the result', async () => {
    const result = await invoke({ agent: wsAgent() }, { to: 2 }, { fetcher });
    assert.equal(result.output, 2);
  });

  test('the result is validated (warn mode: a warning, and the stream goes on)', async () => {
    const stream = invokeStream({ agent: wsAgent() }, { to: 99 }, { fetcher, validate: 'warn' });
    const events = await all(stream);
    assert.deepEqual(events.at(-1), { event: 'result', data: 'not a number' });
    assert.deepEqual(
      stream.warnings.map((warning) => warning.code),
      ['output.invalid'],
    );
  });
});

describe('local', () => {
  test('an async iterable from a local handler streams as chunks', async () => {
    const unregister = registerLocalAgent('ticker', {
      tick: async function* (input) {
        for (let n = 1; n <= Number(input); n++) yield { tick: n };
      },
    });
    try {
      const agent: Agent = {
        id: 'ticker',
        name: 'Ticker',
        description: 'Ticks.',
        operations: [{ name: 'tick' }],
        bindings: [{ kind: 'local', name: 'ticker' }],
      };
      const events = await all(invokeStream({ agent }, 2));
      assert.deepEqual(events, [
        { event: 'chunk', data: { tick: 1 } },
        { event: 'chunk', data: { tick: 2 } },
      ]);
      const result = await invoke({ agent }, 2);
      assert.deepEqual(result.output, [{ tick: 1 }, { tick: 2 }]);
    } finally {
      unregister();
    }
  });
});
