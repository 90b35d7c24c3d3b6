/**
 * Sends one HTTP request to an address the target check approved. The request goes to an origin spelled with that
 * IP address, while the `Host` header carries the name, and undici derives the TLS server name (SNI, and the name the
 * certificate is verified for) from that header. So there is no second DNS lookup anywhere, and certificates are
 * still checked against the name the caller asked for.
 *
 * A buffered answer is collected by a dispatch handler straight into memory, bounded as it arrives: no stream, no
 * `AbortSignal`, no per-request timers of undici's own (the deadline bounds the whole exchange). A stream goes through
 * `request`, whose body the caller reads.
 */
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import type { Deadline } from './deadline.js';
import { FetchError, NetworkError, ResponseTooLargeError } from './errors.js';
import type { IpLiteral } from './ip-literal.js';
import type { EffectivePolicy } from './policy.js';
import type { ResolvedTarget } from './target.js';

export interface WireRequest {
  readonly method: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

interface WireHead {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names. */
  readonly headers: Array<[string, string]>;
}

/** An answer read into memory; `body` null when it has none (or it was not kept). */
export interface BufferedWire extends WireHead {
  readonly body: Uint8Array | null;
}

export interface StreamWire extends WireHead {
  readonly body: Readable & { dump(options?: { limit: number }): Promise<void> };
}

/** What to do with the body of a buffered answer, once its status and header fields are known. */
export interface BodyRule {
  /** The most bytes kept in memory. */
  readonly maxBytes: number;
  /** True when the body is not wanted (HEAD, 204/304, a redirect that will be followed): it is read and dropped. */
  discard(status: number, headers: ReadonlyArray<[string, string]>): boolean;
}

/** One connection pool per fetcher; TLS trusts Node's roots plus `policy.ca`, and certificates are always verified. */
export function createAgent(policy: EffectivePolicy): Agent {
  return new Agent({
    connect: { rejectUnauthorized: true, ...(policy.ca === undefined ? {} : { ca: policy.ca }) },
  });
}

// Errors raised before a byte was sent, after which the next address of the name may be tried.
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

// A body nobody wants is read up to this much, so the connection can be reused; past it the connection is closed.
const DISCARD_LIMIT = 128 * 1024;

/**
 * Sends the request and reads the answer into memory, bounded by `rule` and by the deadline. One promise for the
 * whole exchange: the next address is tried from the handler's failure, when the connection was refused.
 */
export function sendBuffered(
  agent: Dispatcher,
  target: ResolvedTarget,
  request: WireRequest,
  deadline: Deadline,
  rule: BodyRule,
): Promise<BufferedWire> {
  const options = dispatchOptions(target, request);
  const { addresses } = target;
  return new Promise<BufferedWire>((resolve, reject) => {
    let at = 0;
    const attempt = (): void => {
      if (deadline.aborted) {
        reject(deadline.reason);
        return;
      }
      options.origin = originOf(target.url.protocol, addresses[at]!, target.port);
      const onFailure = (error: unknown): void => {
        const failure = failureOf(error, target, deadline);
        if (failure === undefined && ++at < addresses.length) attempt();
        else reject(failure ?? networkError(error, target));
      };
      agent.dispatch(options, new BufferingHandler(target.url.href, rule, deadline, resolve, onFailure));
    };
    attempt();
  });
}

/** Sends the request and hands back the answer once its header fields arrived; the body is left to the caller. */
export async function sendStreaming(
  agent: Dispatcher,
  target: ResolvedTarget,
  request: WireRequest,
  deadline: Deadline,
): Promise<StreamWire> {
  const options: Dispatcher.RequestOptions = { ...dispatchOptions(target, request), signal: deadline.signal };
  let lastError: unknown;
  for (const address of target.addresses) {
    options.origin = originOf(target.url.protocol, address, target.port);
    try {
      const response = await agent.request(options);
      return {
        status: response.statusCode,
        statusText: response.statusText,
        headers: headerPairs(response.headers),
        body: response.body,
      };
    } catch (error) {
      lastError = error;
      const failure = failureOf(error, target, deadline);
      if (failure !== undefined) throw failure;
    }
  }
  throw networkError(lastError, target);
}

/** The request as undici takes it; `origin` is set per address. */
function dispatchOptions(target: ResolvedTarget, request: WireRequest): Dispatcher.DispatchOptions {
  const { url } = target;
  // Header fields as a flat list of names and values, which undici takes as it is. Host is always the URL's: it is
  // the name TLS verifies the certificate for.
  const headers: string[] = [];
  for (const name in request.headers) if (name !== 'host') headers.push(name, request.headers[name]!);
  headers.push('host', url.host);
  return {
    origin: '',
    path: url.pathname + url.search,
    method: request.method as Dispatcher.HttpMethod,
    headers,
    body: request.body ?? null,
    // undici's own idle timers are off: the deadline bounds a buffered answer as a whole, and a stream's reader
    // bounds the stream.
    bodyTimeout: 0,
    headersTimeout: 0,
  };
}

/**
 * What a failed attempt means: undefined when the connection was refused (or could not be made) before a byte was
 * sent, so the next address may be tried; otherwise the error to throw (the deadline's reason, a fetcher error, or a
 * NetworkError saying what failed).
 */
function failureOf(error: unknown, target: ResolvedTarget, deadline: Deadline): unknown {
  if (deadline.aborted) return deadline.reason;
  if (error instanceof FetchError) return error;
  const code = errorCode(error);
  if (code === 'UND_ERR_INVALID_ARG') {
    const detail = error instanceof Error ? error.message : String(error);
    const { href } = target.url;
    return new FetchError(`The request to ${href} is not valid: ${detail}.`, href, { cause: error });
  }
  return CONNECT_FAILURES.has(code) ? undefined : networkError(error, target);
}

// `http://127.0.0.1:8080` for a checked address, kept per scheme, port and address (the pool is keyed by it, so the
// same string each time is hashed once); at most MAX_ORIGINS of them, all forgotten when there would be more.
const origins = new Map<string, Map<number, Map<string, string>>>();
const MAX_ORIGINS = 1024;
let originCount = 0;

function originOf(protocol: string, { address, family }: IpLiteral, port: number): string {
  let byPort = origins.get(protocol);
  if (byPort === undefined) {
    byPort = new Map();
    origins.set(protocol, byPort);
  }
  let byAddress = byPort.get(port);
  if (byAddress === undefined) {
    byAddress = new Map();
    byPort.set(port, byAddress);
  }
  let origin = byAddress.get(address);
  if (origin === undefined) {
    origin = `${protocol}//${family === 6 ? `[${address}]` : address}:${port}`;
    if (originCount >= MAX_ORIGINS) {
      origins.clear();
      originCount = 0;
      return origin;
    }
    byAddress.set(address, origin);
    originCount++;
  }
  return origin;
}

/**
 * Collects one answer: status line and header fields, then the body chunk by chunk, refused the moment it declares
 * or reaches more than the limit. The deadline aborts it wherever it is (queued, connecting, sending, reading).
 *
 * It is a handler of undici's original dispatch interface (`onConnect`, `onHeaders`, `onData`, `onComplete`,
 * `onError`), which undici 7 still drives directly: a handler of the newer interface is wrapped in an adapter that
 * parses every header list into an object first, and the pairs are all that is needed here.
 */
class BufferingHandler implements Dispatcher.DispatchHandler {
  readonly #url: string;
  readonly #rule: BodyRule;
  readonly #deadline: Deadline;
  readonly #resolve: (wire: BufferedWire) => void;
  readonly #reject: (error: unknown) => void;
  #abort: ((error: Error) => void) | undefined;
  #settled = false;
  #status = 0;
  #statusText = '';
  #headers: Array<[string, string]> = [];
  #discard = false;
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(
    url: string,
    rule: BodyRule,
    deadline: Deadline,
    resolve: (wire: BufferedWire) => void,
    reject: (error: unknown) => void,
  ) {
    this.#url = url;
    this.#rule = rule;
    this.#deadline = deadline;
    this.#resolve = resolve;
    this.#reject = reject;
    deadline.watch((reason) => {
      this.#fail(reason);
      this.#abort?.(reason as Error);
    });
  }

