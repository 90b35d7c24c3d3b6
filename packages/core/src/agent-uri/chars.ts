/**
 * RFC 3986 character classes (§2) and percent-encoding: validation with offsets, strict UTF-8 decoding, encoding
 * and the §6.2.2 normalisations (uppercase hex, decode unreserved characters). Pure string work, no platform APIs
 * beyond TextEncoder/TextDecoder, so core stays runnable in browsers and edge runtimes.
 */
import { AgentUriError, type AgentUriPart, describeChar } from './errors.js';

const ALPHA_DIGIT = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UNRESERVED = new Set(`${ALPHA_DIGIT}-._~`);
const SUB_DELIMS = new Set("!$&'()*+,;=");

export function isUnreserved(char: string): boolean {
  return UNRESERVED.has(char);
}

export function isAlphaDigit(char: string): boolean {
  return char.length === 1 && ALPHA_DIGIT.includes(char);
}

/** Characters (besides percent-encoded octets) each part may contain. */
export type CharClass = (char: string) => boolean;

const subDelimOrUnreserved: CharClass = (c) => UNRESERVED.has(c) || SUB_DELIMS.has(c);
export const REG_NAME: CharClass = subDelimOrUnreserved;
export const USERINFO: CharClass = (c) => subDelimOrUnreserved(c) || c === ':';
export const PCHAR: CharClass = (c) => subDelimOrUnreserved(c) || c === ':' || c === '@';
export const PATH: CharClass = (c) => PCHAR(c) || c === '/';
export const QUERY: CharClass = (c) => PCHAR(c) || c === '/' || c === '?';
export const FRAGMENT: CharClass = QUERY;

const PART_NAMES: Record<AgentUriPart, string> = {
  scheme: 'scheme',
  protocol: 'protocol',
  authority: 'authority',
  userinfo: 'userinfo',
  host: 'host',
  port: 'port',
  path: 'path',
  query: 'query',
  fragment: 'fragment',
};

export function isHexDigit(char: string | undefined): boolean {
  return char !== undefined && /^[0-9A-Fa-f]$/.test(char);
}

/**
 * Checks that `text` (found at `offset` in `input`) has only characters of `allowed` and well-formed
 * percent-encodings, throwing an error that names the first offending character and its offset.
 */
export function checkChars(
  text: string,
  offset: number,
  input: string,
  part: AgentUriPart,
  allowed: CharClass,
): void {
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '%') {
      if (!isHexDigit(text[i + 1]) || !isHexDigit(text[i + 2])) {
        throw new AgentUriError(
          `'%' at offset ${offset + i} in the ${PART_NAMES[part]} must start a percent-encoding of two hex digits (write '%25' for a literal '%').`,
          part,
          offset + i,
          input,
        );
      }
      i += 2;
      continue;
    }
    if (!allowed(char)) {
      const full = String.fromCodePoint(text.codePointAt(i) ?? 0);
      throw new AgentUriError(
        `${describeChar(full)} at offset ${offset + i} is not allowed in the ${PART_NAMES[part]}; ${hintFor(full)}.`,
        part,
        offset + i,
        input,
      );
    }
  }
}

function hintFor(char: string): string {
  const encoded = encodeUtf8(char);
  return `percent-encode it as ${encoded}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Percent-encodes every character of `text` that `keep` does not accept (UTF-8, uppercase hex). */
export function percentEncode(text: string, keep: CharClass): string {
  let out = '';
  for (const char of text) {
    out += keep(char) && char !== '%' ? char : encodeUtf8(char);
  }
  return out;
}

function encodeUtf8(char: string): string {
  let out = '';
  for (const byte of encoder.encode(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/**
 * Decodes percent-encodings in `text` (already checked by `checkChars`). Octets that are not UTF-8 are an error
 * at the offset of the run of encodings they belong to: agent URIs carry text.
 */
export function percentDecode(text: string, offset: number, input: string, part: AgentUriPart): string {
  if (!text.includes('%')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '%') {
      out += text[i];
      i++;
      continue;
    }
    const start = i;
    const bytes: number[] = [];
    while (text[i] === '%') {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    }
    try {
      out += decoder.decode(new Uint8Array(bytes));
    } catch {
      throw new AgentUriError(
        `The percent-encoded octets '${text.slice(start, i)}' at offset ${offset + start} in the ${PART_NAMES[part]} are not UTF-8 text.`,
        part,
        offset + start,
        input,
      );
    }
  }
  return out;
}

/**
 * RFC 3986 §6.2.2.1 and §6.2.2.2: uppercase the hex of percent-encodings and decode the ones that encode an
 * unreserved character (or, with `decodable`, a narrower set).
 */
export function normalizePercent(text: string, decodable: CharClass = isUnreserved): string {
  if (!text.includes('%')) return text;
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return decodable(char) ? char : `%${hex.toUpperCase()}`;
  });
}
