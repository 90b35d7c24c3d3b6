/**
 * The registry options `serve` and `crawl` share: the environment's settings (`settingsFromEnv`), the database file
 * and the `--embeddings` flag, which picks a provider and takes that provider's settings from the environment.
 */
import {
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProviderKind,
  type EnvSettings,
  embeddingOptionsFor,
  type RegistryOptions,
  settingsFromEnv,
} from '@agentry/registry';
import { UsageError } from './errors.js';

export function environmentSettings(): EnvSettings {
  try {
    return settingsFromEnv(process.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function registryOptionsFrom(
  env: EnvSettings,
  flags: { db?: string; embeddings?: string },
): RegistryOptions {
  const options: RegistryOptions = {
    ...env.options,
    databasePath: flags.db ?? env.options.databasePath ?? 'agentry.db',
  };
  if (flags.embeddings === undefined) return options;
  if (!(EMBEDDING_PROVIDER_KINDS as readonly string[]).includes(flags.embeddings)) {
    throw new UsageError(
      `--embeddings must be ${EMBEDDING_PROVIDER_KINDS.join(', ')}; got "${flags.embeddings}"`,
    );
  }
  const kind = flags.embeddings as EmbeddingProviderKind;
  options.embeddings = kind;
  let chosen: ReturnType<typeof embeddingOptionsFor>;
  try {
    chosen = embeddingOptionsFor(kind, env.providers);
  } catch {
    throw new UsageError('--embeddings openai needs AGENTRY_OPENAI_BASE_URL and AGENTRY_OPENAI_MODEL');
  }
  if (chosen === undefined) delete options.embeddingOptions;
  else options.embeddingOptions = chosen;
  return options;
}
