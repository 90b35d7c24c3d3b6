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
    const { headers, ...statusLine } = init;
    super(null, statusLine);
    this.#headersInit = headers;
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
          this.#headers ??= new Headers(this.#headersInit);
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
