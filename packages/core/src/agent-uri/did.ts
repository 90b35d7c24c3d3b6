/**
 * DID authorities (`agent://did:web:example.com:agent:researcher/...`, draft §4, §10). The syntax is W3C DID Core
 * §3.1: `did:` method-name `:` method-specific-id, where method names are lowercase letters and digits and the id
 * is colon-separated runs of ALPHA / DIGIT / `.` / `-` / `_` / percent-encodings, not ending in a colon.
 */
import { checkChars, isAlphaDigit } from './chars.js';
import { AgentUriError } from './errors.js';
import type { Did } from './types.js';

const METHOD_CHAR = /^[a-z0-9]$/;
const ID_CHAR = (char: string): boolean => isAlphaDigit(char) || char === '.' || char === '-' || char === '_';
const ID_OR_COLON = (char: string): boolean => ID_CHAR(char) || char === ':';

/** True when an authority's host part is written as a DID (checked case-insensitively, to report `DID:`). */
export function looksLikeDid(text: string): boolean {
  return text.slice(0, 4).toLowerCase() === 'did:';
}

/** The characters a DID's percent-encoding normalisation may decode (its idchar set; `~` would not be valid). */
export const DID_DECODABLE = ID_CHAR;

/** Parses the DID at `offset` of `input`, or throws an error about the host. */
export function parseDid(text: string, offset: number, input: string): Did {
  if (!text.startsWith('did:')) {
    throw new AgentUriError(
      `The DID at offset ${offset} must start with lowercase 'did:' (DID Core §3.1), not '${text.slice(0, 4)}'.`,
      'host',
      offset,
      input,
    );
  }
  const methodEnd = text.indexOf(':', 4);
  const method = methodEnd < 0 ? text.slice(4) : text.slice(4, methodEnd);
  if (method === '') {
    throw new AgentUriError(
      `The DID at offset ${offset} has no method name (did:<method>:<id>).`,
      'host',
      offset + 4,
      input,
    );
  }
  for (let i = 0; i < method.length; i++) {
    if (!METHOD_CHAR.test(method[i]!)) {
      throw new AgentUriError(
        `DID method names are lowercase letters and digits; '${method[i]}' at offset ${offset + 4 + i} is not one.`,
        'host',
        offset + 4 + i,
        input,
      );
    }
  }
  if (methodEnd < 0) {
    throw new AgentUriError(
      `The DID at offset ${offset} has no method-specific identifier after 'did:${method}' (did:<method>:<id>).`,
      'host',
      offset + text.length,
      input,
    );
  }
  const id = text.slice(methodEnd + 1);
  const idOffset = offset + methodEnd + 1;
  checkChars(id, idOffset, input, 'host', ID_OR_COLON);
  if (id === '' || id.endsWith(':')) {
    throw new AgentUriError(
      `The DID's method-specific identifier at offset ${idOffset} must not be empty or end with ':' (DID Core §3.1).`,
      'host',
      idOffset + id.length,
      input,
    );
  }
  return { method, id };
}
