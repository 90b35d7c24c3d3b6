/**
 * The two wire dialects of A2A JSON-RPC, in one place for both ends: the client writes requests and reads answers
 * with them, the host reads requests and writes answers.
 *
 * - v1.0 writes protobuf JSON: parts are `{text}` / `{data}` / `{raw}` / `{url}`, roles and states are enum names
 *   (`ROLE_USER`, `TASK_STATE_COMPLETED`), and results are wrapped by what they are (`{task}`, `{message}`,
 *   `{statusUpdate}`, `{artifactUpdate}`).
 * - v0.3 writes every object with a `kind` (`{kind: 'data', data}`, `'status-update'`), lower-case roles and
 *   states, and a DataPart's `data` must be an object: other JSON values travel as `{value}` marked
 *   `data_part_compat` in the part's metadata, the convention `@a2a-js/sdk`'s v0.3 layer reads.
 *
 * A card's or binding's `protocolVersion` picks the dialect (1.x: v1.0; 0.x or none: v0.3, as A2A reads a missing
 * `A2A-Version`). Pure: no I/O.
 */
import { isObject } from '../../json/values.js';
import type { JsonObject, JsonValue } from '../../model/agent.js';

export type A2aWireVersion = '1.0' | '0.3';

/** The methods both ends use, by wire version. */
export const A2A_METHODS = {
  '1.0': { send: 'SendMessage', stream: 'SendStreamingMessage', get: 'GetTask', cancel: 'CancelTask' },
  '0.3': { send: 'message/send', stream: 'message/stream', get: 'tasks/get', cancel: 'tasks/cancel' },
} as const;

/** The metadata flag of a v0.3 DataPart whose `data` wraps a non-object value as `{value}`. */
export const A2A_DATA_PART_WRAPPED = 'data_part_compat';

/** What a result (of a send, or an event of a stream) is. */
export type A2aResultKind = 'task' | 'message' | 'statusUpdate' | 'artifactUpdate';

/** A part as read: its text, its JSON value (unwrapped), or a file, which operations do not take. */
export type A2aPart = { kind: 'text'; text: string } | { kind: 'data'; data: JsonValue } | { kind: 'file' };

/** The dialect a `protocolVersion` names: 1.x is v1.0; 0.x, none or one that is not a number is v0.3. */
export function a2aWireVersionOf(protocolVersion: string | undefined): A2aWireVersion {
  const major = Number.parseInt(protocolVersion ?? '0', 10);
  return Number.isFinite(major) && major >= 1 ? '1.0' : '0.3';
}

/** A message's role as the dialect writes it. */
export function a2aRole(version: A2aWireVersion, role: 'user' | 'agent'): string {
  return version === '1.0' ? `ROLE_${role.toUpperCase()}` : role;
}

/** A task state (`completed`, `input-required`) as the dialect writes it (`TASK_STATE_COMPLETED`, `completed`). */
export function a2aStateName(version: A2aWireVersion, state: string): string {
  return version === '1.0' ? `TASK_STATE_${state.toUpperCase().replace(/-/g, '_')}` : state;
}

/** A state as either dialect writes it, read back: `TASK_STATE_INPUT_REQUIRED` and `input-required` alike. */
export function a2aStateOf(raw: string): string {
  return raw
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** A DataPart carrying `value`. */
export function a2aDataPart(version: A2aWireVersion, value: JsonValue): JsonObject {
  if (version === '1.0') return { data: value, mediaType: 'application/json' };
  if (isObject(value)) return { kind: 'data', data: value };
  return { kind: 'data', data: { value }, metadata: { [A2A_DATA_PART_WRAPPED]: true } };
}

/** A part read: undefined when it is none the dialect knows (or a v0.3 TextPart without text). */
export function readA2aPart(version: A2aWireVersion, part: JsonObject): A2aPart | undefined {
  if (version === '1.0') {
    if (typeof part['text'] === 'string') return { kind: 'text', text: part['text'] };
    if ('data' in part) return { kind: 'data', data: part['data'] ?? null };
    if ('raw' in part || 'url' in part) return { kind: 'file' };
    return undefined;
  }
  switch (part['kind']) {
    case 'text':
      return typeof part['text'] === 'string' ? { kind: 'text', text: part['text'] } : undefined;
    case 'data': {
      const data = part['data'] ?? null;
      const metadata = isObject(part['metadata']) ? part['metadata'] : {};
      const wrapped = metadata[A2A_DATA_PART_WRAPPED] === true && isObject(data) && 'value' in data;
      return { kind: 'data', data: wrapped ? (data['value'] ?? null) : data };
    }
    case 'file':
      return { kind: 'file' };
    default:
      return undefined;
  }
}

const V03_KINDS: Readonly<Record<A2aResultKind, string>> = {
  message: 'message',
  task: 'task',
  statusUpdate: 'status-update',
  artifactUpdate: 'artifact-update',
};

/** An object of the kind named (`message`, `task`, `status-update`…): v0.3 writes the `kind` first; v1.0 none. */
export function a2aObject(version: A2aWireVersion, kind: string, members: JsonObject): JsonObject {
  return version === '1.0' ? members : { kind, ...members };
}

/** A result as the dialect writes it: v1.0 wraps it by what it is; v0.3 objects carry their own `kind`. */
export function a2aResult(version: A2aWireVersion, kind: A2aResultKind, value: JsonObject): JsonObject {
  return version === '1.0' ? { [kind]: value } : value;
}

/** What a result is, and the object itself; undefined when it is none of the four. */
export function readA2aResult(
  version: A2aWireVersion,
  result: JsonValue | undefined,
): { kind: A2aResultKind; value: JsonObject } | undefined {
  if (!isObject(result)) return undefined;
  for (const kind of Object.keys(V03_KINDS) as A2aResultKind[]) {
    if (version === '1.0') {
      const value = result[kind];
      if (isObject(value)) return { kind, value };
    } else if (result['kind'] === V03_KINDS[kind]) return { kind, value: result };
  }
  return undefined;
}
