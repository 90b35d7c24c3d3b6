/**
 * core's protocol/ vocabulary: the one problem-details builder every server uses (type from the code, failures
 * capped, AIDIP's error object), the code comparison readers use, and the confirmation rule.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  a2aStateName,
  a2aStateOf,
  a2aWireVersionOf,
  confirmationReasons,
  errorCodeKey,
  isConfirmationValue,
  MAX_LISTED_FAILURES,
  problemDetails,
  problemTypeFor,
} from '../src/index.js';

describe('problem details', () => {
  test('the type URI is the code hyphenated, whichever spelling the code has', () => {
    assert.equal(problemTypeFor('RateLimited'), 'https://w3id.org/agentry/problems/rate-limited');
    assert.equal(problemTypeFor('rate_limited'), 'https://w3id.org/agentry/problems/rate-limited');
    assert.equal(problemTypeFor('InvalidApiKey'), 'https://w3id.org/agentry/problems/invalid-api-key');
  });

  test('codes compare alike across PascalCase, snake_case and a type segment', () => {
    assert.equal(errorCodeKey('RateLimited'), errorCodeKey('rate_limited'));
    assert.equal(errorCodeKey('rate-limited'), errorCodeKey('RateLimited'));
    assert.notEqual(errorCodeKey('NotFound'), errorCodeKey('AgentNotFound'));
  });

  test('a hostile list of failures is cut to the first ones and counted', () => {
    const errors = Array.from({ length: MAX_LISTED_FAILURES + 5 }, (_, index) => ({
      pointer: `/items/${index}`,
      detail: 'must be a string',
    }));
    const body = problemDetails({ status: 400, title: 'Invalid input', code: 'InvalidInput', errors });
    assert.equal((body['errors'] as unknown[]).length, MAX_LISTED_FAILURES);
    assert.equal(body['errors_truncated'], 5);
  });

  test('extensions add members but never replace the standard ones', () => {
    const body = problemDetails({
      status: 409,
      title: 'Conflict',
      code: 'Conflict',
      detail: 'Taken.',
      aidipError: true,
      extensions: { status: 200, code: 'Other', recovery: 'Pick another name.', ignored: undefined },
    });
    assert.deepEqual(body, {
      type: 'https://w3id.org/agentry/problems/conflict',
      title: 'Conflict',
      status: 409,
      detail: 'Taken.',
      code: 'Conflict',
      recovery: 'Pick another name.',
      error: { code: 'Conflict', message: 'Taken.' },
    });
  });
});

describe('confirmation', () => {
  test('destructive, irreversible and confirmation-requiring operations need it, for these reasons', () => {
    assert.deepEqual(confirmationReasons({ name: 'read' }), []);
    assert.deepEqual(
      confirmationReasons({ name: 'drop', sensitivity: 'irreversible', requiresConfirmation: true }),
      ['sensitivity: irreversible', 'requiresConfirmation'],
    );
  });

  test('only the token true confirms', () => {
    for (const value of ['true', 'TRUE', ' true ']) assert.equal(isConfirmationValue(value), true, value);
    for (const value of ['1', 'yes', '', null, undefined])
      assert.equal(isConfirmationValue(value), false, String(value));
  });
});

describe('A2A dialects', () => {
  test('a protocolVersion of 1.x is v1.0; 0.x, none or nonsense is v0.3', () => {
    assert.equal(a2aWireVersionOf('1.0'), '1.0');
    assert.equal(a2aWireVersionOf('2'), '1.0');
    assert.equal(a2aWireVersionOf('0.3.0'), '0.3');
    assert.equal(a2aWireVersionOf(undefined), '0.3');
    assert.equal(a2aWireVersionOf('latest'), '0.3');
  });

  test('states written by either dialect read back alike', () => {
    assert.equal(a2aStateName('1.0', 'input-required'), 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(a2aStateOf(a2aStateName('1.0', 'input-required')), 'input-required');
    assert.equal(a2aStateOf(a2aStateName('0.3', 'input-required')), 'input-required');
  });
});
