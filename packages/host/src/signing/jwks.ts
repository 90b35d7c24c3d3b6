/**
 * Public JSON Web Keys for a JWKS document (RFC 7517): the key with every private member removed, tagged with
 * its `kid`, `alg` and `use: "sig"`. The JWKS is what verifiers fetch (the `jku` of a card signature), so a
 * private member leaking into it would publish the signing key; `toPublicJwk` therefore builds the key from an
 * allow-list of public members rather than deleting known private ones.
 */
import type { JWK } from 'jose';

/** Members that are secret in some key type (RFC 7518 §6): never in a published key. */
export const PRIVATE_JWK_MEMBERS: readonly string[] = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['kty', 'crv', 'x', 'y'],
  OKP: ['kty', 'crv', 'x'],
  RSA: ['kty', 'n', 'e'],
};

export interface PublicKeyMeta {
  kid: string;
  alg: string;
}

export function toPublicJwk(jwk: JWK, meta: PublicKeyMeta): JWK {
  const members = jwk.kty === undefined ? undefined : PUBLIC_MEMBERS[jwk.kty];
  if (members === undefined) {
    throw new TypeError(
      `A ${jwk.kty ?? 'typeless'} key has no public half to publish: sign cards with an EC, OKP or RSA key.`,
    );
  }
  const source = jwk as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const member of members) {
    if (source[member] !== undefined) out[member] = source[member];
  }
  return { ...(out as JWK), kid: meta.kid, alg: meta.alg, use: 'sig' };
}

/** Whether `jwk` carries any private member. */
export function hasPrivateMembers(jwk: JWK): boolean {
  return PRIVATE_JWK_MEMBERS.some((member) => Object.hasOwn(jwk, member));
}

/** A JWKS document of public keys; refuses any key with a private member. */
export function publicJwks(keys: readonly JWK[]): { keys: JWK[] } {
  for (const key of keys) {
    if (hasPrivateMembers(key)) {
      throw new TypeError(`Key "${key.kid ?? '(no kid)'}" has private members and must not be published.`);
    }
  }
  return { keys: keys.map((key) => ({ ...key })) };
}
