export {
  A2A_DATA_PART_WRAPPED,
  A2A_METHODS,
  type A2aPart,
  type A2aResultKind,
  type A2aWireVersion,
  a2aDataPart,
  a2aObject,
  a2aResult,
  a2aRole,
  a2aStateName,
  a2aStateOf,
  a2aWireVersionOf,
  readA2aPart,
  readA2aResult,
} from './a2a/wire.js';
export {
  type ConfirmationReason,
  confirmationReasons,
  isConfirmationValue,
  isIrreversible,
} from './confirmation.js';
export {
  AgentryError,
  type AgentryErrorCode,
  type AgentryErrorOptions,
  ERROR_CODES,
  errorCodeForStatus,
  isAgentryErrorCode,
} from './errors.js';
export {
  A2A_VERSION_HEADER,
  AGENT_VERSION_HEADER,
  AGENTRY_HEADERS,
  CONFIRMATION_HEADER,
  DELEGATION_HEADER,
  IDEMPOTENCY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  SESSION_HEADER,
  TASK_HEADER,
} from './headers.js';
export {
  aidipErrorOf,
  errorCodeKey,
  MAX_LISTED_FAILURES,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_TYPE_BASE,
  type ProblemDetailsBody,
  type ProblemDetailsInit,
  type ProblemFailure,
  problemDetails,
  problemTypeFor,
} from './problem.js';
