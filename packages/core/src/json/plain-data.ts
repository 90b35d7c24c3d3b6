/**
 * Tests for plain JSON data, the kind JSON.parse makes: ordinary objects and arrays, strings, finite numbers,
 * booleans and null. The fast paths beside Ajv (json-schema/meta-fast-path.ts, codecs/td/first-pass-checks.ts) and
 * the validator's cache keys (plain-text.ts) trust only such values: anything built in code that a reader could
 * see differently from its JSON text (class instances, hidden members, holes, NaN) fails them.
 */

const OBJECT_PROTOTYPE = Object.prototype;

/** An object with an ordinary prototype (`Object.prototype` or none), not an array. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === OBJECT_PROTOTYPE || prototype === null;
}

export function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/**
 * The keys of a plain record whose every own member is enumerable (a validator reads named members whether
 * enumerable or not, and JSON.stringify skips hidden ones, so a hidden member would escape a walk of the keys).
 * Undefined for anything else.
 */
export function plainKeys(value: unknown): string[] | undefined {
  if (!isPlainRecord(value)) return undefined;
  const keys = Object.keys(value);
  return Object.getOwnPropertyNames(value).length === keys.length ? keys : undefined;
}

/** A plain record (see plainKeys) whose every member passes `test`. */
export function everyMember(value: unknown, test: (member: unknown) => boolean): boolean {
  const keys = plainKeys(value);
  if (keys === undefined) return false;
  const record = value as Record<string, unknown>;
  for (const key of keys) if (!test(record[key])) return false;
  return true;
}

/** Like `every`, but a hole counts as an undefined item (as validators read it) instead of being skipped. */
export function everyItem(items: readonly unknown[], test: (item: unknown) => boolean): boolean {
  for (let i = 0; i < items.length; i++) if (!test(items[i])) return false;
  return true;
}

/**
 * Plain JSON data all the way down, `value` sitting at nesting `depth`; anything nested deeper than `maxDepth`
 * fails (and cannot overflow the stack).
 */
export function isPlainJson(value: unknown, depth: number, maxDepth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (depth > maxDepth) return false;
      if (isPlainArray(value)) {
        // A hole reads as undefined: not JSON.
        return everyItem(value, (item) => isPlainJson(item, depth + 1, maxDepth));
      }
      return everyMember(value, (member) => isPlainJson(member, depth + 1, maxDepth));
    default:
      return false;
  }
}
