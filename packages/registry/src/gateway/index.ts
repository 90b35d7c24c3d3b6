/** The invocation gateway: `POST /agents/{id}/invoke`. */
export { type FailureParty, failureOf, type MappedFailure } from './errors.js';
export {
  createGateway,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  type Gateway,
  type GatewayInvokeOptions,
  type GatewayOptions,
  type GatewayOutcome,
  type GatewayResult,
} from './gateway.js';
export {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPE_BASE,
  type ProblemDetails,
  type ProblemFailure,
  type ProblemInit,
  problemDetails,
  problemResponse,
} from './problem.js';
export {
  AGENT_API_KEY_HEADER,
  AGENT_AUTHORIZATION_HEADER,
  AGENT_CONFIRMATION_HEADER,
  BODY_FORM_HEADER,
  type GatewayCall,
  type GatewayTarget,
  INVOKE_BODY_SCHEMA,
  INVOKE_ENVELOPE_SCHEMA,
  readGatewayCall,
} from './request.js';
