/**
 * The host's problem emitter against the shared wire vectors (core's test/vectors/protocol-problems.json): each
 * case's `emit` built with `problem()` and written as the host writes problems over HTTP is exactly the case's
 * `body`. The client's test reads the same bodies (packages/client/test/protocol-vectors.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { problemBody } from '../src/http/problem-response.js';
import { type ProblemInit, problem } from '../src/index.js';

interface WireCase {
  name: string;
  emit?: ProblemInit;
  body: Record<string, unknown>;
}

const vectors = JSON.parse(
  readFileSync(new URL('../../core/test/vectors/protocol-problems.json', import.meta.url), 'utf8'),
) as { cases: WireCase[] };

describe('problem details on the wire (shared vectors)', () => {
  const emitted = vectors.cases.filter((vector) => vector.emit !== undefined);
  test('the vectors have cases the host emits', () => assert.ok(emitted.length >= 5));
  for (const vector of emitted) {
    test(vector.name, () => {
      assert.deepEqual(JSON.parse(JSON.stringify(problemBody(problem(vector.emit!)))), vector.body);
    });
  }
});
