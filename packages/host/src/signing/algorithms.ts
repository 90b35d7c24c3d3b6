/**
 * The public-key JWS algorithms the host accepts when it verifies a signature (bearer JWTs against a JWKS, signed
 * AgentCards). Naming them keeps `none` and the HMAC family out: a public key must never be usable as an HMAC
 * secret (algorithm confusion).
 */
export const PUBLIC_KEY_ALGORITHMS: readonly string[] = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
];
