/** Invocation: call any agent over any binding. */
export type { BindingTransport, CallContext, RawResult } from './bindings/types.js';
export {
  appendDelegation,
  DELEGATION_HEADER,
  DelegationChainError,
  type DelegationHop,
  type DelegationOptions,
  type DelegationSigner,
  type VerifyDelegationOptions,
  verifyDelegationChain,
} from './delegation.js';
export {
  AgentError,
  type AgentErrorDetails,
  AgentNotFoundError,
  AuthRequiredError,
  ConfirmationRequiredError,
  type ErrorFix,
  ForbiddenError,
  InvalidInputError,
  InvalidOutputError,
  NoBindingError,
  OperationNotFoundError,
  RateLimitedError,
  RemoteError,
  type SchemaFailure,
  TransportError,
  type TransportFailure,
  UnsupportedTransportError,
} from './errors.js';
export { type InvocationPlan, planInvocation } from './governance.js';
export { SESSION_HEADER, TASK_HEADER, VERSION_HEADER } from './headers.js';
export { closeSocketConnections } from './http/socket.js';
export { IDEMPOTENCY_HEADER } from './idempotency.js';
export { invoke } from './invoke.js';
export {
  getLocalAgent,
  type LocalAgentRegistration,
  type LocalCallContext,
  type LocalHandler,
  listLocalAgents,
  registerLocalAgent,
} from './local/registry.js';
export { localSocketDirectory, localSocketPath } from './local/socket-directory.js';
export { parseRetryAfter } from './retry-after.js';
export { invokeStream } from './stream.js';
export type {
  AuthOptions,
  InvokeEvent,
  InvokeOptions,
  InvokeResult,
  InvokeStream,
  InvokeTarget,
  InvokeWarning,
  ResolvedTarget,
  RetryNotice,
  RetryOptions,
  TaskOptions,
  TaskProgress,
  ValidationMode,
} from './types.js';
