/**
 * The two wire shapes of A2A JSON-RPC the host speaks, behind one interface, written with core's protocol/a2a
 * (parts, roles, states and result wrapping of v1.0 and v0.3, which the client reads with the same code). Beyond
 * them, the host's own: v0.3 writes `kind: 'task'` objects and `final` on status updates, v1.0 carries a failure's
 * A2A reason as a google.rpc.ErrorInfo. The server (server.ts) works on the neutral shapes below and lets the
 * dialect write them.
 */
import {
  type A2aPart,
  type A2aWireVersion,
  a2aDataPart,
  a2aObject,
  a2aResult,
  a2aRole,
  a2aStateName,
  isObject,
  type JsonObject,
  type JsonValue,
  readA2aPart,
} from '@agentry/core';
import type { Problem } from '../../errors.js';

export type WireVersion = A2aWireVersion;

export type TaskState = 'submitted' | 'working' | 'completed' | 'failed' | 'canceled';

/** A part of a caller's message. Files are recognised only to be refused (operations take JSON). */
export type InboundPart = A2aPart;

export interface InboundMessage {
  parts: InboundPart[];
  metadata: JsonObject;
  contextId?: string;
  taskId?: string;
}

export interface SendParams {
  message: InboundMessage;
  /** The request's own metadata (beside the message's). */
  metadata: JsonObject;
  /** v1.0 `configuration.returnImmediately`, v0.3 `configuration.blocking: false`. */
  returnImmediately: boolean;
  /** The caller asked for push notifications, which the host does not send. */
  pushNotifications: boolean;
}

/** A task as the server describes it. */
export interface TaskView {
  id: string;
  contextId: string;
  operation: string;
  state: TaskState;
  /** The output, once completed: the task's one artifact. */
  output?: JsonValue;
  /** Why it failed: the status message's DataPart. */
  problem?: Problem;
  timestamp: string;
}

export interface StatusUpdate {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** Written as the status message's DataPart: a streamed chunk, or a failure's problem. */
  message?: JsonValue;
  /** The last event of the stream (v0.3 writes it; v1.0 ends the stream instead). */
  final: boolean;
}

export interface ArtifactUpdate {
  taskId: string;
  contextId: string;
  operation: string;
  output: JsonValue;
}

export type StreamKind = 'task' | 'message' | 'statusUpdate' | 'artifactUpdate';

export interface Dialect {
  readonly version: WireVersion;
  /** The parameters of a send, or what is wrong with them. */
  readSend(params: JsonObject): SendParams | string;
  /** An agent message carrying `value` as its one DataPart. */
  message(contextId: string, value: JsonValue): JsonObject;
  task(view: TaskView): JsonObject;
  statusUpdate(update: StatusUpdate): JsonObject;
  artifactUpdate(update: ArtifactUpdate): JsonObject;
  /** A `SendMessage` result. */
  sendResult(kind: 'task' | 'message', value: JsonObject): JsonObject;
  /** One event of a `SendStreamingMessage` stream. */
  streamResult(kind: StreamKind, value: JsonObject): JsonObject;
  /** A JSON-RPC error's `data`: the problem, with the A2A reason where one applies. */
  errorData(problem: Problem, reason: string | undefined): JsonValue;
}

/** The artifact id of an operation's output: each task has one. */
export const OUTPUT_ARTIFACT_ID = 'output';
/** The metadata flag of a v0.3 DataPart whose `data` wraps a non-object value as `{value}`. */
export { A2A_DATA_PART_WRAPPED as DATA_PART_WRAPPED } from '@agentry/core';

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const ERROR_DOMAIN = 'a2a-protocol.org';

export function dialectFor(version: WireVersion): Dialect {
  return version === '1.0' ? v1 : v03;
}

const v1: Dialect = {
  ...writers('1.0'),
  readSend: (params) =>
    readSendParams(
      params,
      (part) => readA2aPart('1.0', part),
      (configuration) => ({
        returnImmediately: configuration['returnImmediately'] === true,
        pushNotifications: configuration['taskPushNotificationConfig'] !== undefined,
      }),
    ),
  errorData: (problem, reason) => {
    const details: JsonValue[] = [];
    if (reason !== undefined) details.push({ '@type': ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN });
    details.push(problemJson(problem)!);
    return details;
  },
};

const v03: Dialect = {
  ...writers('0.3'),
  readSend: (params) =>
    readSendParams(params, readV03Part, (configuration) => ({
      returnImmediately: configuration['blocking'] === false,
      pushNotifications: configuration['pushNotificationConfig'] !== undefined,
    })),
  errorData: (problem) => problemJson(problem)!,
};

