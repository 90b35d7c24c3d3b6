/**
 * Signing keys for card signatures: loads the configured private key (a CryptoKey or a private JWK), works out
 * its algorithm and its public half, and generates fresh keys for examples and tests.
 */
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { hasPrivateMembers, toPublicJwk } from './jwks.js';

export type SigningAlgorithm = 'ES256' | 'EdDSA' | 'RS256' | 'PS256';

export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['ES256', 'EdDSA', 'RS256', 'PS256'];

export interface SigningConfig {
  /** The private key: a CryptoKey, or a private JWK (with `d`). */
  privateKey: CryptoKey | JWK;
  /** Key id, published in the JWKS and in each signature's protected header. */
  kid: string;
  /** Inferred from the key when left out (P-256 → ES256, Ed25519 → EdDSA, RSA → the JWK's `alg` or RS256). */
  alg?: SigningAlgorithm;
  /** The public key, needed only when `privateKey` is a non-extractable CryptoKey. */
  publicKey?: CryptoKey | JWK;
  /** Where the JWKS is served; put in each signature's protected header so verifiers can find the key. */
  jku?: string;
}

export interface SigningKey {
  alg: SigningAlgorithm;
  kid: string;
  jku?: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function loadSigningKey(config: SigningConfig): Promise<SigningKey> {
  if (config.kid === '') throw new TypeError('A signing key needs a non-empty "kid".');
  const alg = config.alg ?? algorithmOf(config.privateKey);
  if (alg === undefined || !SIGNING_ALGORITHMS.includes(alg)) {
    throw new TypeError(
      `Cannot sign with this key${alg === undefined ? '' : ` (${alg})`}: give "alg" as one of ${SIGNING_ALGORITHMS.join(', ')}.`,
    );
  }
  const privateKey = isCryptoKey(config.privateKey)
    ? config.privateKey
    : await importPrivateJwk(config.privateKey, alg);
  const publicSource = config.publicKey ?? config.privateKey;
  let publicJwk: JWK;
  if (!isCryptoKey(publicSource)) {
    publicJwk = publicSource;
  } else if (publicSource.extractable || publicSource.type === 'public') {
    publicJwk = await exportJWK(publicSource);
  } else {
    throw new TypeError(
      'The private CryptoKey is not extractable, so its public half cannot be derived: pass "publicKey" too.',
    );
  }
  const signingKey: SigningKey = {
    alg,
    kid: config.kid,
    privateKey,
    publicJwk: toPublicJwk(publicJwk, { kid: config.kid, alg }),
  };
  if (config.jku !== undefined) signingKey.jku = config.jku;
  return signingKey;
}

export interface GeneratedSigningKey {
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The private key as a JWK, to store in a secret store. */
  privateJwk: JWK;
  publicJwk: JWK;
}

/** A new, extractable key pair for `alg` (default ES256). */
export async function generateSigningKey(alg: SigningAlgorithm = 'ES256'): Promise<GeneratedSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    alg,
    privateKey,
    publicKey,
    privateJwk: await exportJWK(privateKey),
    publicJwk: await exportJWK(publicKey),
  };
}

/** The signing algorithm a key implies, when it implies one. */
export function algorithmOf(key: CryptoKey | JWK): SigningAlgorithm | undefined {
  if (isCryptoKey(key)) {
    const algorithm = key.algorithm as { name: string; namedCurve?: string };
    if (algorithm.name === 'ECDSA') return algorithm.namedCurve === 'P-256' ? 'ES256' : undefined;
    if (algorithm.name === 'Ed25519') return 'EdDSA';
    if (algorithm.name === 'RSASSA-PKCS1-v1_5') return 'RS256';
    if (algorithm.name === 'RSA-PSS') return 'PS256';
    return undefined;
  }
  if (key.alg !== undefined) return SIGNING_ALGORITHMS.find((alg) => alg === key.alg);
  if (key.kty === 'EC') return key.crv === 'P-256' ? 'ES256' : undefined;
  if (key.kty === 'OKP') return key.crv === 'Ed25519' ? 'EdDSA' : undefined;
  if (key.kty === 'RSA') return 'RS256';
  return undefined;
}

async function importPrivateJwk(jwk: JWK, alg: SigningAlgorithm): Promise<CryptoKey> {
  if (!hasPrivateMembers(jwk))
    throw new TypeError('"privateKey" is a public JWK: give the private key (with "d").');
  const key = await importJWK(jwk, alg);
  if (key instanceof Uint8Array)
    throw new TypeError('"privateKey" is a symmetric key: cards are signed with key pairs.');
  return key;
}

function isCryptoKey(key: CryptoKey | JWK): key is CryptoKey {
  return typeof (key as CryptoKey).algorithm === 'object' && typeof (key as CryptoKey).type === 'string';
}
