/**
 * Finds the patterns of a schema (`pattern`, the keys of `patternProperties`) that the linear-time engine cannot
 * run (linear-regexp.ts: backreferences, lookaround, overlong patterns), by a linear scan: a codec reports each as
 * an issue when it reads the schema, so a publisher hears of it before a host, client or registry fails to compile
 * the schema, and reading a document never compiles its patterns (that costs milliseconds each). Validators that
 * compile a stranger's schema check its total pattern length first (assertPatternBudget).
 * The walk follows subschema keywords only (a `pattern` inside `const` or `examples` is data) and is iterative, so
 * no nesting depth can overflow the stack.
 */

import { joinPointer } from '../json/pointer.js';
import { patternSyntaxProblem } from './linear-regexp.js';
import {
  DRAFT_07_SCHEMA_ARRAY_KEYWORDS,
  DRAFT_07_SCHEMA_KEYWORDS,
  DRAFT_07_SCHEMA_MAP_KEYWORDS,
  SCHEMA_ARRAY_KEYWORDS as SUBSCHEMA_ARRAY_KEYWORDS,
  SCHEMA_KEYWORDS as SUBSCHEMA_KEYWORDS,
  SCHEMA_MAP_KEYWORDS as SUBSCHEMA_MAP_KEYWORDS,
} from './subschema-keywords.js';

export interface PatternProblem {
  /** JSON pointer of the pattern, relative to the schema. */
  pointer: string;
  /** What is wrong with it, in words. */
  message: string;
}

/** Every place a subschema can be, in 2020-12 and in draft-07's forms (`items` as a tuple, `dependencies`). */
const SCHEMA_KEYWORDS = [...SUBSCHEMA_KEYWORDS, ...DRAFT_07_SCHEMA_KEYWORDS];
const SCHEMA_ARRAY_KEYWORDS = [...SUBSCHEMA_ARRAY_KEYWORDS, ...DRAFT_07_SCHEMA_ARRAY_KEYWORDS];
/** `dependencies` members that are lists are skipped. */
const SCHEMA_MAP_KEYWORDS = [...SUBSCHEMA_MAP_KEYWORDS, ...DRAFT_07_SCHEMA_MAP_KEYWORDS];

/** Why `pattern` cannot run, found by a linear scan (compiling is left to validators), or undefined. */
export function patternProblem(pattern: string): string | undefined {
  return patternSyntaxProblem(pattern);
}

/**
 * Compiling a pattern costs time in its length (about 0.1 ms a character for the heaviest), so a schema may carry
 * at most this many characters of patterns: a validator compiling a stranger's schema does bounded work.
 */
export const MAX_SCHEMA_PATTERN_CHARACTERS = 10_000;

/** Throws when the patterns of `schema` together are longer than a validator compiles. */
export function assertPatternBudget(schema: unknown): void {
  let total = 0;
  for (const { pattern } of schemaPatterns(schema)) total += pattern.length;
  if (total > MAX_SCHEMA_PATTERN_CHARACTERS)
    throw new Error(
      `the schema's patterns total ${total} characters; Agentry compiles at most ${MAX_SCHEMA_PATTERN_CHARACTERS} per schema`,
    );
}

/** Every pattern of `schema` that cannot run, with its pointer. */
export function unsupportedPatterns(schema: unknown): PatternProblem[] {
  const problems: PatternProblem[] = [];
  for (const { pointer, pattern } of schemaPatterns(schema)) {
    const problem = patternProblem(pattern);
    if (problem !== undefined)
      problems.push({ pointer, message: `pattern ${JSON.stringify(shownPattern(pattern))} ${problem}` });
  }
  // The walk is depth-first from the end; document order reads better.
  return problems.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

function shownPattern(pattern: string): string {
  return pattern.length > 120 ? `${pattern.slice(0, 120)}…` : pattern;
}

/** The patterns of `schema` (`pattern` values, `patternProperties` keys) with their pointers. */
export function schemaPatterns(schema: unknown): Array<{ pointer: string; pattern: string }> {
  const found: Array<{ pointer: string; pattern: string }> = [];
  const pending: Array<{ schema: unknown; pointer: string }> = [{ schema, pointer: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { schema: node, pointer } = next;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    const record = node as Record<string, unknown>;
    const pattern = Object.hasOwn(record, 'pattern') ? record['pattern'] : undefined;
    if (typeof pattern === 'string') found.push({ pointer: joinPointer(pointer, 'pattern'), pattern });
    const patternProperties = Object.hasOwn(record, 'patternProperties')
      ? record['patternProperties']
      : undefined;
    if (
      typeof patternProperties === 'object' &&
      patternProperties !== null &&
      !Array.isArray(patternProperties)
    )
      for (const key of Object.keys(patternProperties))
        found.push({ pointer: joinPointer(pointer, 'patternProperties', key), pattern: key });
    for (const keyword of SCHEMA_KEYWORDS)
      if (Object.hasOwn(record, keyword))
        pending.push({ schema: record[keyword], pointer: joinPointer(pointer, keyword) });
    for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
      const items = Object.hasOwn(record, keyword) ? record[keyword] : undefined;
      if (!Array.isArray(items)) continue;
      for (let index = 0; index < items.length; index++)
        pending.push({ schema: items[index], pointer: joinPointer(pointer, keyword, index) });
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const members = Object.hasOwn(record, keyword) ? record[keyword] : undefined;
      if (typeof members !== 'object' || members === null || Array.isArray(members)) continue;
      for (const key of Object.keys(members))
        pending.push({
          schema: (members as Record<string, unknown>)[key],
          pointer: joinPointer(pointer, keyword, key),
        });
    }
  }
  return found;
}
