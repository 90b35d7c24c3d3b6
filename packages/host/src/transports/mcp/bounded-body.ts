/**
 * Reads a request body up to a bound, refusing a larger one by its declared length before reading and by the bytes
 * seen while reading (a chunked body declares none).
 */
export type BoundedBody = { kind: 'text'; text: string } | { kind: 'too-large' };

export async function readBoundedBody(request: Request, maxBytes: number): Promise<BoundedBody> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel();
    return { kind: 'too-large' };
  }
  if (request.body === null) return { kind: 'text', text: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { kind: 'too-large' };
    }
    chunks.push(value);
  }
  return { kind: 'text', text: Buffer.concat(chunks).toString('utf8') };
}
