/**
 * The parts of a request URL every request needs, without parsing it whole: a full parse per request cost more
 * than answering a cached read. Only URLs already in normal form take the short way; any other (upper-case or
 * unusual hosts, default ports) is parsed, so the answer is always what `new URL(url)` says.
 */

/** Scheme, lower-case host name or IPv4 address, and a port that is not the scheme's default. */
const PLAIN_ORIGIN =
  /^(?:http:\/\/[a-z0-9.-]+(?::(?!80$)\d{1,5})?|https:\/\/[a-z0-9.-]+(?::(?!443$)\d{1,5})?)$/;

/** `new URL(url).origin` of an absolute URL. */
export function originOf(url: string): string {
  const hostStart = url.indexOf('//') + 2;
  let end = url.length;
  for (const delimiter of ['/', '?', '#']) {
    const at = url.indexOf(delimiter, hostStart);
    if (at >= 0 && at < end) end = at;
  }
  const candidate = url.slice(0, end);
  return hostStart > 1 && PLAIN_ORIGIN.test(candidate) ? candidate : new URL(url).origin;
}

/** Whether the query string names parameter `name` (decoded, as `URLSearchParams` reads it). */
export function hasQueryParameter(url: string, name: string): boolean {
  const search = searchOf(url);
  return search !== '' && new URLSearchParams(search).has(name);
}

/** The query string with its `?` (empty when there is none), as sent. */
export function searchOf(url: string): string {
  const hash = url.indexOf('#');
  const end = hash < 0 ? url.length : hash;
  const at = url.indexOf('?');
  return at < 0 || at > end ? '' : url.slice(at, end);
}
