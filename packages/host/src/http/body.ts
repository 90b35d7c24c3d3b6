/**
 * Reading request bodies with a bound: a `Content-Length` over the limit is refused before anything is read, and
 * a body without one is counted as it arrives and abandoned the moment it passes the limit, so no caller can make
 * the host buffer more than `limit` bytes.
 */

import type { Problem } from '../errors.js';
import { problem } from '../errors.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export type BodyText = { ok: true; text: string } | { ok: false; problem: Problem };

export async function readBodyText(request: Request, limit: number): Promise<BodyText> {
  if (declaresMoreThan(request.headers.get('content-length'), limit)) {
    await request.body?.cancel().catch(() => {});
    return { ok: false, problem: tooLarge(limit) };
  }
  if (request.body === null) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return { ok: false, problem: tooLarge(limit) };
      }
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return decodedBody(bytes);
}

/** Whether a `Content-Length` value announces a body over the limit (then nothing of it need be read). */
export function declaresMoreThan(declared: string | null | undefined, limit: number): boolean {
  return (
    declared !== null && declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) > limit
  );
}

// A fatal decoder keeps no state between whole-buffer decodes, so one serves every request.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A whole body as text: UTF-8 (a leading byte order mark dropped), else a 400. */
export function decodedBody(bytes: Uint8Array): BodyText {
  try {
    return { ok: true, text: utf8.decode(bytes) };
  } catch {
    return {
      ok: false,
      problem: problem({
        status: 400,
        code: 'InvalidEncoding',
        title: 'Bad request',
        detail: 'The request body is not valid UTF-8.',
      }),
    };
  }
}

export function tooLarge(limit: number): Problem {
  return problem({
    status: 413,
    code: 'PayloadTooLarge',
    title: 'Content too large',
    detail: `The request body is larger than this host accepts (${limit} bytes).`,
    limit,
  });
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaTypeOf(header: string | null): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** JSON and every `+json` type. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.-]+\+json$/.test(mediaType);
}
