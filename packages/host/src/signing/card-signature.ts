/**
 * A2A AgentCard signatures (A2A v1.0 §4.4.7, v0.3 §5.5.6): each entry of the card's `signatures` is a JWS in
 * parts — `protected` (the base64url protected header), `signature`, and optionally an unprotected `header` —
 * whose payload is detached: the RFC 8785 canonical JSON of the card without its `signatures` member. The
 * protected header carries `alg`, `kid`, `typ: "JOSE"` and, when configured, `jku` (where the JWKS is served).
 *
 * Signing keeps other keys' signatures (a card may be signed by several parties) and replaces an earlier
 * signature by the same `kid`. Verification accepts asymmetric algorithms only, so a JWKS can never turn a
 * public value into an HMAC secret, and reports which key verified or why none did.
 */
import {
  base64url,
  createLocalJWKSet,
  type FlattenedJWSInput,
  FlattenedSign,
  flattenedVerify,
  type JSONWebKeySet,
  type JWK,
} from 'jose';
import { PUBLIC_KEY_ALGORITHMS } from './algorithms.js';
import { canonicalJson } from './canonical-json.js';
import { publicJwks } from './jwks.js';
import { loadSigningKey, type SigningConfig } from './keys.js';

export interface CardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

export interface CardSigner {
  readonly kid: string;
  readonly alg: string;
  /** The card with this key's signature added to `signatures`. */
  sign(card: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The JWKS to serve (at `jku`): the public key only. */
  jwks(): { keys: JWK[] };
}

export interface SignatureVerification {
  valid: boolean;
  /** The key that verified. */
  kid?: string;
  /** Why no signature verified. */
  reason?: string;
}

export async function createCardSigner(config: SigningConfig): Promise<CardSigner> {
  const key = await loadSigningKey(config);
  const header = {
    alg: key.alg,
    kid: key.kid,
    typ: 'JOSE',
    ...(key.jku === undefined ? {} : { jku: key.jku }),
  };
  return {
    kid: key.kid,
    alg: key.alg,
    async sign(card) {
      const jws = await new FlattenedSign(cardSigningInput(card))
        .setProtectedHeader(header)
        .sign(key.privateKey);
      const signature: CardSignature = { protected: jws.protected!, signature: jws.signature };
      const others = signaturesOf(card).filter((entry) => kidOf(entry) !== key.kid);
      return { ...card, signatures: [...others, signature] };
    },
    jwks() {
      return publicJwks([key.publicJwk]);
    },
  };
}

/** Whether any of the card's signatures verifies with a key of `jwks`. */
export async function verifyCardSignature(
  card: Record<string, unknown>,
  jwks: JSONWebKeySet,
): Promise<SignatureVerification> {
  const signatures = card['signatures'];
  if (!Array.isArray(signatures) || signatures.length === 0) {
    return { valid: false, reason: 'The card carries no signatures.' };
  }
  let payload: string;
  try {
    payload = base64url.encode(cardSigningInput(card));
  } catch (error) {
    return {
      valid: false,
      reason: `The card is not JSON that can be canonicalized: ${(error as Error).message}`,
    };
  }
  const keys = createLocalJWKSet(jwks);
  const reasons: string[] = [];
  for (const [index, entry] of signatures.entries()) {
    if (!isSignatureEntry(entry)) {
      reasons.push(`signatures[${index}] is not an object with "protected" and "signature" strings`);
      continue;
    }
    const jws: FlattenedJWSInput = { protected: entry.protected, payload, signature: entry.signature };
    if (entry.header !== undefined) jws.header = entry.header;
    try {
      const { protectedHeader } = await flattenedVerify(jws, keys, {
        algorithms: [...PUBLIC_KEY_ALGORITHMS],
      });
      const kid =
        protectedHeader?.kid ?? (typeof entry.header?.['kid'] === 'string' ? entry.header['kid'] : undefined);
      return kid === undefined ? { valid: true } : { valid: true, kid };
    } catch (error) {
      reasons.push(`signatures[${index}]: ${(error as Error).message}`);
    }
  }
  return { valid: false, reason: reasons.join('; ') };
}

/** The bytes a card signature signs: the RFC 8785 canonical JSON of the card without `signatures`. */
export function cardSigningInput(card: Record<string, unknown>): Uint8Array {
  const { signatures: _signatures, ...unsigned } = card;
  return new TextEncoder().encode(canonicalJson(unsigned));
}

function signaturesOf(card: Record<string, unknown>): unknown[] {
  const signatures = card['signatures'];
  return Array.isArray(signatures) ? signatures : [];
}

function kidOf(entry: unknown): string | undefined {
  if (!isSignatureEntry(entry)) return undefined;
  try {
    const header = JSON.parse(new TextDecoder().decode(base64url.decode(entry.protected))) as {
      kid?: unknown;
    };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

function isSignatureEntry(entry: unknown): entry is CardSignature {
  if (typeof entry !== 'object' || entry === null) return false;
  const { protected: protectedHeader, signature, header } = entry as Record<string, unknown>;
  const headerOk =
    header === undefined || (typeof header === 'object' && header !== null && !Array.isArray(header));
  return typeof protectedHeader === 'string' && typeof signature === 'string' && headerOk;
}
