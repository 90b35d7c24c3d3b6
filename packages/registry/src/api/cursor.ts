/**
 * Paging cursors: opaque to clients (base64url of JSON), holding the last sort key of the page (keyset paging),
 * so a walk never skips or repeats an agent when others are added or removed meanwhile. A search's ranking has
 * no stable key, so its cursor is an offset into the ranking.
 */

export type Cursor =
  | { kind: 'id'; after: string }
  | { kind: 'changes'; at: string; id: string }
  | { kind: 'search'; offset: number };

export function encodeCursor(cursor: Cursor): string {
  const payload =
    cursor.kind === 'id'
      ? { k: 'id', a: cursor.after }
      : cursor.kind === 'changes'
        ? { k: 'ch', t: cursor.at, a: cursor.id }
        : { k: 'q', o: cursor.offset };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The cursor, or undefined when the text is not one this registry made. */
export function decodeCursor(text: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(text)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null) return undefined;
  const fields = payload as Record<string, unknown>;
  if (fields['k'] === 'id' && typeof fields['a'] === 'string') return { kind: 'id', after: fields['a'] };
  if (fields['k'] === 'ch' && typeof fields['t'] === 'string' && typeof fields['a'] === 'string') {
    return { kind: 'changes', at: fields['t'], id: fields['a'] };
  }
  const offset = fields['o'];
  if (fields['k'] === 'q' && typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) {
    return { kind: 'search', offset };
  }
  return undefined;
}
