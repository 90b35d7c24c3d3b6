/** The `why` of a hit: which fields matched which words, and how similar in meaning it is. */
import type { FieldMatches, LexicalField } from './lexical/types.js';

const FIELD_LABELS: ReadonlyArray<readonly [LexicalField, string]> = [
  ['name', 'name'],
  ['tags', 'tags'],
  ['capabilities', 'capabilities'],
  ['operationNames', 'operation name'],
  ['description', 'description'],
  ['operationText', 'operation description'],
  ['parameters', 'parameter'],
];

const MAX_FIELDS = 3;
const MAX_WORDS = 3;

export function explainHit(
  fields: FieldMatches | undefined,
  semantic: number | undefined,
  demotedFor: readonly string[] = [],
): string[] {
  const why: string[] = [];
  for (const [field, label] of FIELD_LABELS) {
    const words = fields?.[field];
    if (!words || words.length === 0) continue;
    why.push(
      `${label} matches ${words
        .slice(0, MAX_WORDS)
        .map((word) => `'${word}'`)
        .join(', ')}`,
    );
    if (why.length === MAX_FIELDS) break;
  }
  if (semantic !== undefined) why.push(`semantic similarity ${semantic.toFixed(2)}`);
  for (const reason of demotedFor) why.push(`ranked lower: ${reason}`);
  return why;
}
