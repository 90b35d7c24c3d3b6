/**
 * Origins as the crawler keys them: `scheme://host[:port]`, lower-cased, default ports dropped. A crawled agent's
 * identity is (origin, agent id), so two spellings of one origin must be one key.
 */

/**
 * The origin of `input`: a URL (its path is ignored) or a bare host name (`example.com`, `localhost:8080`), which
 * means https. Throws a TypeError that says what is wrong.
 */
export function normalizeOrigin(input: string): string {
  const text = input.trim();
  if (text === '') throw new TypeError('An origin is required (e.g. https://agents.example.com).');
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TypeError(`"${input}" is not an origin (expected e.g. https://agents.example.com).`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`"${input}" is not an http(s) origin.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(`"${input}" carries credentials; an origin is scheme, host and port only.`);
  }
  return url.origin;
}

/** The origin of an absolute http(s) URL, or undefined. */
export function originOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
}

/**
 * True when `url` is on `origin`, or on the same host with or without a leading `www.` (a redirect between the
 * two is how many sites canonicalise their name).
 */
export function isSameSite(url: string, origin: string): boolean {
  const other = originOf(url);
  if (other === undefined) return false;
  if (other === origin) return true;
  const a = new URL(other);
  const b = new URL(origin);
  return a.protocol === b.protocol && a.port === b.port && bareHost(a.hostname) === bareHost(b.hostname);
}

function bareHost(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}
