/**
 * A2A JSON-RPC messages in the two wire versions Agentry speaks, v1.0 (protobuf JSON: `{data}` parts,
 * `ROLE_USER`, `TASK_STATE_COMPLETED`, results wrapped as `{task}` / `{message}` / `{statusUpdate}` /
 * `{artifactUpdate}`) and v0.3 (`kind` on every object, lower-case roles and states, DataParts holding objects, other
 * JSON values wrapped as `{value}` and flagged `data_part_compat`). A binding's `protocolVersion` picks the version
 * (1.x: v1.0; 0.x or none: v0.3, as A2A reads a missing `A2A-Version`). Answers are read into neutral shapes for
 * the binding (a2a.ts).
 */
import type { A2aBinding, JsonObject, JsonValue } from '@agentry/core';

export { A2A_VERSION_HEADER as VERSION_HEADER } from '@agentry/core';

import { isObject } from '../json.js';

export type A2aVersion = '1.0' | '0.3';

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

export const METHODS = {
  '1.0': { send: 'SendMessage', stream: 'SendStreamingMessage', get: 'GetTask', cancel: 'CancelTask' },
  '0.3': { send: 'message/send', stream: 'message/stream', get: 'tasks/get', cancel: 'tasks/cancel' },
} as const;

const DATA_PART_WRAPPED = 'data_part_compat';

export function versionOf(binding: A2aBinding): A2aVersion {
  const major = Number.parseInt(binding.protocolVersion ?? '0', 10);
  return Number.isFinite(major) && major >= 1 ? '1.0' : '0.3';
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
    sent['role'] = 'ROLE_USER';
    sent['parts'] = [{ data: message.input, mediaType: 'application/json' }];
    return { message: sent, configuration: { returnImmediately: message.returnImmediately } };
  }
  const part: JsonObject = isObject(message.input)
    ? { kind: 'data', data: message.input }
    : { kind: 'data', data: { value: message.input }, metadata: { [DATA_PART_WRAPPED]: true } };
  sent['kind'] = 'message';
  sent['role'] = 'user';
  sent['parts'] = [part];
  return {
    message: sent,
    configuration: { blocking: !message.returnImmediately, acceptedOutputModes: [] },
  };
}

/** A send's result: v1.0 wraps it (`{task}` / `{message}`), v0.3 marks it with `kind`. */
export function readSendResult(version: A2aVersion, result: JsonValue | undefined): A2aResult | undefined {
  if (!isObject(result)) return undefined;
  if (version === '1.0') {
    if (isObject(result['message']))
      return { kind: 'message', value: partValues(version, result['message']) };
    if (isObject(result['task'])) return { kind: 'task', task: readTask(version, result['task']) };
    return undefined;
  }
  return readStreamResult(version, result);
}

/** One event of a stream. */
export function readStreamResult(version: A2aVersion, result: JsonValue | undefined): A2aResult | undefined {
  if (!isObject(result)) return undefined;
  let kind: string | undefined;
  let value: JsonObject | undefined;
  if (version === '1.0') {
    for (const key of ['message', 'task', 'statusUpdate', 'artifactUpdate']) {
      if (isObject(result[key])) {
        kind = key;
        value = result[key];
        break;
      }
    }
  } else {
    const kinds: Record<string, string> = {
      message: 'message',
      task: 'task',
      'status-update': 'statusUpdate',
      'artifact-update': 'artifactUpdate',
    };
    kind = kinds[String(result['kind'])];
    value = result;
  }
  if (kind === undefined || value === undefined) return undefined;
  switch (kind) {
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
  const raw = typeof status['state'] === 'string' ? status['state'] : '';
  const state = raw
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
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

/** A DataPart's data, a TextPart's text, a file part as it is. */
function partValue(version: A2aVersion, part: JsonObject): JsonValue {
  if (version === '1.0') {
    if ('data' in part) return part['data'] ?? null;
    if (typeof part['text'] === 'string') return part['text'];
    return part;
  }
  if (part['kind'] === 'data') {
    const data = part['data'] ?? null;
    const metadata = isObject(part['metadata']) ? part['metadata'] : {};
    return metadata[DATA_PART_WRAPPED] === true && isObject(data) && 'value' in data
      ? (data['value'] ?? null)
      : data;
  }
  if (part['kind'] === 'text' && typeof part['text'] === 'string') return part['text'];
  return isObject(part['file']) ? part['file'] : part;
}
