/**
 * The one error root and the one code vocabulary. Every error class of every Agentry package extends
 * `AgentryError`, so a caller catches Agentry's failures with one `instanceof` and branches on `code`; the codes are
 * the ones Agentry's servers write in problem details (see problem.ts), so an error thrown in-process and the same
 * failure read off the wire name it alike.
 */

/**
 * Every code Agentry writes or throws, with what it means. Codes are PascalCase, AIDIP's style (§5.2), and AIDIP's
 * own where AIDIP names one. The first group are what servers answer with (host, registry API and gateway); the
 * last group name failures that only happen in-process (defining an agent, reading a schema, fetching, importing,
 * embedding), for which no wire code fits.
 */
export const ERROR_CODES = {
  // The request.
  InvalidInput: 'The input (a body, a parameter, an argument, a file) is not valid; `pointer` says where.',
  InvalidJson: 'A body that should be JSON does not parse.',
  InvalidRequest: 'The request is malformed in a way the input schema does not cover (an auth header, say).',
  InvalidEncoding: 'A body in an encoding the server does not read.',
  InvalidEnvelope: 'An invocation envelope without the members it needs.',
  InvalidMessage: 'An A2A message the agent cannot read as an input.',
  InvalidCallbackUrl: 'A callback URL that is not allowed.',
  SkillRequired: 'An A2A message to an agent with several skills that names none.',
  MethodNotAllowed: 'The path exists, without this method.',
  NotAcceptable: 'No representation in a media type the request accepts.',
  PayloadTooLarge: 'The body is larger than the server accepts.',
  UnsupportedMediaType: 'The body is not in a media type the server reads.',
  UpgradeRequired: 'The path speaks another protocol (a WebSocket).',
  UnsupportedOperation: 'A protocol method the server does not offer.',
  CallbacksNotSupported: 'The agent does not call back.',
  // Who asks.
  Unauthorized: 'Credentials are needed, or the ones given are unknown or revoked.',
  InvalidToken: 'The bearer token is not valid.',
  TokenExpired: 'The bearer token has expired.',
  InvalidApiKey: 'The API key is not valid.',
  AuthUnavailable: 'The server cannot check credentials now.',
  Forbidden: 'The credentials do not allow this.',
  InsufficientScope: 'The token lacks a scope the operation needs.',
  OriginNotAllowed: "The request's Origin is not one the server accepts.",
  HostNotAllowed: "The request's Host is not one the server serves.",
  QuotaExceeded: 'The caller is over its quota.',
  RateLimited: 'Too many requests; `Retry-After` says when to try again.',
  // What is asked for.
  NotFound: 'No such thing, or one the caller may not see.',
  AgentNotFound: 'No such agent.',
  OperationNotFound: 'The agent has no such operation (or the call did not say which of several).',
  AgentRetired: 'The agent is retired.',
  Conflict: 'Another party holds what the request claims.',
  ConfirmationRequired:
    'The operation is destructive, irreversible or asks for confirmation: confirm to run it.',
  IdempotencyKeyReused: 'An idempotency key sent again with another request.',
  IdempotencyKeyInUse: 'The request with this idempotency key is still running.',
  // Tasks and streams.
  TaskPending: 'The deferred task has not finished.',
  TaskNotFound: 'No such task.',
  TaskNotFollowed: 'The task is not one this server follows.',
  TaskFailed: 'The deferred task failed.',
  TaskCancelled: 'The deferred task was cancelled.',
  TooManyTasks: 'The server holds as many tasks as it may.',
  StreamIncomplete: 'A stream ended before its result.',
  // The agent, and reaching it.
  AgentError: 'The agent failed, or answered with an error of its own.',
  InvalidOutput: "The agent's output does not match the operation's output schema.",
  BadAgentResponse: 'The agent answered something that breaks its protocol.',
  AgentUnreachable: 'The agent could not be reached.',
  AgentUnavailable: 'The agent is unavailable for now.',
  AddressRefused: 'The address is refused by the fetch policy (plain HTTP, or not public).',
  ResponseTooLarge: 'An answer larger than allowed.',
  Timeout: 'No answer in time.',
  UnsupportedTransport: 'No binding Agentry can call (a transport it does not speak).',
  ClientClosedRequest: 'The caller went away before the answer.',
  InternalError: 'A failure of the server itself (a bug, or its database).',
  // In-process failures.
  InvalidDefinition: 'An agent defined in code (or one of its schemas) that cannot be served.',
  InvalidDelegationChain: 'A delegation chain that is malformed, unsigned, expired or too long.',
  UnsupportedPattern: 'A JSON Schema pattern the linear-time engine cannot run.',
  FetchFailed: 'A request got no answer: DNS, TCP or TLS failed.',
  RegistryUnreachable: 'A registry could not be reached.',
  BadRegistryResponse: 'A registry answered something its API does not (not JSON, not the shape asked for).',
  ImportFailed: 'Another registry could not be imported (unreadable, not a registry, a page loop).',
  EmbeddingFailed: 'An embedding provider could not turn text into vectors.',
} as const satisfies Record<string, string>;

