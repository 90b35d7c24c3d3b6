/** Test helpers shared by the core tests. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root. */
export const repoRoot = resolve(here, '../../..');

/** `../shared` beside the checkout (CI puts it there); tests read specs and corpora from it, never copy them. */
export const sharedDir = resolve(repoRoot, '../shared');

export function sharedPath(...parts: string[]): string {
  return join(sharedDir, ...parts);
}

export function readSharedText(...parts: string[]): string {
  return readFileSync(sharedPath(...parts), 'utf8');
}

export function readSharedJson(...parts: string[]): unknown {
  return JSON.parse(readSharedText(...parts));
}

/** A vector file of this package's tests, parsed. */
export function readVector<T>(name: string): T {
  return JSON.parse(readFileSync(join(here, 'vectors', name), 'utf8')) as T;
}

export function listFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...listFiles(path, suffix));
    else if (entry.endsWith(suffix)) out.push(path);
  }
  return out.sort();
}

/**
 * Extracts the JSON example that follows `marker` in a spec text: from the first `{` after the marker to its
 * matching `}`. Specs are read from ../shared, so tests check the spec's own examples without copying them.
 */
export function extractJsonAfter(text: string, marker: string, from = 0): string {
  const at = text.indexOf(marker, from);
  if (at < 0) throw new Error(`marker not found in spec: ${marker}`);
  const start = text.indexOf('{', at + marker.length);
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  throw new Error(`unbalanced JSON after marker: ${marker}`);
}

/** The parts of issues a test compares: what rule, where, how severe (messages are for people, not assertions). */
export function issueSummary(
  issues: ReadonlyArray<{ code: string; pointer: string; severity: string }>,
): Array<{ code: string; pointer: string; severity: string }> {
  return issues.map(({ code, pointer, severity }) => ({ code, pointer, severity }));
}

/** The issues that make a document invalid. */
export function errorsOf<T extends { severity: string }>(issues: readonly T[]): T[] {
  return issues.filter((issue) => issue.severity === 'error');
}
