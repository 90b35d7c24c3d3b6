/**
 * Percent-encoding for untrusted text. `encodeURIComponent` throws a URIError on a lone surrogate (half of a UTF-16
 * pair, which JSON text can carry as `"\ud800"`), so an agent id or operation name of that kind crashed whatever
 * built a URL from it. Here a lone surrogate is written as U+FFFD, the replacement character, as the WHATWG URL
 * parser writes it; well-formed text is encoded exactly as `encodeURIComponent` encodes it.
 */

/** A lone high surrogate (no low one after it) or a lone low surrogate (no high one before it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with each lone surrogate replaced by U+FFFD (what `String.prototype.toWellFormed` does). */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** `encodeURIComponent` that never throws: lone surrogates are encoded as U+FFFD (`%EF%BF%BD`). */
export function encodeUriComponentSafe(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(wellFormedText(text));
  }
}

/** `decodeURIComponent` that never throws: undefined for malformed percent-encoding (`%zz`, `%ED%A0%80`). */
export function decodeUriComponentSafe(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
