/**
 * A2A JSON-RPC messages as the client writes and reads them, in the two wire dialects of core's
 * protocol/a2a (v1.0 and v0.3, which the host serves from the same code). A binding's `protocolVersion` picks the
 * dialect. Answers are read into neutral shapes for the binding (a2a.ts).
 */
import {
  A2A_METHODS,
  type A2aBinding,
  type A2aWireVersion,
  a2aDataPart,
  a2aRole,
  a2aStateOf,
  a2aWireVersionOf,
  type JsonObject,
  type JsonValue,
  readA2aPart,
  readA2aResult,
} from '@agentry/core';
import { isObject } from '../json.js';

export { A2A_VERSION_HEADER as VERSION_HEADER } from '@agentry/core';

export type A2aVersion = A2aWireVersion;

export type A2aTaskState =
  | 'submitted'
  | 'working'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected'
  | 'input-required'
  | 'auth-required'
  | 'unknown';

export interface A2aTask {
  id: string;
  state: A2aTaskState;
  /** The values of the status message's parts (a chunk, or why it failed). */
  statusMessage?: JsonValue;
  /** Each artifact's part values, by artifact id, in order. */
  artifacts: Array<{ id: string; values: JsonValue[] }>;
}

/** One result of a send or a stream, read. */
export type A2aResult =
  | { kind: 'message'; value: JsonValue }
  | { kind: 'task'; task: A2aTask }
  | { kind: 'status'; taskId: string; state: A2aTaskState; message?: JsonValue }
  | { kind: 'artifact'; taskId: string; id: string; values: JsonValue[]; append: boolean };

export const METHODS = A2A_METHODS;

export function versionOf(binding: A2aBinding): A2aVersion {
  return a2aWireVersionOf(binding.protocolVersion);
}

export interface OutgoingMessage {
  input: JsonValue;
  /** The skill (operation) called, sent as `skillId` in the message's metadata. */
  skillId: string;
  contextId?: string;
  /** Ask for the task at once instead of waiting for it (deferred operations, which the client polls). */
  returnImmediately: boolean;
}

/** The `params` of a send. */
export function sendParams(version: A2aVersion, message: OutgoingMessage): JsonObject {
  const sent: JsonObject = { messageId: crypto.randomUUID(), metadata: { skillId: message.skillId } };
  if (message.contextId !== undefined) sent['contextId'] = message.contextId;
  if (version === '1.0') {
    sent['role'] = a2aRole(version, 'user');
    sent['parts'] = [a2aDataPart(version, message.input)];
    return { message: sent, configuration: { returnImmediately: message.returnImmediately } };
  }
  sent['kind'] = 'message';
  sent['role'] = a2aRole(version, 'user');
  sent['parts'] = [a2aDataPart(version, message.input)];
  return {
    message: sent,
    configuration: { blocking: !message.returnImmediately, acceptedOutputModes: [] },
  };
}

/** A send's result: v1.0 wraps it (`{task}` / `{message}`), v0.3 marks it with `kind`. */
export function readSendResult(version: A2aVersion, result: JsonValue | undefined): A2aResult | undefined {
  if (version === '1.0') {
    const read = readA2aResult(version, result);
    if (read?.kind === 'message') return { kind: 'message', value: partValues(version, read.value) };
    if (read?.kind === 'task') return { kind: 'task', task: readTask(version, read.value) };
    return undefined;
  }
  return readStreamResult(version, result);
}

/** One event of a stream. */
export function readStreamResult(version: A2aVersion, result: JsonValue | undefined): A2aResult | undefined {
  const read = readA2aResult(version, result);
  if (read === undefined) return undefined;
  const { value } = read;
  switch (read.kind) {
    case 'message':
      return { kind: 'message', value: partValues(version, value) };
    case 'task':
      return { kind: 'task', task: readTask(version, value) };
    case 'statusUpdate': {
      const status = isObject(value['status']) ? value['status'] : {};
      const update: A2aResult = {
        kind: 'status',
        taskId: String(value['taskId'] ?? ''),
        state: stateOf(status),
      };
      if (isObject(status['message'])) update.message = partValues(version, status['message']);
      return update;
    }
    default: {
      const artifact = isObject(value['artifact']) ? value['artifact'] : {};
      return {
        kind: 'artifact',
        taskId: String(value['taskId'] ?? ''),
        id: String(artifact['artifactId'] ?? ''),
        values: valuesOf(version, artifact['parts']),
        append: value['append'] === true,
      };
    }
  }
}

/** A task (a `GetTask` / `CancelTask` result, or a send's). */
export function readTask(version: A2aVersion, task: JsonObject): A2aTask {
  const status = isObject(task['status']) ? task['status'] : {};
  const read: A2aTask = {
    id: String(task['id'] ?? ''),
    state: stateOf(status),
    artifacts: (Array.isArray(task['artifacts']) ? task['artifacts'] : [])
      .filter(isObject)
      .map((artifact) => ({
        id: String(artifact['artifactId'] ?? ''),
        values: valuesOf(version, artifact['parts']),
      })),
  };
  if (isObject(status['message'])) read.statusMessage = partValues(version, status['message']);
  return read;
}

/** An answer made of artifacts: the one value when there is one, else the values in order. */
export function outputOf(artifacts: ReadonlyArray<{ values: JsonValue[] }>): JsonValue {
  return single(artifacts.flatMap((artifact) => artifact.values));
}

function stateOf(status: JsonObject): A2aTaskState {
  const state = a2aStateOf(typeof status['state'] === 'string' ? status['state'] : '');
  const known: readonly A2aTaskState[] = [
    'submitted',
    'working',
    'completed',
    'failed',
    'canceled',
    'rejected',
    'input-required',
    'auth-required',
  ];
  return known.includes(state as A2aTaskState) ? (state as A2aTaskState) : 'unknown';
}

/** A message's content as one value (its one part's) or, with several parts, their values in order. */
function partValues(version: A2aVersion, message: JsonObject): JsonValue {
  return single(valuesOf(version, message['parts']));
}

function single(values: JsonValue[]): JsonValue {
  if (values.length === 0) return null;
  return values.length === 1 ? values[0]! : values;
}

function valuesOf(version: A2aVersion, parts: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(parts)) return [];
  return parts.filter(isObject).map((part) => partValue(version, part));
}

/** A DataPart's data, a TextPart's text, a file part as it is (v0.3: its `file` object). */
function partValue(version: A2aVersion, part: JsonObject): JsonValue {
  const read = readA2aPart(version, part);
  if (read?.kind === 'data') return read.data;
  if (read?.kind === 'text') return read.text;
  return version === '0.3' && isObject(part['file']) ? part['file'] : part;
}
