/**
 * @agentry/host: define agents once in TypeScript and serve them in every format, with invocation. A host is a
 * web-standard `fetch` handler; the adapters that put it on a server are entries of their own, each with its own
 * runtime needs: `@agentry/host/node` (Node's http server, WebSockets), `@agentry/host/express`, `@agentry/host/hono`.
 */
export { AgentDefinitionError, defineAgent } from './define/define-agent.js';
export {
  DEFAULT_CONVERTERS,
  type InputOf,
  isStandardSchema,
  SchemaConversionError,
  type SchemaConverter,
  type SchemaSide,
  type SchemaSource,
  type StandardSchemaV1,
  standardJsonSchemaConverter,
  toJsonSchema,
  toJsonSchemaMethodConverter,
} from './define/schema.js';
export type {
  AgentDefinition,
  AgentDefinitionInput,
  CallTransport,
  DefinedOperation,
  HandlerContext,
  OperationDefinition,
  OperationHandler,
} from './define/types.js';
export {
  HostError,
  PROBLEM_TYPE_BASE,
  type Problem,
  type ProblemFailure,
  type ProblemInit,
  problem,
} from './errors.js';
export { createHost, type Host, type HostFetch, type HostOptions } from './host.js';
export type { CallerInfo } from './http/host-request.js';
export { PROBLEM_MEDIA_TYPE } from './http/problem-response.js';
export { consoleLogger, type HostLogger } from './logger.js';
export { hostedAgent, INVOKE_PATH } from './model/hosted-agent.js';
export type { AuthConfig, Principal } from './policies/auth.js';
export { CONFIRMATION_HEADER } from './policies/confirmation.js';
export { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './policies/idempotency.js';
export { hostEntry, originEntry } from './policies/request-origin.js';
export { SESSION_HEADER, TASK_HEADER } from './runtime/runtime.js';
export {
  CALLBACK_HEADER,
  type CallbackFetch,
  type CallbackOptions,
  SIGNATURE_HEADER,
  signCallback,
  verifyCallbackSignature,
} from './runtime/tasks/callbacks.js';
export type { TaskStatus } from './runtime/tasks/task-store.js';
export type {
  CallOutcome,
  CallRequest,
  HostedAgent,
  HostRuntime,
  StreamEvent,
} from './runtime/types.js';
