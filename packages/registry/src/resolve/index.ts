/** Agent Semantic Resolution: `POST /resolve` (AIDIP §6, §7). */
export { authAllows, bindingFor, describeAuth, describeBinding } from './invocation.js';
export { type RankedOperation, rankOperations, words } from './operations.js';
export { type FilterReason, languageMatches, policyViolation, trustScore } from './policy.js';
export { DEFAULT_TOP, MAX_TOP, RESOLVE_REQUEST_SCHEMA, readResolveRequest } from './request.js';
export { resolveIntent } from './resolve.js';
export {
  AUTH_TYPES,
  type AuthType,
  type CandidateAuth,
  type CandidateBinding,
  type CandidateInvocation,
  type CandidateOperation,
  type ResolveCandidate,
  type ResolveContext,
  type ResolveDeps,
  type ResolvePolicy,
  type ResolveRequest,
  type ResolveResponse,
  type ResolveResult,
  TRANSPORTS,
  type TransportName,
} from './types.js';
