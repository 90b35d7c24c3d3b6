/** Successful responses: JSON bodies, and conditional GETs answered by a strong ETag over the exact bytes. */
import { createHash } from 'node:crypto';
import type { CachedAnswer } from './answer-cache.js';

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return textResponse(jsonAnswer(JSON.stringify(body), status, headers));
}

/** A JSON answer not to be cached by clients, as text: for the answer cache. */
export function jsonAnswer(body: string, status = 200, headers: Record<string, string> = {}): CachedAnswer {
  return {
    status,
    body,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  };
}

export function textResponse(answer: CachedAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * A representation that clients may cache and revalidate: 304 when `If-None-Match` names its ETag. Callers see
 * different representations (entitlements, owner-only members), so responses vary by `Authorization`.
 */
export function cacheableResponse(
  request: Request,
  body: string,
  mediaType: string,
  headers: Record<string, string> = {},
): Response {
  return conditionalResponse(request, cacheableAnswer(body, mediaType, headers));
}

/** The 200 answer of `cacheableResponse`, with its ETag, as text: for the answer cache. */
export function cacheableAnswer(
  body: string,
  mediaType: string,
  headers: Record<string, string> = {},
): CachedAnswer {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return {
    status: 200,
    body,
    headers: {
      'content-type': mediaType,
      etag,
      'cache-control': 'no-cache',
      vary: 'Authorization',
      ...headers,
    },
  };
}

/** The answer, or 304 without its body when `If-None-Match` names its ETag. */
export function conditionalResponse(request: Request, answer: CachedAnswer): Response {
  const etag = answer.headers['etag'];
  if (etag !== undefined && matchesEtag(request.headers.get('if-none-match'), etag)) {
    const { 'content-type': _type, ...headers } = answer.headers;
    return new Response(null, { status: 304, headers });
  }
  return textResponse(answer);
}

/** RFC 9110 §13.1.2: weak comparison, `*` matches any. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}
