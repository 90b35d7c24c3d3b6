/** Small helpers for JSON values from the wire. */
import type { JsonValue } from '@agentry/core';

export { isObject } from '@agentry/core';

/** Parses JSON text; undefined when it is not JSON. */
export function tryParseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** True for `application/json`, `application/problem+json`, `application/woa+json`... */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  return isJsonType(mediaTypeOf(contentType));
}

/** `isJsonMediaType` for a media type already without parameters and lower-cased. */
export function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json') || type === 'text/json';
}

/** The media type without parameters, lower-cased. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  if (!contentType) return '';
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}
