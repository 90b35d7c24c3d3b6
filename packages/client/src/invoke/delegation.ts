/**
 * `X-Delegation-Chain` (agent:// §8.3.2, §10: delegation metadata that identifies prior actors, signed as JWTs).
 *
 * The header is a comma-separated list of JWTs, oldest first. Each hop is signed by the agent making the call:
 * `{iss: caller, sub: the agent called, iat, exp, jti, prev}`, where `prev` is the base64url SHA-256 of the
 * previous JWT in the list (absent on the first), so no hop can be removed, reordered or swapped without breaking
 * the links. An agent that calls another agent appends its own hop to the chain it received. docs/invocation.md
 * describes the format for hosts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { AgentryError, type AgentryErrorCode } from '@agentry/core';
import { base64url, decodeJwt, type JWTHeaderParameters, jwtVerify, type KeyInput, SignJWT } from 'jose';

export { DELEGATION_HEADER } from '@agentry/core';

export interface DelegationSigner {
  /** The caller's private key (or HMAC secret). */
  key: KeyInput;
  /** Who the caller is: its agent:// URI, URL or id. */
  issuer: string;
  /** JWS algorithm; inferred from CryptoKeys and KeyObjects (EdDSA, ES256/384/512, RS256), required otherwise. */
  alg?: string;
  /** Key id, so verifiers can pick the key. */
  kid?: string;
}

export interface DelegationOptions {
  signer: DelegationSigner;
  /** The chain the caller received with the call it is serving (its `X-Delegation-Chain`), to extend. */
  chain?: string;
  /** Lifetime of the new hop (default 300 s). */
  expiresInSeconds?: number;
}

export interface DelegationHop {
  iss: string;
  sub: string;
  iat: number;
  exp?: number;
  jti?: string;
  prev?: string;
  /** The hop's JWT as it appeared in the header. */
  token: string;
}

