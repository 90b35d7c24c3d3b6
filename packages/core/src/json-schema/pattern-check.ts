/**
 * Finds the patterns of a schema (`pattern`, the keys of `patternProperties`) that the linear-time engine cannot
 * run (linear-regexp.ts: backreferences, lookaround, oversized programs). A codec reports each as an issue when it
 * reads the schema, so a publisher hears of it before a host, client or registry fails to compile the schema.
 * The walk follows subschema keywords only (a `pattern` inside `const` or `examples` is data) and is iterative, so
 * no nesting depth can overflow the stack.
 */
import { joinPointer } from '../json/pointer.js';
import { compileLinearRegExp, UnsupportedPatternError } from './linear-regexp.js';

export interface PatternProblem {
  /** JSON pointer of the pattern, relative to the schema. */
  pointer: string;
  /** What is wrong with it, in words. */
  message: string;
}

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords whose value is an array of schemas (`items` too, in draft-07's tuple form). */
const SCHEMA_ARRAY_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf', 'items'];
/** Keywords whose value is an object of schemas (`dependencies` members that are lists are skipped). */
const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
  'dependencies',
];

/** Verdicts by pattern text (undefined: runs fine), bounded: agents repeat the same few patterns. */
const verdicts = new Map<string, string | undefined>();
const MAX_VERDICTS = 512;

/** Why `pattern` cannot run, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  let verdict: string | undefined;
  try {
    compileLinearRegExp(pattern);
  } catch (error) {
    if (!(error instanceof UnsupportedPatternError)) throw error;
    verdict = error.message;
  }
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(pattern, verdict);
  return verdict;
}

/** Every pattern of `schema` that cannot run, with its pointer. */
export function unsupportedPatterns(schema: unknown): PatternProblem[] {
  const problems: PatternProblem[] = [];
  const pending: Array<{ schema: unknown; pointer: string }> = [{ schema, pointer: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { schema: node, pointer } = next;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    const record = node as Record<string, unknown>;
    const pattern = Object.hasOwn(record, 'pattern') ? record['pattern'] : undefined;
    if (typeof pattern === 'string') {
      const problem = patternProblem(pattern);
      if (problem !== undefined)
        problems.push({ pointer: joinPointer(pointer, 'pattern'), message: problem });
    }
    const patternProperties = Object.hasOwn(record, 'patternProperties')
      ? record['patternProperties']
      : undefined;
    if (
      typeof patternProperties === 'object' &&
      patternProperties !== null &&
      !Array.isArray(patternProperties)
    )
      for (const key of Object.keys(patternProperties)) {
        const problem = patternProblem(key);
        if (problem !== undefined)
          problems.push({ pointer: joinPointer(pointer, 'patternProperties', key), message: problem });
      }
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
  // The walk is depth-first from the end; document order reads better.
  return problems.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}
