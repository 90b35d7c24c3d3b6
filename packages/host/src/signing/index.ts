/** Signed AgentCards: keys, JWKS documents, signing and verification (A2A card signatures over RFC 8785 JSON). */
export { canonicalJson } from './canonical-json.js';
export {
  type CardSignature,
  type CardSigner,
  cardSigningInput,
  createCardSigner,
  type SignatureVerification,
  verifyCardSignature,
} from './card-signature.js';
export { hasPrivateMembers, PRIVATE_JWK_MEMBERS, publicJwks, toPublicJwk } from './jwks.js';
export {
  algorithmOf,
  type GeneratedSigningKey,
  generateSigningKey,
  loadSigningKey,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type SigningConfig,
  type SigningKey,
} from './keys.js';
