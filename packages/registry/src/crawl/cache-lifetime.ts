/**
 * How long a fetched document stays fresh, from its response headers (RFC 9111 §4.2): `s-maxage`/`max-age` less
 * `Age`, else `Expires` − `Date`, else a tenth of the time since `Last-Modified` (the heuristic of §4.2.2). The
 * scheduler bounds the result by its minimum and maximum re-crawl intervals.
 */

/** Seconds; 0 for `no-store`/`no-cache`; undefined when the headers say nothing (the caller picks a default). */
export function freshnessLifetime(headers: Headers, now: number): number | undefined {
  const directives = parseDirectives(headers.get('cache-control'));
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const age = seconds(headers.get('age')) ?? 0;
  const maxAge = seconds(directives.get('s-maxage')) ?? seconds(directives.get('max-age'));
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

function parseDirectives(value: string | null): Map<string, string | undefined> {
  const directives = new Map<string, string | undefined>();
  if (value === null) return directives;
  for (const part of value.split(',')) {
    const [name = '', argument] = part.split('=', 2);
    const key = name.trim().toLowerCase();
    if (key === '') continue;
    const value = argument?.trim();
    directives.set(key, value?.startsWith('"') ? value.replace(/^"|"$/g, '') : value);
  }
  return directives;
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
