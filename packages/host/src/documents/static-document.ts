/**
 * A document the host serves as it was built: immutable bytes per media type, a strong ETag per representation
 * (a hash of the media type and the bytes), `Last-Modified` and `Cache-Control`. routes/documents.ts answers GETs
 * of it, conditional ones included.
 */
import { createHash } from 'node:crypto';

export interface Representation {
  readonly mediaType: string;
  readonly body: Uint8Array;
  readonly etag: string;
}

export interface StaticDocument {
  /** The first is the default; several mean the media type is negotiated (`Vary: Accept`). */
  readonly representations: readonly Representation[];
  readonly lastModified: Date;
  readonly cacheControl: string;
}

const encoder = new TextEncoder();

export function representation(mediaType: string, content: string | Uint8Array): Representation {
  const body = typeof content === 'string' ? encoder.encode(content) : content;
  const hash = createHash('sha256').update(mediaType).update('\n').update(body).digest('base64url');
  return { mediaType, body, etag: `"${hash.slice(0, 32)}"` };
}

export function jsonDocument(
  value: unknown,
  mediaTypes: readonly string[],
  lastModified: Date,
  cacheControl: string,
): StaticDocument {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  return {
    representations: mediaTypes.map((mediaType) => representation(mediaType, text)),
    lastModified,
    cacheControl,
  };
}
