/**
 * The nesting limit for untrusted JSON. Codecs, validators and scans walk documents recursively, and a megabyte of
 * `[` nests half a million deep: far past any stack. No agent description needs more than a few dozen levels, so a
 * document nested deeper than MAX_JSON_DEPTH is refused with an issue that says where, before anything recurses.
 * Both checks here are iterative, so the depth they measure cannot overflow them.
 */
import type { ValidationIssue } from '../issues.js';
import { escapePointerToken } from './pointer.js';

/** Objects and arrays inside one another: `[[1]]` nests 2 deep. */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether a tree of plain data (what JSON.parse returns: no container appears twice) nests past `maxDepth`. The
 * fast check for parsed text; pathPastDepth says where, and also handles values built in code.
 */
export function treeNestsPast(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'object' && item !== null) {
          nodes.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const member: unknown = (node as Record<string, unknown>)[key];
        if (typeof member === 'object' && member !== null) {
          nodes.push(member);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** Roots parseJsonText returned after checking their depth: a codec need not walk them again. */
const checkedRoots = new WeakSet<object>();

/** Marks `value` (parsed from text, checked) as within the limit. */
export function markChecked(value: unknown): void {
  if (typeof value === 'object' && value !== null) checkedRoots.add(value);
}

/**
 * The path past the limit in a document a codec is handed, or undefined. Roots parseJsonText checked are not
 * walked again (a caller that deepens a parsed value in code is trusted with it).
 */
export function documentPathPastDepth(value: unknown): Array<string | number> | undefined {
  if (typeof value === 'object' && value !== null && checkedRoots.has(value)) return undefined;
  return pathPastDepth(value);
}

/** The path of the first container nested deeper than `maxDepth` in `value`, or undefined when none is. */
export function pathPastDepth(
  value: unknown,
  maxDepth: number = MAX_JSON_DEPTH,
): Array<string | number> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // Each entry: a container, its depth, and the key that leads to it from its parent (for the path).
  const pending: Array<{ node: object; depth: number; key: string | number; parent: number }> = [
    { node: value, depth: 1, key: '', parent: -1 },
  ];
  // Entries stay in `visited` so a path can be rebuilt from parent indexes; each container is visited once.
  const visited: Array<{ key: string | number; parent: number }> = [];
  const deepestSeen = new Map<object, number>();
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const index = visited.push({ key: entry.key, parent: entry.parent }) - 1;
    if (entry.depth > maxDepth) return pathTo(visited, index);
    // A value built in code may share a container between places: walk it again only where it sits deeper (a
    // cycle sits ever deeper, so it ends past the limit rather than looping).
    const seenAt = deepestSeen.get(entry.node);
    if (seenAt !== undefined && seenAt >= entry.depth) continue;
    deepestSeen.set(entry.node, entry.depth);
    if (Array.isArray(entry.node)) {
      const items = entry.node as unknown[];
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (typeof item === 'object' && item !== null)
          pending.push({ node: item, depth: entry.depth + 1, key: i, parent: index });
      }
    } else {
      const record = entry.node as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = keys.length - 1; i >= 0; i--) {
        const member = record[keys[i]!];
        if (typeof member === 'object' && member !== null)
          pending.push({ node: member, depth: entry.depth + 1, key: keys[i]!, parent: index });
      }
    }
  }
  return undefined;
}

function pathTo(visited: ReadonlyArray<{ key: string | number; parent: number }>, index: number) {
  const path: Array<string | number> = [];
  for (let at = index; visited[at]!.parent !== -1; at = visited[at]!.parent) path.push(visited[at]!.key);
  return path.reverse();
}

/** Pointers past this many tokens are cut (`/…`): the message must stay readable. */
const SHOWN_TOKENS = 12;

/** The issue for a value nested past the limit at `path`. */
export function depthIssue(
  path: ReadonlyArray<string | number>,
  maxDepth: number = MAX_JSON_DEPTH,
): ValidationIssue {
  const tokens = path.map((token) => `/${escapePointerToken(token)}`);
  const shown =
    tokens.length > SHOWN_TOKENS ? `${tokens.slice(0, SHOWN_TOKENS).join('')}/…` : tokens.join('');
  return {
    severity: 'error',
    pointer: tokens.slice(0, maxDepth).join(''),
    code: 'json.depth',
    message: `Nesting deeper than ${maxDepth} levels at ${shown || '/'}: objects and arrays may nest at most ${maxDepth} deep; flatten the document.`,
  };
}

/**
 * The offset in JSON `text` where nesting first passes `maxDepth`, or undefined. Counts brackets outside strings;
 * for text JSON.parse refused, so that the tolerant parser that locates syntax errors (recursive) is spared it.
 */
export function offsetPastDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // Skip the string: the next quote not escaped by an odd run of backslashes.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c) i++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > maxDepth) return i;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return undefined;
}
