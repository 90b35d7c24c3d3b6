/**
 * A `Response` over bytes already in memory, whose body stream is built only if someone asks for `.body`, and whose
 * `Headers` only if someone asks for `.headers`.
 *
 * Why: Node 20 takes ~50 µs to construct a web `ReadableStream` (a `new Response(bytes)` builds one) and several µs
 * to validate a header list into `Headers`, which would cap answers served from the cache near 20,000 a second, while
 * `text()`/`json()`/`arrayBuffer()` on bytes in hand cost next to nothing. It is a real `Response` (`instanceof
 * Response`, status, `Headers`, `clone()`) whose body members read the bytes directly; `.url` and `.redirected`
 * report the final URL as `fetch` would.
 */

type BodyReader = 'arrayBuffer' | 'blob' | 'bytes' | 'formData' | 'json' | 'text';

const decoder = new TextDecoder();

export class BufferedResponse extends Response {
  readonly #bytes: Uint8Array | null;
  readonly #url: string;
  readonly #redirected: boolean;
  readonly #headersInit: ResponseInit['headers'];
  #headers: Headers | undefined;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null | undefined;

  /** `bytes` null for a response without a body (HEAD, 204, 304); the bytes are shared, never written to. */
  constructor(bytes: Uint8Array | null, init: ResponseInit, url = '', redirected = false) {
    super(null, statusLineOf(init));
    this.#headersInit = init.headers;
    this.#bytes = bytes;
    this.#url = url;
    this.#redirected = redirected;
  }

  /** The body's bytes without consuming it (used by the cache to store what it hands out). */
  get bufferedBytes(): Uint8Array | null {
    return this.#bytes;
  }

