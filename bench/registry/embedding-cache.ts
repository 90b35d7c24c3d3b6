/**
 * Preloading 10,000 agents through USE-lite takes minutes to half an hour on a small machine, and the preload is
 * not what the bench measures. This provider answers the preload from a file of vectors made by the same model on
 * an earlier run (keyed by the exact text), embeds what it has not seen, and saves them. Once `passThrough()` is
 * called every text goes to the model, so registrations and searches pay the real cost.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { EmbeddingProvider } from '@agentry/embeddings';

export interface CachingProvider extends EmbeddingProvider {
  /** From now on, every text is embedded by the model. */
  passThrough(): void;
  /** Writes the vectors learnt since the file was read. */
  save(): void;
}

interface CacheFile {
  provider: string;
  dimensions: number;
  /** [text, base64 of little-endian float32] */
  entries: Array<[string, string]>;
}

export function cachingProvider(inner: EmbeddingProvider, file: string): CachingProvider {
  const vectors = new Map<string, Float32Array>();
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (stored.provider === inner.id) {
      for (const [text, encoded] of stored.entries) {
        const bytes = Buffer.from(encoded, 'base64');
        vectors.set(
          text,
          new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)),
        );
      }
    }
  }
  let learnt = 0;
  let cached = true;
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    ...(inner.concurrency === undefined ? {} : { concurrency: inner.concurrency }),
    ...(inner.similarityFloors === undefined ? {} : { similarityFloors: inner.similarityFloors }),
    async embed(texts, options) {
      if (!cached) return inner.embed(texts, options);
      const missing = [...new Set(texts.filter((text) => !vectors.has(text)))];
      if (missing.length > 0) {
        const embedded = await inner.embed(missing, options);
        for (const [i, text] of missing.entries()) vectors.set(text, embedded[i]!);
        learnt += missing.length;
      }
      return texts.map((text) => vectors.get(text)!);
    },
    passThrough() {
      cached = false;
    },
    save() {
      if (learnt === 0) return;
      const entries: Array<[string, string]> = [...vectors].map(([text, vector]) => [
        text,
        Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64'),
      ]);
      const body: CacheFile = { provider: inner.id, dimensions: inner.dimensions, entries };
      writeFileSync(file, JSON.stringify(body));
      learnt = 0;
    },
  };
}
