/** Picks an embedding provider by name, as configuration names it. */

import { createOpenAIEmbeddingProvider, type OpenAIEmbeddingOptions } from './openai.js';
import type { EmbeddingProvider } from './provider.js';
import { createUseLiteProvider, type UseLiteOptions } from './use-lite/use-lite.js';

export type EmbeddingProviderKind = 'use-lite' | 'openai' | 'none';

export const EMBEDDING_PROVIDER_KINDS: readonly EmbeddingProviderKind[] = ['use-lite', 'openai', 'none'];

/**
 * The provider a configuration names: `use-lite` (the bundled model, offline), `openai` (any OpenAI-compatible
 * server) or `none`, which gives no provider: a search index is then lexical only.
 *
 * @example
 * ```ts
 * import { createEmbeddingProvider } from '@agentry/embeddings';
 *
 * const bundled = createEmbeddingProvider('use-lite');
 * const local = createEmbeddingProvider('openai', {
 *   baseUrl: 'http://localhost:11434/v1',
 *   model: 'nomic-embed-text',
 * });
 * const [vector] = await bundled.embed(['will it rain in Paris tomorrow?'], { purpose: 'query' });
 * console.log(bundled.id, vector?.length, local.id); // use-lite-512 512 openai:nomic-embed-text
 * ```
 */
export function createEmbeddingProvider(kind: 'none'): undefined;
export function createEmbeddingProvider(kind: 'use-lite', options?: UseLiteOptions): EmbeddingProvider;
export function createEmbeddingProvider(kind: 'openai', options: OpenAIEmbeddingOptions): EmbeddingProvider;
export function createEmbeddingProvider(
  kind: EmbeddingProviderKind,
  options?: UseLiteOptions | OpenAIEmbeddingOptions,
): EmbeddingProvider | undefined;
export function createEmbeddingProvider(
  kind: EmbeddingProviderKind,
  options?: UseLiteOptions | OpenAIEmbeddingOptions,
): EmbeddingProvider | undefined {
  switch (kind) {
    case 'none':
      return undefined;
    case 'use-lite':
      return createUseLiteProvider(options as UseLiteOptions | undefined);
    case 'openai': {
      const openai = options as Partial<OpenAIEmbeddingOptions> | undefined;
      if (!openai?.baseUrl || !openai.model) {
        throw new TypeError('the openai embedding provider needs a baseUrl and a model');
      }
      return createOpenAIEmbeddingProvider(openai as OpenAIEmbeddingOptions);
    }
    default:
      throw new TypeError(
        `unknown embedding provider "${String(kind)}" (expected ${EMBEDDING_PROVIDER_KINDS.join(', ')})`,
      );
  }
}
