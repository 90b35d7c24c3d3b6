/** Successful responses: JSON bodies, and conditional GETs answered by a strong ETag over the exact bytes. */
import { createHash } from 'node:crypto';

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
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
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  const common = { etag, 'cache-control': 'no-cache', vary: 'Authorization', ...headers };
  if (matchesEtag(request.headers.get('if-none-match'), etag))
    return new Response(null, { status: 304, headers: common });
  return new Response(body, { status: 200, headers: { 'content-type': mediaType, ...common } });
}

/** RFC 9110 §13.1.2: weak comparison, `*` matches any. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}
