/**
 * The client's parsers against the shared wire vectors (core's test/vectors/protocol-wire.json): each problem
 * case's `body`, served with its status by a real loopback server, becomes the case's `clientError` carrying the
 * body's code, whichever spelling (PascalCase, or an older host's snake_case) the code has; each A2A case's `wire`
 * reads as its `read`. The host's test emits the same bodies (packages/host/test/protocol-vectors.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Agent, JsonObject, JsonValue } from '@agentry/core';
import * as client from '../src/index.js';
import { AgentError, invoke } from '../src/index.js';
import { type A2aVersion, readSendResult, readStreamResult } from '../src/invoke/bindings/a2a-wire.js';
import { loopbackFetcher, rejection, sendJson, startServer, type TestServer } from './invoke-support.js';

interface ProblemCase {
  name: string;
  body: { status: number; code?: string; [member: string]: unknown };
  clientError: string;
}

interface A2aCase {
  name: string;
  version: A2aVersion;
  emit: { result: 'send' | 'stream' };
  wire: JsonObject;
  read: JsonValue;
}

const vectors = JSON.parse(
  readFileSync(new URL('../../core/test/vectors/protocol-wire.json', import.meta.url), 'utf8'),
) as { problems: ProblemCase[]; a2a: A2aCase[] };

const fetcher = loopbackFetcher();
let server: TestServer;

before(async () => {
  server = await startServer({
    '*': (request, response) => {
      const match = /^\/problem\/(\d+)$/.exec(request.path);
      const vector = match === null ? undefined : vectors.problems[Number(match[1])];
      if (vector === undefined) return sendJson(response, 500, { detail: 'no such case' });
      response.writeHead(vector.body.status, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify(vector.body));
    },
  });
});

after(async () => {
  await server.close();
  await fetcher.close();
});

function agentAt(index: number): Agent {
  return {
    id: 'vector',
    name: 'Vector',
    description: 'Answers one problem.',
    operations: [{ name: 'run' }],
    bindings: [{ kind: 'http', url: `${server.origin}/problem/${index}`, method: 'POST' }],
  };
}

describe('problem details on the wire (shared vectors)', () => {
  vectors.problems.forEach((vector, index) => {
    test(vector.name, async () => {
      const error = await rejection(
        invoke({ agent: agentAt(index) }, {}, { fetcher, retry: { attempts: 1 } }),
      );
      const errorClass = (client as unknown as Record<string, new (...args: never[]) => Error>)[
        vector.clientError
      ];
      assert.ok(errorClass, `no error class ${vector.clientError}`);
      assert.ok(error instanceof errorClass, `${vector.clientError} expected, got ${String(error)}`);
      assert.ok(error instanceof AgentError);
      assert.equal(error.status, vector.body.status);
      if (vector.body.code !== undefined) assert.equal(error.code, vector.body.code);
    });
  });
});

describe('A2A results on the wire (shared vectors)', () => {
  for (const vector of vectors.a2a) {
    test(vector.name, () => {
      const read =
        vector.emit.result === 'send'
          ? readSendResult(vector.version, vector.wire)
          : readStreamResult(vector.version, vector.wire);
      assert.deepEqual(read, vector.read);
    });
  }
});
