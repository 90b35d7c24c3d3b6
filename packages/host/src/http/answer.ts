/**
 * What the router answers before it is a web `Response`: a status, header fields and a body that is already whole
 * (text or bytes) or a stream. `host.fetch` wraps it in a `Response`; the Node adapter writes it to the socket
 * directly, which saves the web body and `Headers` machinery on every call.
 */

/** Header fields in order, names in lower case; a name repeats only where HTTP allows it (`set-cookie`). */
export type HeaderFields = ReadonlyArray<readonly [name: string, value: string]>;

export interface Answer {
  readonly status: number;
  readonly headers: HeaderFields;
  readonly body: string | Uint8Array | ReadableStream<Uint8Array> | null;
  /** A 404 that means "no route here" (not "no such agent"): adapters that share an app pass these on. */
  readonly unrouted?: boolean;
}

const unroutedResponses = new WeakSet<Response>();

/** The web-standard response for an answer. */
export function toResponse(answer: Answer): Response {
  const response = new Response(answer.body, {
    status: answer.status,
    headers: answer.headers as [string, string][],
  });
  if (answer.unrouted === true) unroutedResponses.add(response);
  return response;
}

/** A response made elsewhere (the MCP transport's), as an answer. */
export function answerOf(response: Response): Answer {
  // Iterating `Headers` gives each `set-cookie` on its own.
  return { status: response.status, headers: [...response.headers], body: response.body };
}

/** Whether `host.fetch` answered this 404 because no route matched. */
export function isUnrouted(response: Response): boolean {
  return unroutedResponses.has(response);
}

/** `fields` set over `headers`, as `Headers.set` would: a name in `fields` replaces that name's values. */
export function withFields(headers: Headers, fields: HeaderFields): HeaderFields {
  let out: Array<readonly [string, string]> | undefined;
  for (const field of headers) {
    if (fields.some(([name]) => name === field[0])) continue;
    out ??= [...fields];
    out.push(field);
  }
  // Most answers add nothing to the fixed fields, which are then used as they are.
  return out ?? fields;
}

/** The value of a field (names in lower case), or undefined. */
export function fieldValue(fields: HeaderFields, name: string): string | undefined {
  return fields.find((field) => field[0] === name)?.[1];
}
