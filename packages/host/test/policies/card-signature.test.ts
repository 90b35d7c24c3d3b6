/**
 * Signed AgentCards: sign then verify for each algorithm, tampering, key-order independence (JCS), the JWKS
 * carrying only public members, key loading, and that core's A2A codec still reads a signed card.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { convertDocument, readDocument } from '@agentry/core';
import { base64url, exportJWK, generateKeyPair } from 'jose';
import { createCardSigner, verifyCardSignature } from '../../src/signing/card-signature.js';
import { hasPrivateMembers, PRIVATE_JWK_MEMBERS, publicJwks } from '../../src/signing/jwks.js';
import { algorithmOf, generateSigningKey, SIGNING_ALGORITHMS } from '../../src/signing/keys.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** A real A2A card: our summarizer example converted by core. */
function exampleCard(): Record<string, unknown> {
  const source = JSON.parse(readFileSync(join(repoRoot, 'examples/documents/summarizer.woa.json'), 'utf8'));
  const { output } = convertDocument(source, 'a2a', {
    agents: ['summarizer'],
    baseUrl: 'https://agents.example.com',
  });
  assert.ok(output, 'the example converts to an A2A card');
  return output.document as Record<string, unknown>;
}

function protectedHeaderOf(card: Record<string, unknown>, index = 0): Record<string, unknown> {
  const signatures = card['signatures'] as { protected: string }[];
  return JSON.parse(new TextDecoder().decode(base64url.decode(signatures[index]!.protected)));
}

describe('card signatures', () => {
  for (const alg of SIGNING_ALGORITHMS) {
    it(`signs with ${alg} and verifies against the published JWKS`, async () => {
      const key = await generateSigningKey(alg);
      const signer = await createCardSigner({
        privateKey: key.privateKey,
        kid: `k-${alg}`,
        jku: 'https://a.example/jwks.json',
      });
      const signed = await signer.sign(exampleCard());
      assert.deepEqual(protectedHeaderOf(signed), {
        alg,
        kid: `k-${alg}`,
        typ: 'JOSE',
        jku: 'https://a.example/jwks.json',
      });
      const entry = (signed['signatures'] as Record<string, unknown>[])[0]!;
      assert.deepEqual(Object.keys(entry).sort(), ['protected', 'signature'], 'the payload is detached');
      assert.deepEqual(await verifyCardSignature(signed, signer.jwks()), { valid: true, kid: `k-${alg}` });
    });
  }

  it('fails a card changed after signing, and one checked against another key', async () => {
    const signer = await createCardSigner({ privateKey: (await generateSigningKey()).privateKey, kid: 'k1' });
    const signed = await signer.sign(exampleCard());
    const tampered = { ...signed, description: 'Now does something else.' };
    const verdict = await verifyCardSignature(tampered, signer.jwks());
    assert.equal(verdict.valid, false);
    assert.match(verdict.reason ?? '', /signature verification failed/);

    const stranger = await createCardSigner({
      privateKey: (await generateSigningKey()).privateKey,
      kid: 'k1',
    });
    assert.equal((await verifyCardSignature(signed, stranger.jwks())).valid, false);
  });

  it('verifies whatever the member order or spacing the card arrives with', async () => {
    const signer = await createCardSigner({
      privateKey: (await generateSigningKey('EdDSA')).privateKey,
      kid: 'k1',
    });
    const signed = await signer.sign(exampleCard());
    const reordered = JSON.parse(JSON.stringify(reverseMembers(signed), null, 2));
    assert.notEqual(JSON.stringify(reordered), JSON.stringify(signed));
    assert.equal((await verifyCardSignature(reordered, signer.jwks())).valid, true);
  });

  it('keeps other keys’ signatures and replaces its own', async () => {
    const first = await createCardSigner({
      privateKey: (await generateSigningKey()).privateKey,
      kid: 'first',
    });
    const second = await createCardSigner({
      privateKey: (await generateSigningKey('RS256')).privateKey,
      kid: 'second',
    });
    const twice = await second.sign(await first.sign(exampleCard()));
    const again = await first.sign(twice);
    assert.deepEqual(
      (again['signatures'] as unknown[]).map((_, index) => protectedHeaderOf(again, index)['kid']),
      ['second', 'first'],
    );
    assert.deepEqual(await verifyCardSignature(again, first.jwks()), { valid: true, kid: 'first' });
    assert.deepEqual(await verifyCardSignature(again, second.jwks()), { valid: true, kid: 'second' });
  });

  it('explains cards it cannot verify', async () => {
    const { jwks } = { jwks: { keys: [] } };
    assert.deepEqual(await verifyCardSignature(exampleCard(), jwks), {
      valid: false,
      reason: 'The card carries no signatures.',
    });
    const malformed = await verifyCardSignature({ ...exampleCard(), signatures: [{ protected: 1 }] }, jwks);
    assert.match(malformed.reason ?? '', /signatures\[0\] is not an object/);
  });

  it('refuses HMAC signatures even when the key set holds a symmetric key', async () => {
    const signer = await createCardSigner({ privateKey: (await generateSigningKey()).privateKey, kid: 'k1' });
    const signed = await signer.sign(exampleCard());
    const header = base64url.encode(JSON.stringify({ alg: 'HS256', kid: 'hmac' }));
    const withHmac = { ...signed, signatures: [{ protected: header, signature: 'AAAA' }] };
    const verdict = await verifyCardSignature(withHmac, {
      keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' }],
    });
    assert.equal(verdict.valid, false);
  });

  it('leaves a signed card readable by core’s A2A codec, which counts its signatures', async () => {
    const signer = await createCardSigner({ privateKey: (await generateSigningKey()).privateKey, kid: 'k1' });
    const result = readDocument(await signer.sign(exampleCard()));
    assert.equal(result.format, 'a2a');
    assert.equal(result.valid, true);
    assert.match(result.agents[0]?.provenance?.signature?.detail ?? '', /1 JWS signature/);
  });
});

