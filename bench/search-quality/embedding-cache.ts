/**
 * A disk cache in front of an embedding provider, for iterating on the bench: the model is deterministic, so a
 * text's vector can be reused across runs. Opt-in (`--embedding-cache <file>`); results are identical without it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { EmbeddingProvider, EmbedOptions } from '@agentry/embeddings';

export function cachedProvider(
  provider: EmbeddingProvider,
  file: string,
): EmbeddingProvider & { save(): void } {
  const stored: Record<string, string> = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>)
    : {};
  const keyOf = (text: string) =>
    createHash('sha256').update(`${provider.id}\u0000${text}`).digest('base64url');
  return {
    id: provider.id,
    ...(provider.similarityFloors === undefined ? {} : { similarityFloors: provider.similarityFloors }),
    get dimensions() {
      return provider.dimensions;
    },
    async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
      const missing = [...new Set(texts.filter((text) => stored[keyOf(text)] === undefined))];
      if (missing.length > 0) {
        const vectors = await provider.embed(missing, options);
        missing.forEach((text, i) => {
          stored[keyOf(text)] = Buffer.from(vectors[i]!.buffer).toString('base64');
        });
      }
      return texts.map((text) => {
        const bytes = Buffer.from(stored[keyOf(text)]!, 'base64');
        return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      });
    },
    save(): void {
      writeFileSync(file, JSON.stringify(stored));
    },
  };
}