/** What the host writes, in either dialect: core's protocol/a2a spells each part of it. */
function writers(
  version: WireVersion,
): Pick<
  Dialect,
  'version' | 'message' | 'task' | 'statusUpdate' | 'artifactUpdate' | 'sendResult' | 'streamResult'
> {
  return {
    version,
    message: (contextId, value) => agentMessage(version, value, contextId),
    task: (view) => {
      const task = a2aObject(version, 'task', {
        id: view.id,
        contextId: view.contextId,
        status: statusOf(version, view.state, view.timestamp, problemJson(view.problem)),
        metadata: { skillId: view.operation },
      });
      if (view.output !== undefined)
        task['artifacts'] = [outputArtifact(version, view.operation, view.output)];
      return task;
    },
    statusUpdate: (update) => {
      const written = a2aObject(version, 'status-update', {
        taskId: update.taskId,
        contextId: update.contextId,
        status: statusOf(version, update.state, new Date().toISOString(), update.message, update.contextId),
      });
      // v0.3 marks the last event; v1.0 ends the stream instead.
      if (version === '0.3') written['final'] = update.final;
      return written;
    },
    artifactUpdate: (update) =>
      a2aObject(version, 'artifact-update', {
        taskId: update.taskId,
        contextId: update.contextId,
        artifact: outputArtifact(version, update.operation, update.output),
        lastChunk: true,
      }),
    sendResult: (kind, value) => a2aResult(version, kind, value),
    streamResult: (kind, value) => a2aResult(version, kind, value),
  };
}

/** An agent message carrying `value` as its one DataPart. */
function agentMessage(version: WireVersion, value: JsonValue, contextId: string | undefined): JsonObject {
  return a2aObject(version, 'message', {
    messageId: crypto.randomUUID(),
    ...(contextId === undefined ? {} : { contextId }),
    role: a2aRole(version, 'agent'),
    parts: [a2aDataPart(version, value)],
  });
}

function outputArtifact(version: WireVersion, operation: string, output: JsonValue): JsonObject {
  return { artifactId: OUTPUT_ARTIFACT_ID, name: operation, parts: [a2aDataPart(version, output)] };
}

function statusOf(
  version: WireVersion,
  state: TaskState,
  timestamp: string,
  message: JsonValue | undefined,
  contextId?: string,
): JsonObject {
  const status: JsonObject = { state: a2aStateName(version, state), timestamp };
  if (message !== undefined) status['message'] = agentMessage(version, message, contextId);
  return status;
}

type PartReader = (part: JsonObject) => InboundPart | undefined;

function readSendParams(
  params: JsonObject,
  readPart: PartReader,
  readConfiguration: (
    configuration: JsonObject,
  ) => Pick<SendParams, 'returnImmediately' | 'pushNotifications'>,
): SendParams | string {
  const message = params['message'];
  if (!isObject(message)) return '"params.message" must be an object.';
  const rawParts = message['parts'];
  if (!Array.isArray(rawParts)) return '"params.message.parts" must be an array.';
  const parts: InboundPart[] = [];
  for (const [index, raw] of rawParts.entries()) {
    const part = isObject(raw) ? readPart(raw) : undefined;
    if (part === undefined) return `"params.message.parts[${index}]" is not a text, data or file part.`;
    parts.push(part);
  }
  const inbound: InboundMessage = { parts, metadata: objectOr(message['metadata']) };
  for (const key of ['contextId', 'taskId'] as const) {
    const value = message[key];
    if (value !== undefined && typeof value !== 'string') return `"params.message.${key}" must be a string.`;
    if (typeof value === 'string' && value !== '') inbound[key] = value;
  }
  const configuration = params['configuration'];
  if (configuration !== undefined && configuration !== null && !isObject(configuration))
    return '"params.configuration" must be an object.';
  return {
    message: inbound,
    metadata: objectOr(params['metadata']),
    ...readConfiguration(isObject(configuration) ? configuration : {}),
  };
}

/** A v0.3 part; a DataPart whose `data` is not an object breaks v0.3's schema and is refused. */
function readV03Part(part: JsonObject): InboundPart | undefined {
  if (part['kind'] === 'data' && !isObject(part['data'])) return undefined;
  return readA2aPart('0.3', part);
}

/** A problem as the JSON it is (its extension members are JSON by construction). */
function problemJson(problem: Problem | undefined): JsonObject | undefined {
  return problem as JsonObject | undefined;
}

function objectOr(value: JsonValue | undefined): JsonObject {
  return isObject(value) ? value : {};
}
