/** Human confirmation: each reason an operation needs it, what confirms it, and the 428 that says how. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Operation } from '@agentry/core';
import {
  CONFIRMATION_HEADER,
  confirmationProblem,
  confirmationReasons,
  isConfirmed,
} from '../../src/policies/confirmation.js';

const confirmed = new Headers({ [CONFIRMATION_HEADER]: 'true' });

describe('confirmationReasons', () => {
  it('names each reason an operation needs confirmation', () => {
    assert.deepEqual(confirmationReasons({ name: 'wipe', sensitivity: 'destructive' }), [
      'sensitivity: destructive',
    ]);
    assert.deepEqual(confirmationReasons({ name: 'send', sensitivity: 'irreversible' }), [
      'sensitivity: irreversible',
    ]);
    assert.deepEqual(confirmationReasons({ name: 'pay', requiresConfirmation: true }), [
      'requiresConfirmation',
    ]);
    assert.deepEqual(
      confirmationReasons({ name: 'pay', sensitivity: 'irreversible', requiresConfirmation: true }),
      ['sensitivity: irreversible', 'requiresConfirmation'],
    );
  });

  it('finds none for standard operations', () => {
    assert.deepEqual(confirmationReasons({ name: 'search' }), []);
    assert.deepEqual(
      confirmationReasons({ name: 'search', sensitivity: 'standard', requiresConfirmation: false }),
      [],
    );
  });
});

describe('confirmationProblem', () => {
  it('lets operations that need no confirmation run without the header', () => {
    assert.equal(confirmationProblem({ name: 'search', sensitivity: 'standard' }, new Headers()), undefined);
  });

  for (const op of [
    { name: 'wipe', sensitivity: 'destructive' },
    { name: 'send', sensitivity: 'irreversible' },
    { name: 'pay', requiresConfirmation: true },
  ] satisfies Operation[]) {
    it(`refuses "${op.name}" unconfirmed with a 428 that says how to confirm, and runs it confirmed`, () => {
      const problem = confirmationProblem(op, new Headers());
      assert.ok(problem);
      assert.equal(problem.status, 428);
      assert.equal(problem.code, 'ConfirmationRequired');
      assert.deepEqual(problem['reasons'], confirmationReasons(op));
      assert.equal(problem['confirmationHeader'], 'X-Agent-Confirmation');
      assert.match(problem.detail ?? '', /"X-Agent-Confirmation: true"/);
      assert.match(problem.detail ?? '', new RegExp(`"${op.name}"`));
      // The CLI's flag is --yes; a CLI user told to pass a flag that does not exist is stuck.
      assert.match(problem.detail ?? '', /agentry invoke: --yes/);
      assert.doesNotMatch(problem.detail ?? '', /--confirm/);
      assert.equal(confirmationProblem(op, confirmed), undefined);
    });
  }

  it('says when the operation cannot be undone', () => {
    assert.match(
      confirmationProblem({ name: 'send', sensitivity: 'irreversible' }, new Headers())?.detail ?? '',
      /cannot be undone/,
    );
    assert.match(
      confirmationProblem({ name: 'pay', requiresConfirmation: true, reversible: false }, new Headers())
        ?.detail ?? '',
      /cannot be undone/,
    );
    assert.doesNotMatch(
      confirmationProblem({ name: 'wipe', sensitivity: 'destructive' }, new Headers())?.detail ?? '',
      /cannot be undone/,
    );
  });

  it('accepts only "true", in any case, and says why another value does not confirm', () => {
    assert.equal(isConfirmed(new Headers({ [CONFIRMATION_HEADER]: 'TRUE' })), true);
    assert.equal(isConfirmed(new Headers({ [CONFIRMATION_HEADER]: ' true ' })), true);
    for (const value of ['yes', '1', 'false', '']) {
      const headers = new Headers({ [CONFIRMATION_HEADER]: value });
      assert.equal(isConfirmed(headers), false, value);
      const problem = confirmationProblem({ name: 'wipe', sensitivity: 'destructive' }, headers);
      assert.match(problem?.detail ?? '', new RegExp(`value "${value}" does not confirm`));
    }
  });
});
