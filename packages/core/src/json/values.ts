import type { JsonObject, JsonValue } from '../model/agent.js';

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * A deep copy that keeps only JSON values. Documents reach codecs as whatever a caller hands over (symbols,
 * functions, bigints, non-finite numbers, cycles); `structuredClone` throws on several of those. Non-JSON values
 * are dropped (in arrays they become null, as JSON.stringify does); a cycle is cut where it closes.
 */
export function copyJson(value: unknown): JsonValue | undefined {
  return copyWithin(value, []);
}

/** `ancestors`: the objects being copied around this one; meeting one again closes a cycle. */
function copyWithin(value: unknown, ancestors: object[]): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  // The path from the root is short in real documents: a list beats hashing every object into a set.
  if (typeof value !== 'object' || ancestors.includes(value)) return undefined;
  ancestors.push(value);
  let copy: JsonValue;
  if (Array.isArray(value)) {
    // Holes stay holes, as `map` leaves them.
    const items: JsonValue[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      if (i in value) items[i] = copyWithin(value[i], ancestors) ?? null;
    }
    copy = items;
  } else {
    const object: JsonObject = {};
    const source = value as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      const copied = copyWithin(source[key], ancestors);
      if (copied !== undefined) setOwn(object, key, copied);
    }
    copy = object;
  }
  ancestors.pop();
  return copy;
}

/** Structural equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((key) =>
    jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * A text that two values share exactly when jsonEqual holds between them (for JSON data): members in key order,
 * `undefined` members left out. Deduplicating through a set of these keys is linear where comparing each value
 * with every one kept is quadratic (a card with 3,000 interfaces took seconds).
 */
export function jsonKey(value: unknown): string {
  if (value === undefined) return 'u';
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'number' && !Number.isFinite(value) ? `n${String(value)}` : JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? '' : ','}${jsonKey(value[i])}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    out += `${out === '{' ? '' : ','}${JSON.stringify(key)}:${jsonKey(record[key])}`;
  }
  return `${out}}`;
}

/** A set of JSON values compared structurally (as jsonEqual compares them). */
export class JsonValueSet {
  private readonly keys = new Set<string>();

  constructor(values: Iterable<unknown> = []) {
    for (const value of values) this.keys.add(jsonKey(value));
  }

  has(value: unknown): boolean {
    return this.keys.has(jsonKey(value));
  }

  /** Adds `value`; false when an equal value was there already. */
  add(value: unknown): boolean {
    const key = jsonKey(value);
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    return true;
  }
}

/**
 * A copy of `value` without the keys whose value is `undefined`, so optional fields are absent rather than
 * undefined. Copies instead of deleting in place: `delete` turns V8 objects into slow dictionary-mode objects.
 */
export function compact<T extends object>(value: T): T {
  const out = {} as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) setOwn(out, key, item);
  }
  return out as T;
}

/**
 * `target[key] = value` that keeps the field even when an untrusted document names it `__proto__` (plain
 * assignment would replace the object's prototype instead, silently dropping the field).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
