/**
 * Query strings as key/value pairs (draft §4.1: "URL-encoded as key=value pairs"). Decoding follows what HTTP
 * servers do with such queries (`+` is a space, as in application/x-www-form-urlencoded), so the pairs a client
 * sees are the pairs the agent will see; encoding never writes `+` for a space, so it reads back either way.
 */
import { type CharClass, PCHAR, percentDecode, percentEncode } from './chars.js';

/** `raw` is the query as written (checked), found at `offset` of `input`. */
export function decodeQuery(raw: string, offset: number, input: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let at = offset;
  for (const piece of raw.split('&')) {
    if (piece !== '') {
      const eq = piece.indexOf('=');
      const key = eq < 0 ? piece : piece.slice(0, eq);
      const value = eq < 0 ? '' : piece.slice(eq + 1);
      pairs.push([
        percentDecode(key.replaceAll('+', ' '), at, input, 'query'),
        percentDecode(value.replaceAll('+', ' '), at + eq + 1, input, 'query'),
      ]);
    }
    at += piece.length + 1;
  }
  return pairs;
}

/** Query characters that stand for themselves inside a key or value. */
const QUERY_COMPONENT: CharClass = (c) =>
  (PCHAR(c) || c === '/' || c === '?') && c !== '&' && c !== '=' && c !== '+';

export function encodeQuery(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs
    .map(([key, value]) => `${percentEncode(key, QUERY_COMPONENT)}=${percentEncode(value, QUERY_COMPONENT)}`)
    .join('&');
}
