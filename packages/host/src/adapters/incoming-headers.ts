/**
 * The headers of a Node request as a web `Headers`, filled from the raw header lines only when something needs
 * more than `get` or `has`. A call reads a handful of headers and seldom iterates or changes them, while filling a
 * `Headers` (every line converted, validated and normalised) costs more than the rest of a small call's routing.
 * Until it is filled, `get` and `has` read the raw lines the way `Headers` would: names compared without case,
 * values trimmed of HTTP whitespace and joined with `, ` (`; ` for `cookie`). Anything else fills it first.
 */
export function incomingHeaders(raw: readonly string[]): Headers {
  // The DOM typings describe `Headers` members as properties, which a subclass cannot override as methods.
  return new IncomingHeaders(raw) as unknown as Headers;
}

const WebHeaders: new () => object = Headers;
const INSPECT = Symbol.for('nodejs.util.inspect.custom');
const web = Headers.prototype;

class IncomingHeaders extends WebHeaders {
  /** Name, value, name, value…, as Node parsed them; undefined once the `Headers` is filled. */
  #raw: readonly string[] | undefined;

  constructor(raw: readonly string[]) {
    super();
    this.#raw = raw;
  }

  get(name: string): string | null {
    const raw = this.#raw;
    // Names a `Headers` would refuse go to it, so that they fail as they would there.
    if (raw === undefined || typeof name !== 'string' || !HEADER_NAME.test(name)) {
      return web.get.call(this.#filled(), name);
    }
    return valueIn(raw, name.toLowerCase());
  }

  has(name: string): boolean {
    const raw = this.#raw;
    if (raw === undefined || typeof name !== 'string' || !HEADER_NAME.test(name)) {
      return web.has.call(this.#filled(), name);
    }
    return valueIn(raw, name.toLowerCase()) !== null;
  }

  set(name: string, value: string): void {
    web.set.call(this.#filled(), name, value);
  }

  append(name: string, value: string): void {
    web.append.call(this.#filled(), name, value);
  }

  delete(name: string): void {
    web.delete.call(this.#filled(), name);
  }

  getSetCookie(): string[] {
    return web.getSetCookie.call(this.#filled());
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    web.forEach.call(this.#filled(), callback, thisArg);
  }

  keys(): ReturnType<Headers['keys']> {
    return web.keys.call(this.#filled());
  }

  values(): ReturnType<Headers['values']> {
    return web.values.call(this.#filled());
  }

  entries(): ReturnType<Headers['entries']> {
    return web.entries.call(this.#filled());
  }

  [Symbol.iterator](): ReturnType<Headers['entries']> {
    return web[Symbol.iterator].call(this.#filled());
  }

  /** What `console.log` shows: the headers, not an empty `Headers`. */
  [INSPECT](...args: unknown[]): unknown {
    const inspect = Reflect.get(web, INSPECT) as ((...args: unknown[]) => unknown) | undefined;
    const headers = this.#filled();
    return inspect === undefined ? headers : inspect.apply(headers, args);
  }

  /** This object as the `Headers` it is, every raw line appended. */
  #filled(): Headers {
    const headers = this as unknown as Headers;
    const raw = this.#raw;
    if (raw === undefined) return headers;
    this.#raw = undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      // HTTP/2 pseudo-headers (`:path`) are not headers of the request.
      if (!raw[i]!.startsWith(':')) web.append.call(headers, raw[i]!, raw[i + 1]!);
    }
    return headers;
  }
}

/** An RFC 9110 token: what `Headers` accepts as a name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function valueIn(raw: readonly string[], name: string): string | null {
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const line = raw[i]!;
    if (line.length !== name.length || line.toLowerCase() !== name) continue;
    const value = trimmed(raw[i + 1]!);
    found = found === null ? value : `${found}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return found;
}

/** Without leading and trailing HTTP whitespace (tab, line feed, carriage return, space), as `Headers` stores it. */
function trimmed(value: string): string {
  if (!isHttpWhitespace(value.charCodeAt(0)) && !isHttpWhitespace(value.charCodeAt(value.length - 1)))
    return value;
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
