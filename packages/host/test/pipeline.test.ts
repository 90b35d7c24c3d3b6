/** The policies in the call pipeline: auth (401/403), rate limits (429), idempotent replays, and the signed card. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defineAgent } from '../src/index.js';
import { verifyCardSignature } from '../src/signing/card-signature.js';
import { generateSigningKey } from '../src/signing/keys.js';
import { json, type RunningHost, startHost } from './support.js';

describe('policies in the pipeline', () => {
  let running: RunningHost;
  let runs = 0;
  const call = (op: string, headers: Record<string, string> = {}, body = '{}') =>
    fetch(`${running.url}/agents/bank/operations/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  before(async () => {
    const bank = defineAgent({
      id: 'bank',
      name: 'Bank',
      description: 'Moves money.',
      operations: {
        balance: {
          description: 'Read the balance.',
          safe: true,
          rateLimit: '2/minute',
          handler: () => ({ amount: 5 }),
        },
        transfer: {
          description: 'Transfer money.',
          authRequired: true,
          input: { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'] },
          handler: (input) => ({ run: ++runs, amount: (input as { amount: number }).amount }),
        },
      },
    });
    const key = await generateSigningKey('ES256');
    running = await startHost({
      agents: [bank],
      auth: { apiKeys: { 'key-1': { clientId: 'alice' } } },
      signing: { privateKey: key.privateJwk, kid: 'k1' },
    });
  });
  after(() => running.close());

  test('an operation that needs credentials is a 401 with a challenge without them', async () => {
    const response = await call('transfer', {}, '{"amount": 1}');
    assert.equal(response.status, 401);
    assert.ok(response.headers.get('www-authenticate'));
    const ok = await call('transfer', { 'x-api-key': 'key-1' }, '{"amount": 1}');
    assert.equal(ok.status, 200);
  });

  test('auth comes before input validation', async () => {
    const response = await call('transfer', {}, '{"amount": "x"}');
    assert.equal(response.status, 401);
  });

  test('an idempotency key replays the first answer instead of running again', async () => {
    const headers = { 'x-api-key': 'key-1', 'idempotency-key': 'k-1' };
    const first = await json(await call('transfer', headers, '{"amount": 7}'));
    const again = await call('transfer', headers, '{"amount": 7}');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await json(again), first);
    const reused = await call('transfer', headers, '{"amount": 8}');
    assert.equal(reused.status, 409);
  });

  test('rate limits answer 429 with RateLimit headers once spent', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('balance')).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const refused = await call('balance');
    assert.ok(refused.headers.get('retry-after'));
  });

  test('documents advertise the API key scheme on the operation that needs it', async () => {
    const openapi = await json(await fetch(`${running.url}/openapi.json`));
    const paths = openapi['paths'] as Record<string, Record<string, Record<string, unknown>>>;
    assert.deepEqual(paths['/agents/bank/operations/transfer']!['post']!['security'], [{ apiKey: [] }]);
    assert.equal(paths['/agents/bank/operations/balance']!['post']!['security'], undefined);
  });

  test('the A2A card is signed with a key the JWKS publishes', async () => {
    const card = await json(await fetch(`${running.url}/.well-known/agent-card.json`));
    const jwks = await json(await fetch(`${running.url}/.well-known/jwks.json`));
    const verified = await verifyCardSignature(
      card,
      jwks as unknown as Parameters<typeof verifyCardSignature>[1],
    );
    assert.equal(verified.valid, true);
  });
});
