/**
 * Bearer JWTs (RFC 6750, RFC 7519): verifies the signature with an HMAC secret, an inline JWKS or a JWKS URL,
 * checks expiry and, when configured, issuer and audience, and reads who the caller is (`sub`, else
 * `client_id`) and what it may do (`scope`, space-separated, or `scp`, an array or string).
 *
 * Failures are told apart because they are answered differently: the token's fault (bad signature, expired,
 * wrong issuer, no usable key) is a 401 the caller can fix; a key set that cannot be fetched is the host's
 * problem (503), and must not read to the caller as a bad token.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose';
import { PUBLIC_KEY_ALGORITHMS } from '../signing/algorithms.js';

export interface JwtConfig {
  /** Shared secret for HMAC-signed tokens (HS256, HS384, HS512). */
  secret?: string;
  /** Where the issuer publishes its public keys (fetched with the global fetch, cached by jose). */
  jwksUrl?: string;
  /** The issuer's public keys, inline. */
  jwks?: JSONWebKeySet;
  /** Required `iss`. */
  issuer?: string;
  /** Required `aud` (one of the token's audiences). */
  audience?: string;
  /** Accepted `alg` values (default: HS256/384/512 with a secret, the asymmetric algorithms with keys). */
  algorithms?: string[];
  /** Leeway for `exp` and `nbf`, in seconds (default 0). */
  clockToleranceSeconds?: number;
}

export interface VerifiedBearer {
  clientId: string;
  scopes: string[];
  claims: Record<string, unknown>;
}

export type BearerFailure = 'invalid' | 'expired' | 'unavailable';

export type BearerResult =
  | { ok: true; bearer: VerifiedBearer }
  | { ok: false; failure: BearerFailure; description: string };

export type BearerVerifier = (token: string) => Promise<BearerResult>;

const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
/** Token errors whose cause is the token (or a key set that has no key for it), not the host. */
const TOKEN_FAULTS = new Set<string>([
  errors.JWSInvalid.code,
  errors.JWTInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JWTClaimValidationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
]);

export function createBearerVerifier(config: JwtConfig): BearerVerifier {
  const keySet =
    config.jwks !== undefined
      ? createLocalJWKSet(config.jwks)
      : config.jwksUrl !== undefined
        ? createRemoteJWKSet(new URL(config.jwksUrl))
        : undefined;
  const secret = config.secret === undefined ? undefined : new TextEncoder().encode(config.secret);
  if (keySet === undefined && secret === undefined) {
    throw new TypeError('The jwt configuration needs a "secret", "jwks" or "jwksUrl" to verify tokens with.');
  }
  const claimChecks: JWTVerifyOptions = {};
  if (config.issuer !== undefined) claimChecks.issuer = config.issuer;
  if (config.audience !== undefined) claimChecks.audience = config.audience;
  if (config.clockToleranceSeconds !== undefined) claimChecks.clockTolerance = config.clockToleranceSeconds;
  const allowed = (defaults: readonly string[]): string[] =>
    config.algorithms === undefined
      ? [...defaults]
      : config.algorithms.filter((alg) => defaults.includes(alg));

  return async (token) => {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return { ok: false, failure: 'invalid', description: 'The token is not a JWS compact serialization' };
    }
    // An HMAC token is checked with the secret, anything else with the key set, so a public key can never be
    // mistaken for an HMAC secret.
    const hmac = typeof alg === 'string' && HMAC_ALGORITHMS.includes(alg);
    const key = hmac ? secret : keySet;
    if (key === undefined) {
      return {
        ok: false,
        failure: 'invalid',
        description: 'The token is signed with an algorithm not accepted here',
      };
    }
    let payload: JWTPayload;
    try {
      const algorithms = allowed(hmac ? HMAC_ALGORITHMS : PUBLIC_KEY_ALGORITHMS);
      ({ payload } =
        key instanceof Uint8Array
          ? await jwtVerify(token, key, { ...claimChecks, algorithms })
          : await jwtVerify(token, key, { ...claimChecks, algorithms }));
    } catch (error) {
      return failureOf(error);
    }
    const clientId = clientIdOf(payload);
    if (clientId === undefined) {
      return { ok: false, failure: 'invalid', description: 'The token names no subject (sub or client_id)' };
    }
    return { ok: true, bearer: { clientId, scopes: scopesOf(payload), claims: { ...payload } } };
  };
}

function failureOf(error: unknown): BearerResult {
  if (error instanceof errors.JWTExpired) {
    return { ok: false, failure: 'expired', description: 'The token has expired' };
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return {
      ok: false,
      failure: 'invalid',
      description: `The token's ${error.claim} claim is not accepted`,
    };
  }
  if (error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code)) {
    return {
      ok: false,
      failure: 'invalid',
      description: 'The token is malformed or its signature does not verify',
    };
  }
  // What is left is the key set's: unreachable, timed out, not JSON, or holding keys that cannot be imported.
  return {
    ok: false,
    failure: 'unavailable',
    description: 'The keys to verify tokens with cannot be loaded',
  };
}

function clientIdOf(payload: JWTPayload): string | undefined {
  for (const claim of [payload.sub, payload['client_id']]) {
    if (typeof claim === 'string' && claim !== '') return claim;
  }
  return undefined;
}

function scopesOf(payload: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const claim of [payload['scope'], payload['scp']]) {
    const items = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
    for (const item of items) if (typeof item === 'string' && item !== '') scopes.add(item);
  }
  return [...scopes];
}
