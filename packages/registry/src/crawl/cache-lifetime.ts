/**
 * How long a fetched document stays fresh, from its response headers (RFC 9111 §4.2): `s-maxage`/`max-age` less
 * `Age`, else `Expires` − `Date`, else a tenth of the time since `Last-Modified` (the heuristic of §4.2.2). The
 * scheduler bounds the result by its minimum and maximum re-crawl intervals.
 */

/** Seconds; 0 for `no-store`/`no-cache`; undefined when the headers say nothing (the caller picks a default). */
export function freshnessLifetime(headers: Headers, now: number): number | undefined {
  const directives = parseDirectives(headers.get('cache-control'));
  if (directives.noStore || directives.noCache) return 0;
  const age = seconds(headers.get('age')) ?? 0;
  const maxAge = seconds(directives.sMaxAge) ?? seconds(directives.maxAge);
  if (maxAge !== undefined) return Math.max(0, maxAge - age);
  const date = httpDate(headers.get('date')) ?? now;
  const expires = headers.get('expires');
  if (expires !== null) {
    const at = httpDate(expires);
    // An unparseable Expires means "already expired" (RFC 9111 §5.3).
    return at === undefined ? 0 : Math.max(0, Math.floor((at - date) / 1000) - age);
  }
  const lastModified = httpDate(headers.get('last-modified'));
  if (lastModified !== undefined && lastModified < date) {
    return Math.floor((date - lastModified) / 10_000);
  }
  return undefined;
}

/** The directives of Cache-Control that say how long a response stays fresh (the first of each, as a cache reads). */
interface FreshnessDirectives {
  noStore: boolean;
  noCache: boolean;
  maxAge: string | undefined;
  sMaxAge: string | undefined;
}

function parseDirectives(value: string | null): FreshnessDirectives {
  const directives: FreshnessDirectives = {
    noStore: false,
    noCache: false,
    maxAge: undefined,
    sMaxAge: undefined,
  };
  if (value === null) return directives;
  for (const part of value.split(',')) {
    const equals = part.indexOf('=');
    const name = (equals === -1 ? part : part.slice(0, equals)).trim().toLowerCase();
    const argument = equals === -1 ? undefined : unquoted(part.slice(equals + 1).trim());
    if (name === 'no-store') directives.noStore = true;
    else if (name === 'no-cache') directives.noCache = true;
    else if (name === 'max-age') directives.maxAge ??= argument;
    else if (name === 's-maxage') directives.sMaxAge ??= argument;
  }
  return directives;
}

function unquoted(value: string): string {
  return value.startsWith('"') ? value.replace(/^"|"$/g, '') : value;
}

function seconds(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Math.min(Number(value.trim()), 2 ** 31);
}

function httpDate(value: string | null): number | undefined {
  if (value === null) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}
