/**
 * The NDJSON messages of Agentry's WebSocket binding (docs/invocation.md "WebSocket messages"): reading a caller's
 * request message and writing `chunk`, `result` and `error` messages. A request is refused with a 400 problem that
 * says which member is wrong, carrying the request's `id` when it has a usable one.
 */
import { parseJsonText } from '@agentry/core';
import type { Problem } from '../../errors.js';
import { problems } from '../../errors.js';

export type MessageId = string | number;

export interface CallMessage {
  id: MessageId;
  /** The agent named by the message; absent when the connection's path names it. */
  agent?: string;
  operation?: string;
  input: unknown;
  stream: boolean;
  /** Metadata HTTP would carry in headers (`sessionId`, `taskId`, `version`, `idempotencyKey`, `delegationChain`, `callbackUrl`, `confirm`). */
  meta: Record<string, unknown>;
}

export type ParsedMessage =
  | { ok: true; message: CallMessage }
  | { ok: false; id: MessageId | null; problem: Problem };

const META_MEMBERS = [
  'sessionId',
  'taskId',
  'version',
  'idempotencyKey',
  'delegationChain',
  'callbackUrl',
] as const;
const MAX_ID_LENGTH = 200;

/** Reads one line of a request message. */
export function parseCallMessage(line: string): ParsedMessage {
  // core's reader refuses nesting past its limit too, before anything recurses into the message.
  const parsed = parseJsonText(line);
  if (!parsed.ok)
    return refused(
      null,
      `The message is not usable JSON (${parsed.issue.message}): send one JSON object per line.`,
    );
  const value: unknown = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refused(
      null,
      'The message must be a JSON object: {"id", "agent", "operation", "input", "stream"}.',
    );
  }
  const fields = value as Record<string, unknown>;
  const id = fields['id'];
  if (!isUsableId(id)) {
    return refused(null, `"id" must be a non-empty string or a number, unique for each call.`, '/id');
  }
  for (const member of ['agent', 'operation'] as const) {
    const text = fields[member];
    if (text !== undefined && (typeof text !== 'string' || text === '')) {
      return refused(id, `"${member}" must be a non-empty string.`, `/${member}`);
    }
  }
  const stream = fields['stream'];
  if (stream !== undefined && typeof stream !== 'boolean') {
    return refused(id, '"stream" must be true or false.', '/stream');
  }
  const meta: Record<string, unknown> = {};
  for (const member of META_MEMBERS) {
    const text = fields[member];
    if (text === undefined) continue;
    if (typeof text !== 'string') return refused(id, `"${member}" must be a string.`, `/${member}`);
    meta[member] = text;
  }
  const confirm = fields['confirm'];
  if (confirm !== undefined && typeof confirm !== 'boolean') {
    return refused(id, '"confirm" must be true or false.', '/confirm');
  }
  if (confirm !== undefined) meta['confirm'] = confirm;
  const message: CallMessage = { id, input: fields['input'] ?? null, stream: stream === true, meta };
  if (typeof fields['agent'] === 'string') message.agent = fields['agent'];
  if (typeof fields['operation'] === 'string') message.operation = fields['operation'];
  return { ok: true, message };
}

/** The JSON texts of a text frame: one per line, blank lines skipped (CRLF accepted). */
export function splitLines(text: string): string[] {
  return text.split(/\r?\n/).filter((line) => line.trim() !== '');
}

export function chunkMessage(id: MessageId, data: unknown): string {
  return line({ id, type: 'chunk', data: data ?? null });
}

export function resultMessage(id: MessageId, output: unknown): string {
  return line({ id, type: 'result', output: output ?? null });
}

export function errorMessage(id: MessageId | null, problem: Problem): string {
  return line({ id, type: 'error', error: problem });
}

/** A malformed message; `pointer` is into the message (`/agent`), not into the input. */
export function badRequest(detail: string, pointer?: string): Problem {
  return problems.badRequest('MalformedMessage', detail, pointer);
}

function refused(id: MessageId | null, detail: string, pointer?: string): ParsedMessage {
  return { ok: false, id, problem: badRequest(detail, pointer) };
}

function isUsableId(id: unknown): id is MessageId {
  if (typeof id === 'number') return Number.isFinite(id);
  return typeof id === 'string' && id !== '' && id.length <= MAX_ID_LENGTH;
}

function line(message: Record<string, unknown>): string {
  return `${JSON.stringify(message)}\n`;
}