  onConnect(abort: (error: Error) => void): void {
    // Given up on before the request reached a connection: stop it there.
    if (this.#settled) abort(new FetchError('The request was abandoned.', this.#url));
    else this.#abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void, statusText: string): boolean {
    // Called again after an informational (1xx) answer, with the final one.
    const headers: Array<[string, string]> = [];
    let declared: string | undefined;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = fieldName(rawHeaders[i]!);
      const value = fieldValue(rawHeaders[i + 1]!);
      if (name === 'content-length') declared = value;
      headers.push([name, value]);
    }
    this.#status = statusCode;
    this.#statusText = statusText;
    this.#headers = headers;
    this.#discard = this.#rule.discard(statusCode, headers);
    if (!this.#discard && declared !== undefined && Number(declared) > this.#rule.maxBytes) {
      this.#tooLarge(`declares ${declared} bytes, over`);
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#bytes += chunk.byteLength;
    if (this.#discard) {
      if (this.#bytes > DISCARD_LIMIT) {
        // Enough: the answer is complete as far as the caller is concerned; the connection is not reused.
        this.#complete();
        this.#abort?.(new FetchError('The unwanted body was too long to drain.', this.#url));
        return false;
      }
      return true;
    }
    if (this.#bytes > this.#rule.maxBytes) {
      this.#tooLarge('exceeds');
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.#complete();
  }

  onError(error: Error): void {
    this.#fail(error);
  }

  #complete(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadline.unwatch();
    const chunks = this.#chunks;
    const body = this.#discard ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#bytes);
    this.#chunks = [];
    this.#resolve({ status: this.#status, statusText: this.#statusText, headers: this.#headers, body });
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadline.unwatch();
    this.#chunks = [];
    this.#reject(error);
  }

  #tooLarge(what: string): void {
    const limit = this.#rule.maxBytes;
    const error = new ResponseTooLargeError(
      `The response from ${this.#url} ${what} the limit of ${limit} bytes; raise maxResponseBytes to accept it.`,
      this.#url,
      limit,
    );
    this.#fail(error);
    this.#abort?.(error);
  }
}

// The names and values most answers carry, by length, so that they need not be decoded each time: a name is matched
// in any case and given in lower case, a value is matched exactly.
const KNOWN_NAMES = byLength([
  'accept-ranges',
  'age',
  'cache-control',
  'connection',
  'content-encoding',
  'content-language',
  'content-length',
  'content-type',
  'date',
  'etag',
  'expires',
  'keep-alive',
  'last-modified',
  'link',
  'location',
  'retry-after',
  'server',
  'set-cookie',
  'strict-transport-security',
  'transfer-encoding',
  'vary',
  'x-content-type-options',
  'x-powered-by',
  'x-request-id',
  'x-task-id',
]);
const KNOWN_VALUES = byLength([
  'application/json',
  'application/json; charset=utf-8',
  'bytes',
  'chunked',
  'close',
  'gzip',
  'keep-alive',
  'no-cache',
  'nosniff',
  'text/event-stream',
  'text/plain; charset=utf-8',
  'timeout=5',
]);

function byLength(texts: readonly string[]): Array<Array<[Uint8Array, string]> | undefined> {
  const table: Array<Array<[Uint8Array, string]> | undefined> = [];
  for (const text of texts) {
    table[text.length] ??= [];
    table[text.length]!.push([Buffer.from(text, 'latin1'), text]);
  }
  return table;
}

/** A field name as text, in lower case. */
function fieldName(raw: Buffer): string {
  const candidates = KNOWN_NAMES[raw.length];
  if (candidates !== undefined) {
    for (const [bytes, text] of candidates) if (sameBytes(raw, bytes, true)) return text;
  }
  return raw.toString('latin1').toLowerCase();
}

/** A field value as text (bytes as Latin-1, as undici reads them). */
function fieldValue(raw: Buffer): string {
  const candidates = KNOWN_VALUES[raw.length];
  if (candidates !== undefined) {
    for (const [bytes, text] of candidates) if (sameBytes(raw, bytes, false)) return text;
  }
  return raw.toString('latin1');
}

/** Same length assumed; `foldCase`: A-Z in `raw` match a-z in `known`. */
function sameBytes(raw: Uint8Array, known: Uint8Array, foldCase: boolean): boolean {
  for (let i = 0; i < known.length; i++) {
    let byte = raw[i]!;
    if (foldCase && byte >= 65 && byte <= 90) byte += 32;
    if (byte !== known[i]) return false;
  }
  return true;
}

function headerPairs(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) pairs.push([name, each]);
    else pairs.push([name, value]);
  }
  return pairs;
}

export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * What OpenSSL says when the bytes that come back to a TLS hello are not TLS: a plain HTTP server answering
 * (`HTTP/1.1 400` read as a record header).
 */
const PLAIN_HTTP_ANSWERS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/** Turns a connection or transfer failure into a NetworkError saying what failed, where. */
export function networkError(error: unknown, target: ResolvedTarget): NetworkError {
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  const where = `${target.hostname}:${target.port}`;
  if (target.url.protocol === 'https:' && PLAIN_HTTP_ANSWERS.has(code)) {
    const plain = new URL(target.url.href);
    plain.protocol = 'http:';
    if (plain.port === '') plain.port = String(target.port);
    const message = `The server at ${where} answered in plain HTTP, not TLS; use ${plain.href}`;
    return new NetworkError(message, target.url.href, { cause: error });
  }
  const message = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/i.test(code)
    ? `The TLS certificate of ${where} was not accepted: ${detail}${code === '' ? '' : ` (${code})`}.`
    : `Cannot reach ${where}: ${detail}${code === '' || detail.includes(code) ? '' : ` (${code})`}.`;
  return new NetworkError(message, target.url.href, { cause: error });
}
