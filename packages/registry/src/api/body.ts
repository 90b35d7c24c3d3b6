/**
 * Request bodies: JSON only, bounded while reading (a body past the limit is cut off there, never buffered
 * whole), and a syntax error says where (line and column) through core's JSON reader.
 */
import { type JsonValue, parseJsonText } from '@agentry/core';
import { problem } from './problems.js';

export type BodyResult = { ok: true; value: JsonValue } | { ok: false; response: Response };

export async function readJsonBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const type = request.headers.get('content-type');
  if (type !== null && !isJsonMediaType(type)) {
    return refuse(
      problem({
        status: 415,
        code: 'UnsupportedMediaType',
        title: 'Unsupported media type',
        detail: `The body must be JSON (application/json); got ${type}.`,
      }),
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return refuse(tooLarge(maxBytes));
  const bytes = await readBounded(request, maxBytes);
  if (bytes === undefined) return refuse(tooLarge(maxBytes));
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse(invalidJson('The body is not UTF-8 text.'));
  }
  if (text.trim() === '') return refuse(invalidJson('The body is empty; send a JSON document.'));
  const parsed = parseJsonText(text);
  if (!parsed.ok) return refuse(invalidJson(parsed.issue.message));
  return { ok: true, value: parsed.value };
}

/** The body, or undefined as soon as it grows past `maxBytes` (the rest is not read). */
async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Not cancelled: that would reset the connection before the 413 is sent. The server discards the rest.
      reader.releaseLock();
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function isJsonMediaType(value: string): boolean {
  const essence = value.split(';')[0]!.trim().toLowerCase();
  return essence === 'application/json' || essence.endsWith('+json');
}

function tooLarge(maxBytes: number): Response {
  return problem({
    status: 413,
    code: 'PayloadTooLarge',
    title: 'Payload too large',
    detail: `The body is larger than the ${maxBytes} bytes this registry accepts.`,
  });
}

function invalidJson(detail: string): Response {
  return problem({ status: 400, code: 'InvalidJson', title: 'Malformed JSON', detail, pointer: '' });
}

function refuse(response: Response): BodyResult {
  return { ok: false, response };
}
