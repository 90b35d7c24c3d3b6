/** JSON Pointer (RFC 6901) helpers. */

const NEEDS_ESCAPE = /[~/]/;

export function escapePointerToken(token: string | number): string {
  if (typeof token === 'number') return String(token);
  // Almost no key contains "~" or "/": skip the two replacements for those.
  return NEEDS_ESCAPE.test(token) ? token.replaceAll('~', '~0').replaceAll('/', '~1') : token;
}

/** `pointer('/agents', 0, 'id')` → `/agents/0/id`. */
export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  let out = base;
  for (const token of tokens) out += `/${escapePointerToken(token)}`;
  return out;
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`JSON pointer must start with "/": ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}