  #take(method: BodyReader): Uint8Array {
    if (this.#used || this.#stream != null) {
      throw new TypeError(`Response.${method}: Body is unusable: Body has already been read`);
    }
    this.#used = true;
    return this.#bytes ?? new Uint8Array(0);
  }

  // The body members are defined on the prototype rather than as class members because the DOM typings declare them
  // as read-only properties, which a subclass may not redeclare as accessors or methods.
  static {
    const streamOf = (self: BufferedResponse): ReadableStream<Uint8Array> | null => {
      if (self.#stream === undefined) {
        const bytes = self.#bytes;
        self.#stream =
          bytes === null
            ? null
            : new ReadableStream<Uint8Array>({
                start(controller) {
                  if (bytes.byteLength > 0) controller.enqueue(bytes.slice());
                  controller.close();
                },
              });
      }
      return self.#stream;
    };
    // Once `.body` has been handed out, reading goes through that stream, exactly as on any other Response.
    const read = async <T>(
      self: BufferedResponse,
      method: BodyReader,
      fromBytes: (bytes: Uint8Array) => T,
    ) => {
      const stream = self.#stream;
      if (stream != null)
        return (await new Response(stream, { headers: self.headers })[method as 'text']()) as T;
      return fromBytes(self.#take(method));
    };
    const copy = (bytes: Uint8Array): ArrayBuffer =>
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    Object.defineProperties(BufferedResponse.prototype, {
      body: {
        get(this: BufferedResponse) {
          return streamOf(this);
        },
      },
      bodyUsed: {
        get(this: BufferedResponse) {
          return this.#used || this.#stream?.locked === true;
        },
      },
      headers: {
        get(this: BufferedResponse) {
          this.#headers ??= headersOf(this.#headersInit);
          return this.#headers;
        },
      },
      url: {
        get(this: BufferedResponse) {
          return this.#url;
        },
      },
      redirected: {
        get(this: BufferedResponse) {
          return this.#redirected;
        },
      },
      text: {
        value(this: BufferedResponse) {
          return read(this, 'text', (bytes) => decoder.decode(bytes));
        },
      },
      json: {
        value(this: BufferedResponse) {
          return read(this, 'json', (bytes) => JSON.parse(decoder.decode(bytes)) as unknown);
        },
      },
      arrayBuffer: {
        value(this: BufferedResponse) {
          return read(this, 'arrayBuffer', copy);
        },
      },
      bytes: {
        value(this: BufferedResponse) {
          return read(this, 'bytes', (bytes) => new Uint8Array(copy(bytes)));
        },
      },
      blob: {
        value(this: BufferedResponse) {
          const type = this.headers.get('content-type') ?? '';
          return read(this, 'blob', (bytes) => new Blob([copy(bytes)], { type }));
        },
      },
      formData: {
        value(this: BufferedResponse) {
          return read(this, 'formData', (bytes) =>
            new Response(copy(bytes), { headers: this.headers }).formData(),
          );
        },
      },
      clone: {
        value(this: BufferedResponse) {
          if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
          const init = { status: this.status, statusText: this.statusText, headers: this.headers };
          if (this.#stream != null) {
            const [mine, theirs] = this.#stream.tee();
            this.#stream = mine;
            return new Response(theirs, init);
          }
          return new BufferedResponse(this.#bytes, init, this.#url, this.#redirected);
        },
      },
    });
  }
}

type Pairs = ReadonlyArray<readonly [string, string]>;

/**
 * `new Headers(init)`, faster for a list of name/value pairs: pairs in canonical form (as undici's parser yields them)
 * are read in place by `PairHeaders`; others are appended one by one, which does what the constructor does with a
 * list (the same validation and normalisation) at half the cost, skipping its conversion of the list.
 */
function headersOf(init: ResponseInit['headers']): Headers {
  if (!Array.isArray(init)) return new Headers(init);
  if (isCanonical(init)) return new PairHeaders(init as unknown as Pairs);
  const headers = new Headers();
  for (const pair of init as ReadonlyArray<readonly string[]>) {
    if (pair.length !== 2) return new Headers(init);
    headers.append(pair[0]!, pair[1]!);
  }
  return headers;
}

// A header name Headers keeps as it is: a token (RFC 9110 §5.6.2), in lower case.
const LOWER_CASE_TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
// Any token, of which Headers looks up the lower-case form.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A header value Headers keeps as it is: bytes (no code unit over 0xFF), no NUL, CR or LF, nothing for it to trim
// (tab, space, CR, LF) at either end.
const CANONICAL_VALUE =
  /^(?:[^\0\t\n\r \u0100-\uffff](?:[^\0\n\r\u0100-\uffff]*[^\0\t\n\r \u0100-\uffff])?)?$/;

function isCanonical(pairs: readonly unknown[]): boolean {
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) return false;
    const [name, value] = pair as unknown[];
    if (typeof name !== 'string' || typeof value !== 'string') return false;
    if (!LOWER_CASE_TOKEN.test(name) || !CANONICAL_VALUE.test(value)) return false;
  }
  return true;
}

/** The lower-case form of a name `get` and `has` may look up directly; undefined to leave it to Headers. */
function lookupName(args: readonly unknown[]): string | undefined {
  if (args.length === 0) return undefined;
  const name = args[0];
  if (typeof name !== 'string') return undefined;
  if (LOWER_CASE_TOKEN.test(name)) return name;
  return TOKEN.test(name) ? name.toLowerCase() : undefined;
}

/**
 * Calls `callback` as `forEach` would for a list without Set-Cookie: the Fetch standard's "sort and combine", one
 * call per name (values joined), names in order. An insertion sort: a response has a handful of fields.
 */