export type AgentryErrorCode = keyof typeof ERROR_CODES;

/** Whether `code` is one of the vocabulary's (as written: `RateLimited`, not `rate_limited`). */
export function isAgentryErrorCode(code: unknown): code is AgentryErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** The vocabulary's code for an HTTP status, for answers that carry none of their own. */
export function errorCodeForStatus(status: number): AgentryErrorCode {
  const byStatus: Partial<Record<number, AgentryErrorCode>> = {
    400: 'InvalidInput',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    406: 'NotAcceptable',
    409: 'Conflict',
    410: 'AgentRetired',
    413: 'PayloadTooLarge',
    415: 'UnsupportedMediaType',
    426: 'UpgradeRequired',
    428: 'ConfirmationRequired',
    429: 'RateLimited',
    499: 'ClientClosedRequest',
    501: 'UnsupportedTransport',
    502: 'AgentError',
    503: 'AgentUnavailable',
    504: 'Timeout',
  };
  return byStatus[status] ?? (status >= 400 && status < 500 ? 'InvalidRequest' : 'InternalError');
}

export interface AgentryErrorOptions {
  /**
   * The failure's code; default: the class's own (`static code`). Given as `undefined` explicitly, the error has
   * none (an error relaying an answer that carried no code).
   */
  code?: string | undefined;
  cause?: unknown;
}

/**
 * The root of every Agentry error. Its `name` is each class's own (Error's `'Error'` for a class that names none). `code` is what failed, in the vocabulary above; each class names its own as
 * `static code` (`RateLimitedError.code === 'RateLimited'`), which instances carry unless told otherwise. Errors
 * that relay another party's answer (the client's `AgentError` family) carry that answer's code instead, which is
 * the party's own and absent when the answer had none; their class's `static code` still says what kind of failure
 * the class is.
 *
 * @example
 * ```ts
 * import { AgentryError, parseAgentUri } from '@agentry/core';
 *
 * try {
 *   parseAgentUri('agent://');
 * } catch (error) {
 *   if (!(error instanceof AgentryError)) throw error;
 *   console.error(error.code, error.message); // InvalidInput …
 * }
 * ```
 */
export class AgentryError extends Error {
  /** The code of this class of failure; subclasses name theirs. */
  static readonly code: AgentryErrorCode = 'InternalError';
  /**
   * What failed: the class's code unless the error was given another (see the class comment). Declared, not
   * initialised, so that an error without one has no `code` member at all and serialises as before.
   */
  declare readonly code: string | undefined;

  constructor(message?: string, options: AgentryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const code = 'code' in options ? options.code : (new.target as typeof AgentryError).code;
    if (code !== undefined) (this as { code?: string }).code = code;
  }
}
