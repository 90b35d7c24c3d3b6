/**
 * The JSON Canonicalization Scheme (RFC 8785): the one serialization of a JSON value that signatures and
 * fingerprints are computed over, whatever key order or spacing the value arrived with. The `canonicalize`
 * package does the work; this wrapper gives it a string-only, TypeError-on-failure contract.
 */
import { createRequire } from 'node:module';

// A CommonJS module whose typings claim an ES default export: require gives the function itself.
const canonicalize = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (error) {
    throw new TypeError(`The value cannot be canonicalized as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw new TypeError('The value is not JSON (undefined, a function or a symbol).');
  return text;
}
