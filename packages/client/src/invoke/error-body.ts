/**
 * Reads what an agent says went wrong, whatever shape it uses: RFC 9457 problem details, the AIDIP error object
 * `{"error": {"code", "message"}}` (which Agentry's registry sends inside problem details), a JSON-RPC response's
 * `error` (MCP, A2A), a bare `{"error": "CODE"}` or `{"message": ...}`, or plain text. Never throws: a body that is
 * none of these still yields a `detail` a person can read.
 */
import { type JsonObject, type JsonValue, joinPointer } from '@agentry/core';
import type { AgentErrorDetails, SchemaFailure } from './errors.js';
import { isObject } from './json.js';

/** What an error body says, in the fields of `AgentErrorDetails` it can fill. */
export interface ErrorBody
  extends Pick<
    AgentErrorDetails,
    | 'status'
    | 'code'
    | 'title'
    | 'detail'
    | 'type'
    | 'instance'
    | 'pointer'
    | 'recovery'
    | 'failures'
    | 'body'
  > {
  /** The JSON-RPC error code, when the body was a JSON-RPC error. */
  jsonRpcCode?: number;
}

/** Longest stretch of a plain-text error body kept for messages. */
const MAX_TEXT = 500;
/** A code is a token (`RATE_LIMITED`, `InvalidInput`, `auth.expired`), not a sentence. */
const CODE_TOKEN = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;

/** Reads a JSON error value (a parsed body, a WebSocket error message, an SSE error event's data). */
export function readErrorValue(value: JsonValue): ErrorBody {
  if (!isObject(value)) {
    if (typeof value === 'string') return readErrorText(value);
    return { body: value };
  }
  const out: ErrorBody = { body: value };
  const error = value['error'];
  if (isObject(error) && typeof error['code'] === 'number' && 'message' in error) {
    readJsonRpcError(error, out);
  } else if (isObject(error)) {
    readAidipError(error, out);
  } else if (typeof error === 'string') {
    if (CODE_TOKEN.test(error)) out.code = error;
    else out.detail = error;
  }
  // Problem members say it best; they override what an embedded error object said.
  readProblemMembers(value, out);
  return out;
}

/** Reads a body that is not JSON. */
export function readErrorText(text: string): ErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (/^<(?:!doctype|html)/i.test(trimmed)) return { detail: 'the agent answered with an HTML page' };
  return { detail: trimmed.length > MAX_TEXT ? `${trimmed.slice(0, MAX_TEXT)}…` : trimmed };
}

/** Reads a response body by its media type, falling back to sniffing JSON when the type is missing or wrong. */
export function readErrorBody(text: string, contentType: string | null): ErrorBody {
  const trimmed = text.trim();
  const looksJson = trimmed.startsWith('{') || trimmed.startsWith('[');
  if (looksJson || (contentType !== null && /json/i.test(contentType))) {
    try {
      return readErrorValue(JSON.parse(trimmed) as JsonValue);
    } catch {
      // Declared JSON but is not: fall through to text, which at least shows what came back.
    }
  }
  return readErrorText(text);
}

function readJsonRpcError(error: JsonObject, out: ErrorBody): void {
  const code = error['code'] as number;
  out.jsonRpcCode = code;
  out.code = String(code);
  if (typeof error['message'] === 'string') out.detail = error['message'];
  // Servers put structured detail in `data`: a problem object, an AIDIP error, or a string. A2A v1.0 puts a list
  // of details there (`google.rpc.ErrorInfo` and the like); a problem among them says the most.
  const data = Array.isArray(error['data']) ? detailOf(error['data']) : error['data'];
  if (isObject(data)) {
    const inner = readErrorValue(data);
    if (inner.detail !== undefined) out.detail = inner.detail;
    if (inner.pointer !== undefined) out.pointer = inner.pointer;
    if (inner.failures !== undefined) out.failures = inner.failures;
    if (inner.status !== undefined) out.status = inner.status;
    if (inner.code !== undefined && inner.jsonRpcCode === undefined) out.code = inner.code;
  } else if (typeof data === 'string' && data.trim() !== '') {
    out.detail = out.detail === undefined ? data : `${out.detail}: ${data}`;
  }
}

/** The most telling entry of a list of error details: a problem (it has a `status` or `title`), else the first object. */
function detailOf(details: JsonValue[]): JsonObject | undefined {
  const objects = details.filter(isObject);
  return (
    objects.find((entry) => typeof entry['status'] === 'number' || typeof entry['title'] === 'string') ??
    objects[0]
  );
}

function readAidipError(error: JsonObject, out: ErrorBody): void {
  const code = error['code'];
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
  if (typeof error['message'] === 'string') out.detail = error['message'];
  else if (typeof error['detail'] === 'string') out.detail = error['detail'];
  const pointer = pointerOf(error);
  if (pointer !== undefined) out.pointer = pointer;
  if (typeof error['recovery'] === 'string') out.recovery = error['recovery'];
}

function readProblemMembers(value: JsonObject, out: ErrorBody): void {
  for (const key of ['type', 'title', 'detail', 'instance'] as const) {
    const member = value[key];
    if (typeof member === 'string') out[key] = member;
  }
  if (out.detail === undefined && typeof value['message'] === 'string') out.detail = value['message'];
  const status = value['status'];
  if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) {
    out.status = status;
  }
  const code = value['code'] ?? value['error_code'] ?? value['errorCode'];
  if ((typeof code === 'string' && code !== '') || typeof code === 'number') out.code = String(code);
  const pointer = pointerOf(value);
  if (pointer !== undefined) out.pointer = pointer;
  if (typeof value['recovery'] === 'string') out.recovery = value['recovery'];
  // RFC 9457 §3's example extension: `errors: [{detail, pointer}]`, one per invalid member.
  const errors = value['errors'];
  if (Array.isArray(errors)) {
    const failures = errors.filter(isObject).map(failureOf);
    if (failures.length > 0) {
      out.failures = failures;
      out.pointer ??= failures[0]!.pointer;
    }
  }
}

function failureOf(entry: JsonObject): SchemaFailure {
  const message = entry['detail'] ?? entry['message'];
  const failure: SchemaFailure = {
    pointer: pointerOf(entry) ?? '',
    message: typeof message === 'string' ? message : 'invalid',
  };
  if (typeof entry['keyword'] === 'string') failure.keyword = entry['keyword'];
  return failure;
}

/** `pointer` (RFC 9457 examples), or `field` / `param` named as a top-level member of the input. */
function pointerOf(value: JsonObject): string | undefined {
  const pointer = value['pointer'];
  if (typeof pointer === 'string' && (pointer === '' || pointer.startsWith('/'))) return pointer;
  if (typeof pointer === 'string' && pointer.startsWith('#/')) return pointer.slice(1);
  const field = value['field'] ?? value['param'];
  if (typeof field === 'string' && field !== '') return joinPointer('', field);
  return undefined;
}
