/**
 * The host's emitters against the shared wire vectors (core's test/vectors/protocol-wire.json): each problem case's
 * `emit` built with `problem()` and written as the host writes problems over HTTP is exactly the case's `body`, and
 * each A2A case's `emit` written by the host's dialect is exactly its `wire` (less `messageId` and `timestamp`,
 * which differ every time). The client's test reads the same bodies (packages/client/test/protocol-vectors.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { JsonObject, JsonValue } from '@agentry/core';
import { problemBody } from '../src/http/problem-response.js';
import { type ProblemInit, problem } from '../src/index.js';
import {
  type ArtifactUpdate,
  dialectFor,
  type StatusUpdate,
  type TaskView,
  type WireVersion,
} from '../src/transports/a2a/dialect.js';

interface ProblemCase {
  name: string;
  emit?: ProblemInit;
  body: Record<string, unknown>;
}

type A2aEmit =
  | { result: 'send'; kind: 'message'; contextId: string; value: JsonValue }
  | { result: 'send'; kind: 'task'; task: TaskView }
  | { result: 'stream'; kind: 'statusUpdate'; update: StatusUpdate }
  | { result: 'stream'; kind: 'artifactUpdate'; update: ArtifactUpdate };

interface A2aCase {
  name: string;
  version: WireVersion;
  emit: A2aEmit;
  wire: JsonObject;
}

const vectors = JSON.parse(
  readFileSync(new URL('../../core/test/vectors/protocol-wire.json', import.meta.url), 'utf8'),
) as { problems: ProblemCase[]; a2a: A2aCase[] };

describe('problem details on the wire (shared vectors)', () => {
  const emitted = vectors.problems.filter((vector) => vector.emit !== undefined);
  test('the vectors have cases the host emits', () => assert.ok(emitted.length >= 5));
  for (const vector of emitted) {
    test(vector.name, () => {
      assert.deepEqual(JSON.parse(JSON.stringify(problemBody(problem(vector.emit!)))), vector.body);
    });
  }
});

describe('A2A results on the wire (shared vectors)', () => {
  for (const vector of vectors.a2a) {
    test(vector.name, () => {
      const dialect = dialectFor(vector.version);
      const { emit } = vector;
      let written: JsonObject;
      if (emit.kind === 'message')
        written = dialect.sendResult('message', dialect.message(emit.contextId, emit.value));
      else if (emit.kind === 'task') written = dialect.sendResult('task', dialect.task(emit.task));
      else if (emit.kind === 'statusUpdate')
        written = dialect.streamResult('statusUpdate', dialect.statusUpdate(emit.update));
      else written = dialect.streamResult('artifactUpdate', dialect.artifactUpdate(emit.update));
      assert.deepEqual(withoutVaryingMembers(written), vector.wire);
    });
  }
});

/** The JSON without `messageId` and `timestamp`, which are new on every write. */
function withoutVaryingMembers(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutVaryingMembers);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (key !== 'messageId' && key !== 'timestamp') out[key] = withoutVaryingMembers(member);
  }
  return out;
}
