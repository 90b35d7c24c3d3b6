/**
 * The signed X-Delegation-Chain: a caller's hop sent with a real call and verified by the server, an agent
 * extending the chain it received, and every way a chain can be tampered with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent } from '@agentry/core';
import { generateKeyPair, type KeyInput } from 'jose';
import {
  appendDelegation,
  DelegationChainError,
  type DelegationHop,
  type DelegationSigner,
  invoke,
  registerLocalAgent,
  verifyDelegationChain,
} from '../src/index.js';
import { loopbackFetcher, rejection, sendJson, startServer, type TestServer } from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;
const keys = new Map<string, KeyInput>();
let planner: DelegationSigner;
let booker: DelegationSigner;
let mallory: DelegationSigner;

const PLANNER = 'agent://planner.example/plan';
const BOOKER = 'agent://booker.example/book';
const HOTEL = 'agent://hotel.example/reserve';

const keyFor = (issuer: string): KeyInput => {
  const key = keys.get(issuer);
  if (key === undefined) throw new Error(`unknown issuer ${issuer}`);
  return key;
};

before(async () => {
  for (const issuer of [PLANNER, BOOKER]) {
    const pair = await generateKeyPair('EdDSA');
    keys.set(issuer, pair.publicKey);
    const signer = { key: pair.privateKey, issuer, kid: issuer };
    if (issuer === PLANNER) planner = signer;
    else booker = signer;
  }
  // Mallory signs as the planner, with her own key.
  mallory = { key: (await generateKeyPair('ES256')).privateKey, issuer: PLANNER };

  server = await startServer({
    'POST /reserve': async (request, response) => {
      const header = String(request.headers['x-delegation-chain'] ?? '');
      try {
        const hops = await verifyDelegationChain(header, { keyFor, subject: HOTEL });
        sendJson(response, 200, { hops: hops.map(({ iss, sub }) => ({ iss, sub })) });
      } catch (error) {
        sendJson(response, 403, { title: 'Bad delegation', detail: (error as Error).message });
      }
    },
  });
});

after(async () => {
  await server.close();
  await fetcher.close();
});

function hotel(): Agent {
  return {
    id: 'hotel',
    name: 'Hotel',
    description: 'Reserves rooms.',
    url: HOTEL,
    operations: [{ name: 'reserve' }],
    bindings: [{ kind: 'http', url: `${server.origin}/reserve`, method: 'POST' }],
  };
}

describe('sent with a call', () => {
  test("the caller's hop names the caller and the agent called, and the server verifies it", async () => {
    const result = await invoke({ agent: hotel() }, {}, { fetcher, delegation: { signer: booker } });
    assert.deepEqual(result.output, { hops: [{ iss: BOOKER, sub: HOTEL }] });
  });

  test('an agent serving a call extends the chain it received', async () => {
    // The planner calls the booker (a local agent); the booker calls the hotel on the planner's behalf.
    const unregister = registerLocalAgent('booker', {
      book: async (_input, context) => {
        const onward = await invoke(
          { agent: hotel() },
          {},
          {
            fetcher,
            delegation: {
              signer: booker,
              ...(context.delegationChain ? { chain: context.delegationChain } : {}),
            },
          },
        );
        return onward.output;
      },
    });
    try {
      const bookerAgent: Agent = {
        id: 'booker',
        name: 'Booker',
        description: 'Books.',
        url: BOOKER,
        operations: [{ name: 'book' }],
        bindings: [{ kind: 'local', name: 'booker' }],
      };
      const result = await invoke({ agent: bookerAgent }, {}, { delegation: { signer: planner } });
      // The server checked both signatures, the link between the hops, and that each caller was the one called.
      assert.deepEqual(result.output, {
        hops: [
          { iss: PLANNER, sub: BOOKER },
          { iss: BOOKER, sub: HOTEL },
        ],
      });
    } finally {
      unregister();
    }
  });

  test('a chain the server cannot verify is refused, and the refusal is a ForbiddenError', async () => {
    const error = await rejection(
      invoke({ agent: hotel() }, {}, { fetcher, delegation: { signer: mallory } }),
    );
    assert.equal((error as Error).name, 'ForbiddenError');
    assert.match(
      (error as Error).message,
      /Hop 0 \(issuer agent:\/\/planner\.example\/plan\) does not verify/,
    );
  });
});

describe('verifyDelegationChain', () => {
  let chain: string;
  let tokens: string[];

  before(async () => {
    chain = await appendDelegation(
      { signer: booker, chain: await appendDelegation({ signer: planner }, BOOKER) },
      HOTEL,
    );
    tokens = chain.split(',');
  });

  const fails = async (
    value: string,
    pattern: RegExp,
    options: Partial<Parameters<typeof verifyDelegationChain>[1]> = {},
  ) => {
    const error = await rejection(verifyDelegationChain(value, { keyFor, ...options }));
    assert.ok(error instanceof DelegationChainError, String(error));
    assert.match(error.message, pattern);
    return error;
  };

  test('each hop links to the one before by hash', async () => {
    const hops: DelegationHop[] = await verifyDelegationChain(chain, { keyFor });
    assert.equal(hops[0]?.prev, undefined);
    assert.ok(hops[1]?.prev);
    assert.ok(hops.every((hop) => typeof hop.jti === 'string' && typeof hop.exp === 'number'));
  });

  test('a hop removed from the front is detected', async () => {
    const error = await fails(tokens[1]!, /chain was cut/);
    assert.equal(error.hop, 0);
  });

  test('hops reordered are detected', async () => {
    await fails([tokens[1], tokens[0]].join(','), /chain was cut|does not link/);
  });

  test('a hop replaced by another valid hop is detected', async () => {
    const forged = await appendDelegation({ signer: planner }, BOOKER);
    await fails([forged, tokens[1]].join(','), /Hop 1 does not link to hop 0/);
  });

  test('a signature by the wrong key is detected', async () => {
    const forged = await appendDelegation({ signer: mallory }, BOOKER);
    await fails(forged, /Hop 0 .* does not verify/);
  });

  test('a caller that was not the one delegated to is detected (continuity)', async () => {
    const skipping = await appendDelegation(
      { signer: booker, chain: await appendDelegation({ signer: planner }, 'agent://someone-else.example') },
      HOTEL,
    );
    await fails(
      skipping,
      /issued by agent:\/\/booker\.example\/book, but hop 0 delegated to agent:\/\/someone-else/,
    );
    assert.equal((await verifyDelegationChain(skipping, { keyFor, continuity: false })).length, 2);
  });

  test('the chain must end at the expected subject, and not be too long', async () => {
    await fails(chain, /ends at agent:\/\/hotel\.example\/reserve, not at agent:\/\/x/, {
      subject: 'agent://x',
    });
    await fails(chain, /has 2 hops; at most 1/, { maxHops: 1 });
    await fails('', /empty/);
    await fails('not-a-jwt', /Hop 0 is not a JWT/);
  });

  test('an HMAC secret signs with HS256 by default', async () => {
    const secret = new TextEncoder().encode('a shared secret of thirty-two bytes!');
    const token = await appendDelegation({ signer: { key: secret, issuer: 'agent://a' } }, 'agent://b');
    const [hop] = await verifyDelegationChain(token, { keyFor: () => secret });
    assert.equal(hop?.sub, 'agent://b');
  });
});
