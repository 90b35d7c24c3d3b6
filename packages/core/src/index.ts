/**
 * @agentry/core: the canonical agent model, one codec per format, format detection, `agent://` URIs, JSON Schema
 * validation, and the protocol vocabulary every package shares (headers, problem details, error codes and the
 * `AgentryError` root, confirmation rules, A2A dialects). Named exports only; codec internals stay inside.
 */
export {
  AGENT_TRANSPORTS,
  type AgentAuthority,
  type AgentAuthorityParts,
  type AgentTransport,
  type AgentUri,
  AgentUriError,
  type AgentUriPart,
  type AgentUriParts,
  type AgentUriResult,
  type Did,
  formatAgentUri,
  type HostKind,
  hasAgentScheme,
  isAgentUri,
  normalizeAgentUri,
  parseAgentUri,
  removeDotSegments,
  tryParseAgentUri,
  type UnixSocketAddress,
} from './agent-uri/index.js';
export type { Codec, EmitOptions, EmitResult, Loss, ParseOptions, ParseResult } from './codecs/codec.js';
export type { CarrySpec } from './codecs/losses.js';
export { codecs, DETECTION_ORDER, detectFormat, getCodec } from './codecs/registry.js';
export { trimEdges, trimTrailingSlash } from './codecs/urls.js';
export {
  type ConvertOptions,
  type ConvertResult,
  convertDocument,
  convertDocumentText,
  type DocumentResult,
  type ReadOptions,
  readDocument,
  readDocumentText,
} from './documents.js';
export {
  hasErrors,
  IssueCollector,
  type IssueOption,
  optionMention,
  type Severity,
  type ValidationIssue,
} from './issues.js';
export { escapePointerToken, joinPointer, parsePointer } from './json/pointer.js';
export { parseJsonText } from './json/text.js';
export { isObject } from './json/values.js';
export { UnsupportedPatternError } from './json-schema/linear-regexp.js';
export {
  checkSchemaDocument,
  compileSchema,
  getAjv,
  type InstanceError,
  JSON_SCHEMA_2020_12,
  type SchemaCheckOptions,
  validateInstance,
} from './json-schema/validator.js';
export {
  type A2aBinding,
  type Agent,
  type AgentStatus,
  type AuthContract,
  type Binding,
  type ErrorContract,
  type Extensions,
  FORMAT_NAMES,
  type FormatName,
  type HttpBinding,
  type HttpMethod,
  type IdempotencyContract,
  type JsonObject,
  type JsonSchema,
  type JsonValue,
  type LocalBinding,
  type McpBinding,
  type McpPackage,
  type Operation,
  type OperationExample,
  type OtherBinding,
  type Provenance,
  type Publisher,
  type SecurityRequirement,
  type SecurityScheme,
  type SecuritySchemeType,
  type Sensitivity,
  type SignatureCheck,
  type Surface,
  type SurfaceFlags,
  type UnixBinding,
  type WebSocketBinding,
  type WoaRestBinding,
} from './model/agent.js';
export { lostFields } from './model/diff.js';
export { endpointOrigins, type IdentityKeys, identityKeys, sameIdentity } from './model/identity.js';
export { AGENT_PATHS, BINDING_KINDS, OPERATION_PATHS } from './model/paths.js';
export {
  A2A_DATA_PART_WRAPPED,
  A2A_METHODS,
  A2A_VERSION_HEADER,
  type A2aPart,
  type A2aResultKind,
  type A2aWireVersion,
  AGENT_VERSION_HEADER,
  AGENTRY_HEADERS,
  AgentryError,
  type AgentryErrorCode,
  type AgentryErrorOptions,
  a2aDataPart,
  a2aObject,
  a2aResult,
  a2aRole,
  a2aStateName,
  a2aStateOf,
  a2aWireVersionOf,
  aidipErrorOf,
  CONFIRMATION_HEADER,
  type ConfirmationReason,
  confirmationReasons,
  DELEGATION_HEADER,
  ERROR_CODES,
  errorCodeForStatus,
  errorCodeKey,
  IDEMPOTENCY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  isAgentryErrorCode,
  isConfirmationValue,
  isIrreversible,
  MAX_LISTED_FAILURES,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_TYPE_BASE,
  type ProblemDetailsBody,
  type ProblemDetailsInit,
  type ProblemFailure,
  problemDetails,
  problemTypeFor,
  readA2aPart,
  readA2aResult,
  SESSION_HEADER,
  TASK_HEADER,
} from './protocol/index.js';
export { decodeUriComponentSafe, encodeUriComponentSafe, wellFormedText } from './uri-component.js';
export {
  AGENTRY_CONTEXT_URL,
  AGENTRY_NS,
  AGENTRY_ONTOLOGY_URL,
  TD_CONTEXT_1_0,
  TD_CONTEXT_1_1,
  TD_CONTEXTS,
} from './vocabulary.js';
