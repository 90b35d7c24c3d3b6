/**
 * Reads fields out of untrusted JSON objects, recording an issue (with its JSON pointer) for every field that is
 * missing or of the wrong type. Codecs use it so that no input of any shape makes them throw, and so that every
 * format reports problems in the same words.
 */
import type { IssueCollector } from '../issues.js';
import type { JsonObject, JsonValue } from '../model/agent.js';
import { joinPointer } from './pointer.js';
import { isObject, setOwn } from './values.js';

export interface FieldOptions {
  /** Record an error when the field is absent. */
  required?: boolean;
  /** Spec section for the issue, e.g. `§4.1`; defaults to the reader's section. */
  section?: string;
  /** Record a missing required field as a warning instead of an error. */
  lenient?: boolean;
}

export class ObjectReader {
  constructor(
    readonly value: JsonObject,
    readonly pointer: string,
    readonly issues: IssueCollector,
    /** Prefix of issue codes, e.g. `woa`. */
    readonly codePrefix: string,
    readonly section?: string,
  ) {}

  /** Wraps `value` when it is an object; otherwise records a type error and returns undefined. */
  static of(
    value: unknown,
    pointer: string,
    issues: IssueCollector,
    codePrefix: string,
    what: string,
    section?: string,
  ): ObjectReader | undefined {
    if (isObject(value)) return new ObjectReader(value, pointer, issues, codePrefix, section);
    issues.error(
      pointer,
      `${codePrefix}.type`,
      `${what} must be a JSON object, got ${describeType(value)}.`,
      section,
    );
    return undefined;
  }

  has(key: string): boolean {
    return this.own(key) !== undefined;
  }

  raw(key: string): JsonValue | undefined {
    return this.own(key);
  }

  /** The member's value when the object has it itself (not one Object.prototype lends, like `constructor`). */
  private own(key: string): JsonValue | undefined {
    const value = this.value[key];
    // Most lookups are of absent members: undefined settles those without the ownership test.
    return value !== undefined && Object.hasOwn(this.value, key) ? value : undefined;
  }

  at(key: string | number): string {
    return joinPointer(this.pointer, key);
  }

  string(key: string, options: FieldOptions = {}): string | undefined {
    return this.typed(key, 'a string', (v): v is string => typeof v === 'string', options);
  }

  /** A string that must not be empty (after trimming). */
  text(key: string, options: FieldOptions = {}): string | undefined {
    const value = this.string(key, options);
    if (value !== undefined && value.trim() === '') {
      this.issues.error(
        this.at(key),
        `${this.codePrefix}.empty`,
        `"${key}" must not be empty.`,
        options.section ?? this.section,
      );
    }
    return value;
  }

  boolean(key: string, options: FieldOptions = {}): boolean | undefined {
    return this.typed(key, 'a boolean', (v): v is boolean => typeof v === 'boolean', options);
  }

  number(key: string, options: FieldOptions = {}): number | undefined {
    return this.typed(key, 'a number', (v): v is number => typeof v === 'number', options);
  }

  object(key: string, options: FieldOptions = {}): JsonObject | undefined {
    return this.typed(key, 'an object', isObject, options);
  }

  array(key: string, options: FieldOptions = {}): JsonValue[] | undefined {
    return this.typed(key, 'an array', (v): v is JsonValue[] => Array.isArray(v), options);
  }

  /** An array of strings; non-string items are reported and skipped. */
  stringArray(key: string, options: FieldOptions = {}): string[] | undefined {
    const items = this.array(key, options);
    if (items === undefined) return undefined;
    const out: string[] = [];
    items.forEach((item, index) => {
      if (typeof item === 'string') out.push(item);
      else
        this.issues.error(
          joinPointer(this.at(key), index),
          `${this.codePrefix}.type`,
          `Items of "${key}" must be strings, got ${describeType(item)}.`,
          options.section ?? this.section,
        );
    });
    return out;
  }

  /** A nested object as a reader of its own. */
  child(key: string, options: FieldOptions = {}): ObjectReader | undefined {
    const value = this.object(key, options);
    if (value === undefined) return undefined;
    return new ObjectReader(value, this.at(key), this.issues, this.codePrefix, this.section);
  }

  /** The fields not in `known`, for `extensions`; undefined when there are none. */
  rest(known: ReadonlySet<string> | readonly string[]): JsonObject | undefined {
    const knownSet = known instanceof Set ? known : new Set(known);
    let out: JsonObject | undefined;
    for (const key of Object.keys(this.value)) {
      if (knownSet.has(key)) continue;
      const value = this.value[key];
      if (value === undefined) continue;
      out ??= {};
      setOwn(out, key, value);
    }
    return out;
  }

  private typed<T extends JsonValue>(
    key: string,
    expected: string,
    guard: (value: unknown) => value is T,
    options: FieldOptions,
  ): T | undefined {
    const section = options.section ?? this.section;
    const value = this.own(key);
    if (value === undefined) {
      if (options.required) {
        const message = `Missing required field "${key}".`;
        if (options.lenient)
          this.issues.warning(this.at(key), `${this.codePrefix}.missing-field`, message, section);
        else this.issues.error(this.at(key), `${this.codePrefix}.missing-field`, message, section);
      }
      return undefined;
    }
    if (guard(value)) return value;
    this.issues.error(
      this.at(key),
      `${this.codePrefix}.type`,
      `"${key}" must be ${expected}, got ${describeType(value)}.`,
      section,
    );
    return undefined;
  }
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string`;
  return typeof value === 'number' ? 'a number' : typeof value;
}
