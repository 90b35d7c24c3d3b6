/**
 * The JSON-LD `@context` of descriptors. Emitted descriptors name our context and bind the `agentry` prefix; on
 * reading, those two entries are set aside and whatever else the publisher listed is kept, so that it is written
 * back in front of ours.
 */
import { isObject, jsonEqual } from '../../json/values.js';
import type { JsonValue } from '../../model/agent.js';
import { AGENTRY_CONTEXT_URL, AGENTRY_NS, AGENTRY_PREFIX } from '../../vocabulary.js';

const PREFIX_ENTRY = { [AGENTRY_PREFIX]: AGENTRY_NS };

function isOurs(entry: JsonValue): boolean {
  return entry === AGENTRY_CONTEXT_URL || (isObject(entry) && jsonEqual(entry, PREFIX_ENTRY));
}

/** The publisher's own context: a single entry as itself, several as an array, none as undefined. */
export function publisherContext(context: JsonValue | undefined): JsonValue | undefined {
  if (context === undefined) return undefined;
  const own = (Array.isArray(context) ? context : [context]).filter((entry) => !isOurs(entry));
  if (own.length === 0) return undefined;
  return own.length === 1 ? own[0] : own;
}

export function emittedContext(own: JsonValue | undefined): JsonValue[] {
  const entries = own === undefined ? [] : Array.isArray(own) ? own : [own];
  return [...entries, AGENTRY_CONTEXT_URL, { ...PREFIX_ENTRY }];
}
