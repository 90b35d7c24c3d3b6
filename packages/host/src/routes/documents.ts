/**
 * The discovery documents' route: a GET or HEAD of a document the host built (documents/static-document.ts) is
 * answered with the representation the `Accept` header prefers, its strong ETag, `Last-Modified` and
 * `Cache-Control`, and the conditional-request rules of RFC 9110 §13 (`If-None-Match` first, else
 * `If-Modified-Since`) answering 304 when the caller's copy is current.
 */
import type { StaticDocument } from '../documents/static-document.js';
import { negotiate } from '../http/accept.js';
import type { Answer } from '../http/answer.js';

/** The answer to a GET or HEAD of `document`. */
export function serveDocument(
  document: StaticDocument,
  request: { readonly method: string; readonly headers: Headers },
): Answer {
  const negotiated = document.representations.length > 1;
  const offered = document.representations.map((item) => item.mediaType);
  // An Accept no representation satisfies still gets the default: documents are read by many kinds of client.
  const chosenType = negotiated
    ? (negotiate(request.headers.get('accept'), offered) ?? offered[0])
    : offered[0];
  const chosen = document.representations.find((item) => item.mediaType === chosenType)!;
  const headers: [string, string][] = [
    ['etag', chosen.etag],
    ['last-modified', document.lastModified.toUTCString()],
    ['cache-control', document.cacheControl],
    // Discovery documents are public: any web page may read them.
    ['access-control-allow-origin', '*'],
    ['x-content-type-options', 'nosniff'],
  ];
  if (negotiated) headers.push(['vary', 'Accept']);
  if (isNotModified(request.headers, chosen.etag, document.lastModified)) {
    return { status: 304, headers, body: null };
  }
  headers.push(['content-type', withCharset(chosen.mediaType)]);
  headers.push(['content-length', String(chosen.body.byteLength)]);
  const body = request.method === 'HEAD' ? null : chosen.body;
  return { status: 200, headers, body };
}

/** RFC 9110 §13.1.2/§13.1.3: If-None-Match (weak comparison) wins over If-Modified-Since. */
export function isNotModified(headers: Headers, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    if (ifNoneMatch.trim() === '*') return true;
    const opaque = etag.replace(/^W\//, '');
    return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
  }
  const ifModifiedSince = headers.get('if-modified-since');
  if (ifModifiedSince === null) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  // HTTP dates have whole seconds.
  return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

function withCharset(mediaType: string): string {
  return mediaType.startsWith('text/') ? `${mediaType}; charset=utf-8` : mediaType;
}
