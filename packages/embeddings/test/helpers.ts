/**
 * Test helpers for the embedding tests: a loopback HTTP server, an OpenAI-compatible embeddings endpoint over a
 * deterministic bag-of-words model, the cosine similarity, and a seeded number stream.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 (port 0) answering with `handle`; it records every request. */
export async function startServer(
  handle: (body: string, request: IncomingMessage, response: ServerResponse) => void,
): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handle(body, request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A deterministic stand-in model for an OpenAI-compatible server: each word (lower case) adds 1 to a dimension
 * chosen by its hash, so texts sharing words are similar. Enough to test the index's semantic plumbing quickly.
 */
export function bagOfWordsEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = 2166136261;
    for (const ch of word) hash = Math.imul(hash ^ ch.codePointAt(0)!, 16777619);
    vector[(hash >>> 0) % dimensions]! += 1;
  }
  return vector;
}

/** An OpenAI-style embeddings endpoint over `bagOfWordsEmbedding`. */
export function embeddingsHandler(dimensions: number) {
  return (body: string, _request: IncomingMessage, response: ServerResponse) => {
    const { input } = JSON.parse(body) as { input: string[] };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        object: 'list',
        data: input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: bagOfWordsEmbedding(text, dimensions),
        })),
        model: 'bag-of-words',
      }),
    );
  };
}

/** The cosine similarity of two vectors (0 when either is zero). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa === 0 || bb === 0 ? 0 : dot / Math.sqrt(aa * bb);
}

/** The index's seeded uniform numbers: every run of a test sees the same ones. */
export { seededUniform } from '../src/vectors/seeded-uniform.js';

/** The ids of a pass (an array, or the ANN index's view that reads each when asked) as an array. */
export function idsOf(ids: { readonly length: number; at(index: number): string | undefined }): string[] {
  return Array.from({ length: ids.length }, (_, i) => ids.at(i)!);
}