function forEachCombined(pairs: Pairs, callback: (value: string, name: string) => void): void {
  const names: string[] = [];
  const values: string[] = [];
  for (const [name, value] of pairs) {
    let at = names.length - 1;
    while (at >= 0 && names[at]! > name) at--;
    if (at >= 0 && names[at] === name) {
      values[at] = `${values[at]}${name === 'cookie' ? '; ' : ', '}${value}`;
      continue;
    }
    names.push(name);
    values.push(value);
    for (let move = names.length - 1; move > at + 1; move--) {
      names[move] = names[move - 1]!;
      values[move] = values[move - 1]!;
    }
    names[at + 1] = name;
    values[at + 1] = value;
  }
  for (let i = 0; i < names.length; i++) callback(values[i]!, names[i]!);
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * `Headers` over pairs in canonical form (lower-case token names; values with nothing to trim and no forbidden byte),
 * so that `new Headers(pairs)` would hold exactly them. `get`, `has` and `forEach`, all a reader of a response
 * usually calls, read the pairs; every other member first hands the pairs to `Headers` itself (one `append` each)
 * and then runs as it would on `new Headers(pairs)`, as do `get`, `has` and `forEach` from then on.
 */
class PairHeaders extends Headers {
  #pairs: Pairs | undefined;

  constructor(pairs: Pairs) {
    super();
    this.#pairs = pairs;
  }

  // Defined on the prototype: the typings declare Headers' members as read-only properties (as for BufferedResponse).
  static {
    const FALL_BACK = Symbol('fall back');
    const base = Headers.prototype;
    const own = (self: PairHeaders): void => {
      const pairs = self.#pairs;
      if (pairs === undefined) return;
      self.#pairs = undefined;
      for (const [name, value] of pairs) base.append.call(self, name, value);
    };
    const delegating = (member: PropertyKey): PropertyDescriptor => {
      const original = Reflect.get(base, member) as (...args: unknown[]) => unknown;
      return {
        value(this: PairHeaders, ...args: unknown[]) {
          own(this);
          return Reflect.apply(original, this, args);
        },
        writable: true,
        configurable: true,
      };
    };
    const reading = (
      fast: (pairs: Pairs, self: PairHeaders, args: unknown[]) => unknown,
      member: 'get' | 'has' | 'forEach',
    ): PropertyDescriptor => {
      const original = base[member] as (...args: unknown[]) => unknown;
      return {
        value(this: PairHeaders, ...args: unknown[]) {
          const pairs = #pairs in this ? this.#pairs : undefined;
          if (pairs !== undefined) {
            const answer = fast(pairs, this, args);
            if (answer !== FALL_BACK) return answer;
            own(this);
          }
          return Reflect.apply(original, this, args);
        },
        writable: true,
        configurable: true,
      };
    };
    Object.defineProperties(PairHeaders.prototype, {
      get: reading((pairs, _self, args) => {
        const name = lookupName(args);
        if (name === undefined) return FALL_BACK;
        let value: string | null = null;
        for (const [field, fieldValue] of pairs) {
          if (field !== name) continue;
          value = value === null ? fieldValue : `${value}${name === 'cookie' ? '; ' : ', '}${fieldValue}`;
        }
        return value;
      }, 'get'),
      has: reading((pairs, _self, args) => {
        const name = lookupName(args);
        if (name === undefined) return FALL_BACK;
        return pairs.some(([field]) => field === name);
      }, 'has'),
      forEach: reading((pairs, self, args) => {
        const [callback, thisArg = globalThis] = args;
        if (typeof callback !== 'function' || pairs.some(([field]) => field === 'set-cookie')) {
          return FALL_BACK;
        }
        forEachCombined(pairs, (value, name) => callback.call(thisArg, value, name, self));
        return undefined;
      }, 'forEach'),
      append: delegating('append'),
      delete: delegating('delete'),
      set: delegating('set'),
      getSetCookie: delegating('getSetCookie'),
      keys: delegating('keys'),
      values: delegating('values'),
      entries: delegating('entries'),
      [Symbol.iterator]: delegating(Symbol.iterator),
      [INSPECT]: delegating(INSPECT),
    });
  }
}

/** The init without its header fields, which are kept aside for `headers` to build on demand. */
function statusLineOf(init: ResponseInit): ResponseInit {
  if (init.headers === undefined) return init;
  const statusLine: { status?: number; statusText?: string } = {};
  if (init.status !== undefined) statusLine.status = init.status;
  if (init.statusText !== undefined) statusLine.statusText = init.statusText;
  return statusLine;
}
