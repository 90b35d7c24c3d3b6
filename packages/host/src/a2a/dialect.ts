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
  a2aResult,
  a2aRole,
  a2aStateName,
  isObject,
  type JsonObject,
  type JsonValue,
  readA2aPart,
} from '@agentry/core';
import type { Problem } from '../runtime/types.js';

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
  version: '1.0',
  readSend: (params) =>
    readSendParams(
      params,
      (part) => readA2aPart('1.0', part),
      (configuration) => ({
        returnImmediately: configuration['returnImmediately'] === true,
        pushNotifications: configuration['taskPushNotificationConfig'] !== undefined,
      }),
    ),
  message: (contextId, value) => ({
    messageId: crypto.randomUUID(),
    contextId,
    role: a2aRole('1.0', 'agent'),
    parts: [v1DataPart(value)],
  }),
  task: (view) => {
    const task: JsonObject = {
      id: view.id,
      contextId: view.contextId,
      status: v1Status(view.state, view.timestamp, problemJson(view.problem)),
      metadata: { skillId: view.operation },
    };
    if (view.output !== undefined) task['artifacts'] = [v1Artifact(view.operation, view.output)];
    return task;
  },
  statusUpdate: (update) => ({
    taskId: update.taskId,
    contextId: update.contextId,
    status: v1Status(update.state, new Date().toISOString(), update.message, update.contextId),
  }),
  artifactUpdate: (update) => ({
    taskId: update.taskId,
    contextId: update.contextId,
    artifact: v1Artifact(update.operation, update.output),
    lastChunk: true,
  }),
  sendResult: (kind, value) => a2aResult('1.0', kind, value),
  streamResult: (kind, value) => a2aResult('1.0', kind, value),
  errorData: (problem, reason) => {
    const details: JsonValue[] = [];
    if (reason !== undefined) details.push({ '@type': ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN });
    details.push(problemJson(problem)!);
    return details;
  },
};

const v03: Dialect = {
  version: '0.3',
  readSend: (params) =>
    readSendParams(params, readV03Part, (configuration) => ({
      returnImmediately: configuration['blocking'] === false,
      pushNotifications: configuration['pushNotificationConfig'] !== undefined,
    })),
  message: (contextId, value) => ({
    kind: 'message',
    messageId: crypto.randomUUID(),
    contextId,
    role: a2aRole('0.3', 'agent'),
    parts: [v03DataPart(value)],
  }),
  task: (view) => {
    const task: JsonObject = {
      kind: 'task',
      id: view.id,
      contextId: view.contextId,
      status: v03Status(view.state, view.timestamp, problemJson(view.problem)),
      metadata: { skillId: view.operation },
    };
    if (view.output !== undefined) task['artifacts'] = [v03Artifact(view.operation, view.output)];
    return task;
  },
  statusUpdate: (update) => ({
    kind: 'status-update',
    taskId: update.taskId,
    contextId: update.contextId,
    status: v03Status(update.state, new Date().toISOString(), update.message, update.contextId),
    final: update.final,
  }),
  artifactUpdate: (update) => ({
    kind: 'artifact-update',
    taskId: update.taskId,
    contextId: update.contextId,
    artifact: v03Artifact(update.operation, update.output),
    lastChunk: true,
  }),
  sendResult: (kind, value) => a2aResult('0.3', kind, value),
  streamResult: (kind, value) => a2aResult('0.3', kind, value),
  errorData: (problem) => problemJson(problem)!,
};

function v1DataPart(value: JsonValue): JsonObject {
  return a2aDataPart('1.0', value);
}

function v03DataPart(value: JsonValue): JsonObject {
  return a2aDataPart('0.3', value);
}

function v1Artifact(operation: string, output: JsonValue): JsonObject {
  return { artifactId: OUTPUT_ARTIFACT_ID, name: operation, parts: [v1DataPart(output)] };
}

function v03Artifact(operation: string, output: JsonValue): JsonObject {
  return { artifactId: OUTPUT_ARTIFACT_ID, name: operation, parts: [v03DataPart(output)] };
}

function v1Status(
  state: TaskState,
  timestamp: string,
  message: JsonValue | undefined,
  contextId?: string,
): JsonObject {
  const status: JsonObject = { state: a2aStateName('1.0', state), timestamp };
  if (message !== undefined) {
    status['message'] = {
      messageId: crypto.randomUUID(),
      role: a2aRole('1.0', 'agent'),
      parts: [v1DataPart(message)],
      ...(contextId === undefined ? {} : { contextId }),
    };
  }
  return status;
}

function v03Status(
  state: TaskState,
  timestamp: string,
  message: JsonValue | undefined,
  contextId?: string,
): JsonObject {
  const status: JsonObject = { state: a2aStateName('0.3', state), timestamp };
  if (message !== undefined) {
    status['message'] = {
      kind: 'message',
      messageId: crypto.randomUUID(),
      role: a2aRole('0.3', 'agent'),
      parts: [v03DataPart(message)],
      ...(contextId === undefined ? {} : { contextId }),
    };
  }
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
