/**
 * Registry settings from environment variables, for `agentry serve` and containers. Only what is set is
 * returned; a value that cannot be right is an error naming the variable, not a silent default.
 */

import type { RegistryOptions } from './registry.js';
import {
  EMBEDDING_PROVIDER_KINDS,
  type EmbeddingProviderKind,
  type OpenAIEmbeddingOptions,
  type UseLiteOptions,
} from './search/index.js';

export interface EnvSettings {
  options: Partial<RegistryOptions>;
  /**
   * What the environment says of each embedding provider, whichever `AGENTRY_EMBEDDINGS` names: a command line
   * that picks the provider itself takes its settings from here (absent when the environment says nothing).
   */
  providers?: EmbeddingProviderSettings;
  port?: number;
  hostname?: string;
}

export interface EmbeddingProviderSettings {
  'use-lite'?: UseLiteOptions;
  openai?: OpenAIEmbeddingOptions;
}

/**
 * `DATABASE_URL` (`postgres://…`, or a SQLite file), else `AGENTRY_DB` (file), `AGENTRY_EMBEDDINGS` (`use-lite`, `openai`, `none`), `AGENTRY_EMBEDDING_THREADS` (USE-lite's
 * worker threads), `AGENTRY_OPENAI_BASE_URL`, `AGENTRY_OPENAI_MODEL`, `AGENTRY_OPENAI_API_KEY`, `AGENTRY_PUBLIC_URL`,
 * `AGENTRY_MAX_BODY_BYTES`, `AGENTRY_QUOTA` (a number, or `none`), `AGENTRY_MAX_AGENTS_PER_ORIGIN` and
 * `AGENTRY_MAX_DOCUMENTS_PER_ORIGIN` (the crawler's per-origin limits: a number, or `none`), `AGENTRY_TRUST_PROXY`
 * (`1`), `PORT`, `HOST`.
 * `AGENTRY_ADMIN_TOKEN` is read by `createRegistry` itself (`adminTokenFromEnv`).
 */
export function settingsFromEnv(env: Record<string, string | undefined> = process.env): EnvSettings {
  const options: Partial<RegistryOptions> = {};
  const value = (name: string): string | undefined => {
    const text = env[name]?.trim();
    return text === undefined || text === '' ? undefined : text;
  };
  // DATABASE_URL (a postgres:// URL, or a SQLite file or sqlite: URL) over AGENTRY_DB (a SQLite file).
  const db = value('DATABASE_URL') ?? value('AGENTRY_DB');
  if (db !== undefined) options.databasePath = db;
  const providers: EmbeddingProviderSettings = {};
  const threads = value('AGENTRY_EMBEDDING_THREADS');
  if (threads !== undefined)
    providers['use-lite'] = { threads: positiveInteger('AGENTRY_EMBEDDING_THREADS', threads) };
  const baseUrl = value('AGENTRY_OPENAI_BASE_URL');
  const model = value('AGENTRY_OPENAI_MODEL');
  if (baseUrl !== undefined && model !== undefined) {
    const openai: OpenAIEmbeddingOptions = { baseUrl, model };
    const apiKey = value('AGENTRY_OPENAI_API_KEY');
    if (apiKey !== undefined) openai.apiKey = apiKey;
    providers.openai = openai;
  }
  const embeddings = value('AGENTRY_EMBEDDINGS');
  if (embeddings !== undefined) {
    if (!(EMBEDDING_PROVIDER_KINDS as readonly string[]).includes(embeddings)) {
      throw new Error(`AGENTRY_EMBEDDINGS must be use-lite, openai or none; got "${embeddings}".`);
    }
    options.embeddings = embeddings as EmbeddingProviderKind;
  }
  const chosen = embeddingOptionsFor(options.embeddings ?? 'use-lite', providers);
  if (chosen !== undefined) options.embeddingOptions = chosen;
  const publicUrl = value('AGENTRY_PUBLIC_URL');
  if (publicUrl !== undefined) {
    if (!URL.canParse(publicUrl))
      throw new Error(`AGENTRY_PUBLIC_URL must be an absolute URL; got "${publicUrl}".`);
    options.publicUrl = publicUrl;
  }
  const maxBody = value('AGENTRY_MAX_BODY_BYTES');
  if (maxBody !== undefined) options.maxBodyBytes = positiveInteger('AGENTRY_MAX_BODY_BYTES', maxBody);
  const quota = value('AGENTRY_QUOTA');
  if (quota !== undefined)
    options.quotaPerPublisher = quota === 'none' ? null : positiveInteger('AGENTRY_QUOTA', quota);
  const maxAgents = value('AGENTRY_MAX_AGENTS_PER_ORIGIN');
  const maxDocuments = value('AGENTRY_MAX_DOCUMENTS_PER_ORIGIN');
  if (maxAgents !== undefined || maxDocuments !== undefined) {
    // Limits only: whether the crawler runs in the background is the command line's to say.
    options.crawl = { enabled: false };
    if (maxAgents !== undefined)
      options.crawl.maxAgentsPerOrigin = limitOrNone('AGENTRY_MAX_AGENTS_PER_ORIGIN', maxAgents);
    if (maxDocuments !== undefined)
      options.crawl.maxDocumentsPerOrigin = limitOrNone('AGENTRY_MAX_DOCUMENTS_PER_ORIGIN', maxDocuments);
  }
  if (value('AGENTRY_TRUST_PROXY') === '1') options.trustProxy = true;
  const settings: EnvSettings = { options };
  if (Object.keys(providers).length > 0) settings.providers = providers;
  const port = value('PORT');
  if (port !== undefined) {
    const number = Number(port);
    if (!Number.isInteger(number) || number < 0 || number > 65535)
      throw new Error(`PORT must be 0 to 65535; got "${port}".`);
    settings.port = number;
  }
  const host = value('HOST');
  if (host !== undefined) settings.hostname = host;
  return settings;
}

/**
 * The options of the embedding provider `kind` from what the environment said of each; an error naming the
 * variables when `openai` is chosen without them.
 */
export function embeddingOptionsFor(
  kind: EmbeddingProviderKind,
  providers: EmbeddingProviderSettings = {},
): UseLiteOptions | OpenAIEmbeddingOptions | undefined {
  if (kind === 'openai') {
    if (providers.openai === undefined) {
      throw new Error(
        'The openai embedding provider needs AGENTRY_OPENAI_BASE_URL and AGENTRY_OPENAI_MODEL.',
      );
    }
    return providers.openai;
  }
  return kind === 'use-lite' ? providers['use-lite'] : undefined;
}

/** A positive integer, or `none` (no limit) as null. */
export function limitOrNone(name: string, text: string): number | null {
  if (text.trim().toLowerCase() === 'none') return null;
  const number = Number(text);
  if (!Number.isInteger(number) || number < 1)
    throw new Error(`${name} must be a positive integer or none; got "${text}".`);
  return number;
}

function positiveInteger(name: string, text: string): number {
  const number = Number(text);
  if (!Number.isInteger(number) || number < 1)
    throw new Error(`${name} must be a positive integer; got "${text}".`);
  return number;
}

/** `AGENTRY_ADMIN_TOKEN`, trimmed; undefined when unset or blank. */
export function adminTokenFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  const value = env['AGENTRY_ADMIN_TOKEN']?.trim();
  return value === undefined || value === '' ? undefined : value;
}
