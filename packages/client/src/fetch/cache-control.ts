/**
 * The `Cache-Control` field (RFC 9111 §5.2): a comma-separated list of `name` or `name=value` directives, the value a
 * token or a quoted string. Names are case-insensitive; when a directive repeats, the first occurrence counts
 * (RFC 9111 §4.2.1 allows either that or treating the response as stale).
 *
 * Not http-cache-semantics' parser (4.3), which is not exported anyway (the fetcher and the resolver read request
 * and response directives here): it splits at every comma, quoted strings included (`no-cache="a, b"`), keeps names
 * as cased (`Max-Age` is not `max-age` there), lets the last of repeated directives win and strips the outer quotes
 * of a value without unescaping it; the directive tests in fetch-cache.test.ts ("reads back any list of
 * directives, however it is spaced, cased and quoted", "keeps the first of repeated directives") pin the opposite.
 */

export type CacheDirectives = ReadonlyMap<string, string | true>;

const EMPTY: CacheDirectives = new Map();

/** Parses one or more `Cache-Control` field values (joined with commas, as repeated field lines are). */
export function parseCacheControl(value: string | null | undefined): CacheDirectives {
  if (value === null || value === undefined || value.trim() === '') return EMPTY;
  const directives = new Map<string, string | true>();
  let at = 0;
  while (at < value.length) {
    const end = directiveEnd(value, at);
    const directive = value.slice(at, end);
    at = end + 1;
    const equals = directive.indexOf('=');
    const name = (equals === -1 ? directive : directive.slice(0, equals)).trim().toLowerCase();
    if (name === '' || directives.has(name)) continue;
    directives.set(name, equals === -1 ? true : unquote(directive.slice(equals + 1).trim()));
  }
  return directives;
}

/** The index of the comma ending the directive starting at `from` (commas inside quoted strings don't count). */
function directiveEnd(value: string, from: number): number {
  let quoted = false;
  for (let i = from; i < value.length; i++) {
    const char = value[i];
    if (quoted && char === '\\') i++;
    else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) return i;
  }
  return value.length;
}

function unquote(text: string): string {
  if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return text;
  return text.slice(1, -1).replace(/\\(.)/g, '$1');
}

// RFC 9111 §1.2.2: a delta-seconds beyond 2^31 is taken as 2^31.
const MAX_DELTA_SECONDS = 2 ** 31;

/**
 * The directive's value as delta-seconds: a number for a valid one, `invalid` for a present but malformed one
 * (which RFC 9111 §4.2.1 says to treat as stale), undefined when absent.
 */
export function deltaSeconds(directives: CacheDirectives, name: string): number | 'invalid' | undefined {
  return parseDeltaSeconds(directives.get(name));
}

/** A delta-seconds value (`Age`, a directive's argument): see `deltaSeconds`. */
export function parseDeltaSeconds(value: string | true | undefined): number | 'invalid' | undefined {
  if (value === undefined) return undefined;
  if (value === true || !/^\d+$/.test(value)) return 'invalid';
  return Math.min(Number(value), MAX_DELTA_SECONDS);
}
