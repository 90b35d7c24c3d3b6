/**
 * The JSON texts of schemas recently found to be valid schema documents. Checking a schema against its dialect's
 * meta-schema costs several times more than writing it out as text, and real documents repeat the same small
 * schemas (`{"type": "object", "properties": {"text": {"type": "string"}}}`) across operations, agents and
 * crawls. Only valid outcomes are kept, so every invalid schema is still checked and reported in full.
 *
 * Bounded by total text length (not by count) so a crawl of large schemas cannot grow it; the least recently used
 * texts go first.
 */

/** About 2 MB of UTF-16 text. */
const MAX_TOTAL_LENGTH = 1_000_000;
/** A schema longer than this is checked every time rather than evicting many small ones. */
const MAX_SCHEMA_LENGTH = 64_000;

const known = new Set<string>();
let totalLength = 0;

/** True when the schema with this JSON text was found valid (and marks it recently used). */
export function isKnownValidSchema(text: string): boolean {
  if (!known.has(text)) return false;
  // Re-insert so that Set order is least recently used first.
  known.delete(text);
  known.add(text);
  return true;
}

export function rememberValidSchema(text: string): void {
  if (text.length > MAX_SCHEMA_LENGTH || known.has(text)) return;
  known.add(text);
  totalLength += text.length;
  for (const oldest of known) {
    if (totalLength <= MAX_TOTAL_LENGTH) break;
    known.delete(oldest);
    totalLength -= oldest.length;
  }
}
