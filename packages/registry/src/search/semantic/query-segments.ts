/**
 * The separate needs of a long request. "Find the weather in Paris, then book a table and send me the receipt"
 * asks for three agents; embedded whole, it lands between them and near none. Each clause is embedded too, and
 * an agent scores by its best-matching clause as well as by the whole request.
 */

/** Clause boundaries: sentence ends, semicolons, commas, and the words that chain steps. */
const CHAIN = '(?:and then|then|and|after that|afterwards|finally|also)';
const BOUNDARY = new RegExp(
  `(?<=[.!?;。！？；])\\s+|\\s*[,，、]\\s*(?:${CHAIN}\\s+)?|\\s+${CHAIN}\\s+`,
  'iu',
);
const MIN_WORDS = 2;
export const MAX_SEGMENTS = 4;

/** The clauses of a query, or nothing when it has fewer than two (the whole query then says it all). */
export function querySegments(query: string): string[] {
  const clauses = query
    .split(BOUNDARY)
    .map((clause) => clause.trim())
    .filter((clause) => clause.split(/\s+/).filter(Boolean).length >= MIN_WORDS);
  if (clauses.length < 2) return [];
  return mergeInto(clauses, MAX_SEGMENTS);
}

/** Joins neighbouring clauses until at most `groups` remain, keeping the groups about equally long. */
function mergeInto(clauses: string[], groups: number): string[] {
  if (clauses.length <= groups) return clauses;
  const merged: string[] = [];
  const perGroup = clauses.length / groups;
  for (let g = 0; g < groups; g++) {
    merged.push(clauses.slice(Math.round(g * perGroup), Math.round((g + 1) * perGroup)).join(', '));
  }
  return merged;
}
