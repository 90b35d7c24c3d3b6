/**
 * One error root: every error class any Agentry package exports (and the CLI's own) is an `AgentryError` whose
 * class names a code of core's vocabulary (`ERROR_CODES`, each documented with what it means). Classes are found by
 * walking the packages' exports, so a new error class that forgets the root fails here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as client from '@agentry/client';
import * as core from '@agentry/core';
import { AgentryError, ERROR_CODES, isAgentryErrorCode } from '@agentry/core';
import * as embeddings from '@agentry/embeddings';
import * as host from '@agentry/host';
import * as registry from '@agentry/registry';
import { UsageError } from '../src/io/errors.js';

/**
 * `@agentry/embeddings` depends on nothing of Agentry (docs/architecture.md), so its one error class cannot extend
 * core's root; the registry reports its failures in the registry's own terms.
 */
const OUTSIDE_THE_ROOT = new Set<unknown>([embeddings.EmbeddingError]);

type ErrorClass = (abstract new (...args: never[]) => Error) & { code?: unknown };

function errorClasses(exports: Record<string, unknown>): Array<[string, ErrorClass]> {
  return Object.entries(exports).filter(
    (entry): entry is [string, ErrorClass] =>
      typeof entry[1] === 'function' && (entry[1] as { prototype?: unknown }).prototype instanceof Error,
  );
}

const PACKAGES: Record<string, Record<string, unknown>> = {
  '@agentry/core': core,
  '@agentry/client': client,
  '@agentry/host': host,
  '@agentry/registry': registry,
  '@agentry/embeddings': embeddings,
  agentry: { UsageError },
};

describe('one error root', () => {
  test('every exported error class extends AgentryError and names a documented code', () => {
    let checked = 0;
    for (const [name, exports] of Object.entries(PACKAGES)) {
      for (const [exported, ErrorClass] of errorClasses(exports)) {
        if (OUTSIDE_THE_ROOT.has(ErrorClass)) continue;
        const where = `${name}'s ${exported}`;
        assert.ok(
          ErrorClass.prototype instanceof AgentryError || ErrorClass === AgentryError,
          `${where} extends AgentryError`,
        );
        assert.ok(
          isAgentryErrorCode(ErrorClass.code),
          `${where}'s code ${String(ErrorClass.code)} is in ERROR_CODES`,
        );
        checked++;
      }
    }
    // The walk found the classes (a broken import would find none and prove nothing).
    assert.ok(checked >= 30, `${checked} error classes checked`);
  });

  test('every code of the vocabulary is PascalCase and says what it means', () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^[A-Z][A-Za-z]+$/, code);
      assert.ok(meaning.length > 10, `${code} is documented`);
    }
  });

  test("instances carry their class's code, or the one they were given", () => {
    assert.equal(new UsageError('--top must be 1 to 100').code, 'InvalidInput');
    assert.equal(
      new core.UnsupportedPatternError('(a)\\1', 'uses a back-reference').code,
      'UnsupportedPattern',
    );
    assert.equal(new client.FetchTimeoutError('too slow', 'https://a.example').code, 'Timeout');
    assert.equal(new host.HostError({ status: 409, code: 'OutOfStock' }).code, 'OutOfStock');
    assert.equal(new host.HostError({ status: 404 }).code, 'NotFound');
    assert.equal(new registry.FederationError('no list', 'https://r.example').code, 'ImportFailed');
    // An error relaying an agent's answer carries that answer's code, and none when it had none.
    assert.equal(new client.RemoteError('failed', { code: 'out_of_stock' }).code, 'out_of_stock');
    assert.equal('code' in new client.RemoteError('failed'), false);
    assert.equal(client.RemoteError.code, 'AgentError');
    assert.equal(client.RateLimitedError.code, 'RateLimited');
  });
});
