/**
 * Newline-delimited JSON (`application/x-ndjson`, also the agent:// §8 format for `agent+wss://` streams): one JSON
 * text per line, blank lines ignored, `\r\n` accepted. A line that is not JSON ends the stream with an error that
 * quotes it; a line longer than the limit ends it too, so a peer cannot make us buffer without bound.
 */
import { AgentryError, type AgentryErrorCode, type JsonValue } from '@agentry/core';

export class StreamFormatError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'BadAgentResponse';
  override readonly name = 'StreamFormatError';
  constructor(
    message: string,
    readonly kind: 'syntax' | 'too-large',
  ) {
    super(message);
  }
}

/** Default bound on one NDJSON line or SSE event (matches the fetcher's default response bound). */
export const DEFAULT_MESSAGE_LIMIT = 5 * 1024 * 1024;

export async function* parseNdjson(
  chunks: AsyncIterable<string>,
  maxLineLength: number = DEFAULT_MESSAGE_LIMIT,
): AsyncGenerator<JsonValue> {
  let pending = '';
  for await (const chunk of chunks) {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const value = parseLine(line, maxLineLength);
      if (value !== undefined) yield value.json;
      newline = pending.indexOf('\n');
    }
    if (pending.length > maxLineLength) throw tooLong(maxLineLength);
  }
  // The last line need not end with a newline.
  const value = parseLine(pending, maxLineLength);
  if (value !== undefined) yield value.json;
}

function parseLine(raw: string, maxLineLength: number): { json: JsonValue } | undefined {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line.trim() === '') return undefined;
  if (line.length > maxLineLength) throw tooLong(maxLineLength);
  try {
    return { json: JSON.parse(line) as JsonValue };
  } catch {
    const shown = line.length > 80 ? `${line.slice(0, 80)}…` : line;
    throw new StreamFormatError(`An NDJSON line is not JSON: ${JSON.stringify(shown)}`, 'syntax');
  }
}

function tooLong(limit: number): StreamFormatError {
  return new StreamFormatError(`An NDJSON line is longer than ${limit} characters`, 'too-large');
}
