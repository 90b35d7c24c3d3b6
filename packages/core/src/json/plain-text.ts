/**
 * The JSON text of a value that is plain JSON data all the way down, as a cache key: two values with the same key
 * are indistinguishable to any reader of data (a validator included). Values a caller built in code may hold what
 * JSON.stringify would silently drop or change (undefined members, NaN, functions, class instances, hidden
 * members); for those there is no faithful key, and the answer is undefined.
 */
import { isPlainJson } from './plain-data.js';

/** Values nested deeper than this are not worth a key (64 levels: 0 to 63). */
const MAX_DEPTH = 63;

export function plainJsonText(value: unknown): string | undefined {
  return isPlainJson(value, 0, MAX_DEPTH) ? JSON.stringify(value) : undefined;
}
