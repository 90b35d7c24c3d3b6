/** Turns a response body into text chunks, decoding UTF-8 across chunk boundaries. */

export async function* textChunks(body: AsyncIterable<Uint8Array> | null): AsyncGenerator<string> {
  if (body === null) return;
  const decoder = new TextDecoder('utf-8');
  for await (const bytes of body) {
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}
