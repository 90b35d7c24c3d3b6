/** The WebSocket Origin policy on its own: who may open a connection (property and examples). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { originAllowed } from '../../src/ws/origins.js';

const policy = { allowed: ['https://app.example'], own: ['https://agents.example'] };

test('programs (no Origin), the pages of the host and of allowed sites may connect; nothing else', () => {
  assert.equal(originAllowed(policy, undefined, 'agents.example'), true);
  assert.equal(originAllowed(policy, 'https://agents.example', 'agents.example'), true);
  assert.equal(originAllowed(policy, 'https://app.example', 'agents.example'), true);
  assert.equal(
    originAllowed(policy, 'http://localhost:7000', 'localhost:7000'),
    true,
    'reached by another name',
  );
  for (const origin of [
    'https://evil.example',
    'http://app.example',
    'https://app.example:8443',
    'null',
    '',
  ]) {
    assert.equal(originAllowed(policy, origin, 'agents.example'), false, origin);
  }
  assert.equal(originAllowed({ allowed: ['*'], own: [] }, 'https://evil.example', 'agents.example'), true);
});

test('a page whose host differs from the allowed, own and requested hosts is always refused (property)', () => {
  fc.assert(
    fc.property(fc.domain(), fc.constantFrom('http', 'https'), (domain, scheme) => {
      fc.pre(!['app.example', 'agents.example'].includes(domain));
      assert.equal(originAllowed(policy, `${scheme}://${domain}`, 'agents.example'), false);
    }),
  );
});