describe('signing keys and JWKS', () => {
  it('publishes only public members', async () => {
    for (const alg of SIGNING_ALGORITHMS) {
      const key = await generateSigningKey(alg);
      assert.equal(hasPrivateMembers(key.privateJwk), true);
      const signer = await createCardSigner({ privateKey: key.privateJwk, kid: 'k1' });
      const [published] = signer.jwks().keys;
      assert.ok(published);
      for (const member of PRIVATE_JWK_MEMBERS)
        assert.equal(Object.hasOwn(published, member), false, `${alg} ${member}`);
      assert.equal(published.kid, 'k1');
      assert.equal(
        published.alg,
        alg === 'RS256' || alg === 'PS256' ? 'RS256' : alg,
        'a bare RSA JWK defaults to RS256',
      );
      assert.equal(published.use, 'sig');
    }
  });

  it('signs with a private JWK and an explicit algorithm', async () => {
    const key = await generateSigningKey('PS256');
    const signer = await createCardSigner({ privateKey: key.privateJwk, kid: 'pss', alg: 'PS256' });
    const signed = await signer.sign(exampleCard());
    assert.equal(protectedHeaderOf(signed)['alg'], 'PS256');
    assert.equal((await verifyCardSignature(signed, signer.jwks())).valid, true);
  });

  it('needs the public key beside a non-extractable private CryptoKey', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    await assert.rejects(createCardSigner({ privateKey, kid: 'k1' }), /pass "publicKey"/);
    const signer = await createCardSigner({ privateKey, publicKey, kid: 'k1' });
    assert.equal((await verifyCardSignature(await signer.sign(exampleCard()), signer.jwks())).valid, true);
  });

  it('refuses keys it cannot sign cards with', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    await assert.rejects(
      createCardSigner({ privateKey: await exportJWK(publicKey), kid: 'k1' }),
      /public JWK/,
    );
    const p384 = await generateKeyPair('ES384', { extractable: true });
    await assert.rejects(createCardSigner({ privateKey: p384.privateKey, kid: 'k1' }), /give "alg"/);
    await assert.rejects(
      createCardSigner({ privateKey: { kty: 'oct', k: 'c2VjcmV0' }, kid: 'k1' }),
      /give "alg"/,
    );
    await assert.rejects(
      createCardSigner({ privateKey: (await generateSigningKey()).privateKey, kid: '' }),
      /"kid"/,
    );
  });

  it('infers algorithms from keys', async () => {
    assert.equal(algorithmOf((await generateSigningKey('EdDSA')).privateKey), 'EdDSA');
    assert.equal(algorithmOf((await generateSigningKey('PS256')).privateKey), 'PS256');
    assert.equal(algorithmOf({ kty: 'EC', crv: 'P-256' }), 'ES256');
    assert.equal(algorithmOf({ kty: 'OKP', crv: 'Ed25519' }), 'EdDSA');
    assert.equal(algorithmOf({ kty: 'RSA', alg: 'PS256' }), 'PS256');
    assert.equal(algorithmOf({ kty: 'EC', crv: 'P-521' }), undefined);
  });

  it('refuses to publish a key with private members', () => {
    assert.throws(
      () => publicJwks([{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd', kid: 'leak' }]),
      /"leak" has private members/,
    );
  });
});

function reverseMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseMembers);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, member]) => [key, reverseMembers(member)]),
  );
}
