/**
 * JSON pointers and child readers for the AWP reader. Pointers are built for every object read (the shared reader
 * needs one up front), so the common case, a key with nothing to escape, skips the escaping work.
 */
import { joinPointer } from '../../json/pointer.js';
import { type FieldOptions, ObjectReader } from '../../json/reader.js';

export function pointerTo(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}/${key}`;
  return key.includes('~') || key.includes('/') ? joinPointer(base, key) : `${base}/${key}`;
}

/** The object at `key` as a reader of its own (with its own issue codes and section, if given). */
export function childReader(
  parent: ObjectReader,
  key: string,
  options: FieldOptions = {},
  codePrefix = parent.codePrefix,
  section = parent.section,
): ObjectReader | undefined {
  const value = parent.object(key, options);
  if (value === undefined) return undefined;
  return new ObjectReader(value, pointerTo(parent.pointer, key), parent.issues, codePrefix, section);
}
