/**
 * Encoding an operation's input for a plain HTTP endpoint: query parameters for GET (AWP actions, agent:// §6.2's
 * "GET without a payload"), otherwise a body in the endpoint's media type (TD form `contentType`, JSON by default).
 */
import { AgentryError, type AgentryErrorCode, type JsonValue } from '@agentry/core';
import { isJsonMediaType, isObject, mediaTypeOf } from '../json.js';

export class InputEncodingError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'InvalidInput';
  override readonly name = 'InputEncodingError';
}

/**
 * The input's members as query parameters: scalars as text, arrays as repeated parameters, objects as JSON text.
 * `null` members are left out. A GET endpoint needs an object (or nothing) as input.
 */
export function queryFromInput(input: JsonValue | undefined): Record<string, string[]> {
  if (input === undefined || input === null) return {};
  if (!isObject(input)) {
    throw new InputEncodingError(
      `A GET endpoint takes its input as query parameters, so the input must be an object; got ${Array.isArray(input) ? 'an array' : `a ${typeof input}`}.`,
    );
  }
  const query: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === null) continue;
    const items = Array.isArray(value) ? value : [value];
    query[name] = items.filter((item) => item !== null).map(scalarText);
  }
  return query;
}

function scalarText(value: JsonValue): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The request body for `input` in `contentType` (default `application/json`). */
export function encodeBody(
  input: JsonValue,
  contentType: string | undefined,
): { body: string; contentType: string } {
  const type = contentType ?? 'application/json';
  const media = mediaTypeOf(type);
  if (isJsonMediaType(type)) return { body: JSON.stringify(input), contentType: type };
  if (media === 'application/x-www-form-urlencoded' && isObject(input)) {
    const form = new URLSearchParams();
    for (const [name, values] of Object.entries(queryFromInput(input))) {
      for (const value of values) form.append(name, value);
    }
    return { body: form.toString(), contentType: type };
  }
  // Text (and media types Agentry cannot encode to): a string input is the body itself, anything else its JSON.
  return { body: typeof input === 'string' ? input : JSON.stringify(input), contentType: type };
}
