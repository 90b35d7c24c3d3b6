/**
 * Reads a response body into memory, never more than the limit: a declared Content-Length over it is refused before
 * reading, and an undeclared or lying length is cut off the moment the count passes it.
 */
import type { Readable } from 'node:stream';
import { ResponseTooLargeError } from './errors.js';

export async function readBounded(
  body: Readable,
  limit: number,
  url: string,
  declaredLength: string | undefined,
): Promise<Uint8Array> {
  const tooLarge = (what: string): ResponseTooLargeError => {
    body.destroy();
    return new ResponseTooLargeError(
      `The response from ${url} ${what} the limit of ${limit} bytes; raise maxResponseBytes to accept it.`,
      url,
      limit,
    );
  };
  if (declaredLength !== undefined && Number(declaredLength) > limit) {
    throw tooLarge(`declares ${declaredLength} bytes, over`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > limit) throw tooLarge('exceeds');
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