export class DelegationChainError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidDelegationChain';
  override readonly name = 'DelegationChainError';
  constructor(
    message: string,
    /** The index of the hop at fault (0 = oldest), when one is. */
    readonly hop?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const DEFAULT_LIFETIME_SECONDS = 300;

/** The chain with a new hop, signed by `options.signer`, naming `subject` (the agent being called). */
export async function appendDelegation(options: DelegationOptions, subject: string): Promise<string> {
  const previous = splitChain(options.chain);
  const { signer } = options;
  const alg = signer.alg ?? algorithmOf(signer.key);
  if (alg === undefined) {
    throw new TypeError('The delegation signer needs an "alg": it cannot be inferred from this key.');
  }
  const header: JWTHeaderParameters = { alg, typ: 'JWT' };
  if (signer.kid !== undefined) header.kid = signer.kid;
  const last = previous.at(-1);
  const payload = last === undefined ? {} : { prev: tokenDigest(last) };
  const token = await new SignJWT(payload)
    .setProtectedHeader(header)
    .setIssuer(signer.issuer)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(`${options.expiresInSeconds ?? DEFAULT_LIFETIME_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key as Parameters<SignJWT['sign']>[0]);
  return [...previous, token].join(',');
}

export interface VerifyDelegationOptions {
  /** The key that signs an issuer's hops. */
  keyFor: (issuer: string, header: JWTHeaderParameters) => KeyInput | Promise<KeyInput>;
  /** The agent the chain must end at (the verifier itself), when it should be checked. */
  subject?: string;
  /** Each hop's caller must be the agent the previous hop called (default true). */
  continuity?: boolean;
  /** Longest chain accepted (default 16). */
  maxHops?: number;
  /** Accepted algorithms (default: any asymmetric or HMAC algorithm jose supports, never `none`). */
  algorithms?: string[];
  /** Allowed clock skew in seconds (default 30). */
  clockToleranceSeconds?: number;
}

/** Verifies every hop's signature, expiry and link; returns the hops oldest first, or throws `DelegationChainError`. */
export async function verifyDelegationChain(
  value: string,
  options: VerifyDelegationOptions,
): Promise<DelegationHop[]> {
  const tokens = splitChain(value);
  if (tokens.length === 0) throw new DelegationChainError('The delegation chain is empty.');
  const maxHops = options.maxHops ?? 16;
  if (tokens.length > maxHops) {
    throw new DelegationChainError(
      `The delegation chain has ${tokens.length} hops; at most ${maxHops} are accepted.`,
    );
  }
  const hops: DelegationHop[] = [];
  for (const [index, token] of tokens.entries()) {
    let issuer: string | undefined;
    try {
      issuer = decodeJwt(token).iss;
    } catch (error) {
      throw new DelegationChainError(`Hop ${index} is not a JWT.`, index, { cause: error });
    }
    if (issuer === undefined) throw new DelegationChainError(`Hop ${index} names no issuer ("iss").`, index);
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(token, (header) => options.keyFor(issuer, header), {
        issuer,
        clockTolerance: options.clockToleranceSeconds ?? 30,
        requiredClaims: ['iss', 'sub', 'iat'],
        ...(options.algorithms === undefined ? {} : { algorithms: options.algorithms }),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DelegationChainError(`Hop ${index} (issuer ${issuer}) does not verify: ${reason}.`, index, {
        cause: error,
      });
    }
    const claims = verified.payload;
    const hop: DelegationHop = { iss: issuer, sub: String(claims.sub), iat: Number(claims.iat), token };
    if (claims.exp !== undefined) hop.exp = claims.exp;
    if (claims.jti !== undefined) hop.jti = claims.jti;
    if (typeof claims['prev'] === 'string') hop.prev = claims['prev'];
    checkLink(hops, hop, index, options.continuity ?? true);
    hops.push(hop);
  }
  const last = hops.at(-1)!;
  if (options.subject !== undefined && last.sub !== options.subject) {
    throw new DelegationChainError(
      `The delegation chain ends at ${last.sub}, not at ${options.subject}.`,
      hops.length - 1,
    );
  }
  return hops;
}

function checkLink(before: DelegationHop[], hop: DelegationHop, index: number, continuity: boolean): void {
  const previous = before.at(-1);
  if (previous === undefined) {
    if (hop.prev !== undefined) {
      throw new DelegationChainError(
        'The first hop links to a previous hop that is missing: the chain was cut.',
        0,
      );
    }
    return;
  }
  if (hop.prev !== tokenDigest(previous.token)) {
    throw new DelegationChainError(
      `Hop ${index} does not link to hop ${index - 1}: hops were removed, reordered or replaced.`,
      index,
    );
  }
  if (continuity && hop.iss !== previous.sub) {
    throw new DelegationChainError(
      `Hop ${index} was issued by ${hop.iss}, but hop ${index - 1} delegated to ${previous.sub}.`,
      index,
    );
  }
}

function splitChain(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

function tokenDigest(token: string): string {
  return base64url.encode(createHash('sha256').update(token).digest());
}

/** The JWS algorithm a key implies, for the common key types. */
function algorithmOf(key: KeyInput): string | undefined {
  if (key instanceof Uint8Array) return 'HS256';
  const described = key as { algorithm?: { name?: string; namedCurve?: string; hash?: { name?: string } } };
  const algorithm = described.algorithm;
  if (algorithm?.name !== undefined) {
    if (algorithm.name === 'Ed25519') return 'EdDSA';
    if (algorithm.name === 'ECDSA') return curveAlgorithm(algorithm.namedCurve);
    if (algorithm.name === 'RSASSA-PKCS1-v1_5') return `RS${(algorithm.hash?.name ?? 'SHA-256').slice(4)}`;
    if (algorithm.name === 'RSA-PSS') return `PS${(algorithm.hash?.name ?? 'SHA-256').slice(4)}`;
    if (algorithm.name === 'HMAC') return `HS${(algorithm.hash?.name ?? 'SHA-256').slice(4)}`;
    return undefined;
  }
  const keyObject = key as { asymmetricKeyType?: string; asymmetricKeyDetails?: { namedCurve?: string } };
  switch (keyObject.asymmetricKeyType) {
    case 'ed25519':
      return 'EdDSA';
    case 'ec':
      return curveAlgorithm(keyObject.asymmetricKeyDetails?.namedCurve);
    case 'rsa':
      return 'RS256';
    default:
      return undefined;
  }
}

function curveAlgorithm(curve: string | undefined): string | undefined {
  if (curve === 'P-256' || curve === 'prime256v1') return 'ES256';
  if (curve === 'P-384' || curve === 'secp384r1') return 'ES384';
  if (curve === 'P-521' || curve === 'secp521r1') return 'ES512';
  return undefined;
}
