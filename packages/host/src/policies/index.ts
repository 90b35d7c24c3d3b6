/** The request policies a host applies before an operation runs: auth, rate limits, idempotency, confirmation. */
export {
  API_KEY_SCHEME_ID,
  type AuthConfig,
  type AuthDecision,
  type Authenticator,
  BEARER_SCHEME_ID,
  createAuthenticator,
  type Principal,
} from './auth.js';
export {
  CONFIRMATION_HEADER,
  type ConfirmationReason,
  confirmationProblem,
  confirmationReasons,
  isConfirmed,
} from './confirmation.js';
export { parseDuration } from './durations.js';
export {
  createIdempotencyStore,
  IDEMPOTENCY_HEADER,
  type IdempotencyBegin,
  type IdempotencyStore,
  type IdempotencyStoreOptions,
  idempotencyScope,
  REPLAYED_HEADER,
  requestFingerprint,
  type StoredResponse,
} from './idempotency.js';
export {
  createRateLimiter,
  describeRateLimit,
  parseRateLimit,
  type RateDecision,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitSpec,
} from './rate-limit.js';
