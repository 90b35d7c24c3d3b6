/**
 * The JSON text of a value that is plain JSON data all the way down, as a cache key: two values with the same key
 * are indistinguishable to any reader of data (a validator included). Values a caller built in code may hold what
 * JSON.stringify would silently drop or change (undefined members, NaN, functions, class instances, hidden
 * members); for those there is no faithful key, and the answer is undefined.
 */

const OBJECT_PROTOTYPE = Object.prototype;
/** Deeper values are not worth a key (and must not overflow the stack). */
const MAX_DEPTH = 64;

export function plainJsonText(value: unknown): string | undefined {
  return isPlainJson(value, 0) ? JSON.stringify(value) : undefined;
}

function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      return Array.isArray(value) ? isPlainArray(value, depth) : isPlainObject(value, depth);
    default:
      return false;
  }
}

function isPlainArray(array: readonly unknown[], depth: number): boolean {
  if (Object.getPrototypeOf(array) !== Array.prototype) return false;
  for (let i = 0; i < array.length; i++) {
    // A hole reads as undefined, which JSON.stringify would write as null.
    if (!isPlainJson(array[i], depth + 1)) return false;
  }
  return true;
}

function isPlainObject(object: object, depth: number): boolean {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== OBJECT_PROTOTYPE && prototype !== null) return false;
  const keys = Object.keys(object);
  // A validator sees a non-enumerable member that JSON.stringify skips.
  if (Object.getOwnPropertyNames(object).length !== keys.length) return false;
  const record = object as Record<string, unknown>;
  for (const key of keys) if (!isPlainJson(record[key], depth + 1)) return false;
  return true;
}
