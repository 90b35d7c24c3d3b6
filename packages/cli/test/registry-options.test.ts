/** `--embeddings` picks a provider and takes that provider's settings from the environment, whatever it names. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settingsFromEnv } from '@agentry/registry';
import { UsageError } from '../src/io/errors.js';
import { registryOptionsFrom } from '../src/io/registry-options.js';

const OPENAI_ENV = {
  AGENTRY_OPENAI_BASE_URL: 'https://embeddings.example/v1',
  AGENTRY_OPENAI_MODEL: 'small',
};

describe('registry options of serve and crawl', () => {
  test('--embeddings openai uses the AGENTRY_OPENAI_* settings without AGENTRY_EMBEDDINGS', () => {
    const options = registryOptionsFrom(settingsFromEnv(OPENAI_ENV), { embeddings: 'openai' });
    assert.equal(options.embeddings, 'openai');
    assert.deepEqual(options.embeddingOptions, { baseUrl: 'https://embeddings.example/v1', model: 'small' });
  });

  test('--embeddings use-lite does not hand the openai settings of AGENTRY_EMBEDDINGS to USE-lite', () => {
    const env = settingsFromEnv({
      ...OPENAI_ENV,
      AGENTRY_EMBEDDINGS: 'openai',
      AGENTRY_EMBEDDING_THREADS: '1',
    });
    const options = registryOptionsFrom(env, { embeddings: 'use-lite', db: 'x.db' });
    assert.equal(options.embeddings, 'use-lite');
    assert.deepEqual(options.embeddingOptions, { threads: 1 });
    assert.equal(options.databasePath, 'x.db');
    assert.equal(registryOptionsFrom(env, { embeddings: 'none' }).embeddingOptions, undefined);
  });

  test('an unknown provider, or openai without its settings, is a usage error that says what is missing', () => {
    assert.throws(
      () => registryOptionsFrom(settingsFromEnv({}), { embeddings: 'magic' }),
      (error: unknown) => error instanceof UsageError && /use-lite, openai, none/.test(error.message),
    );
    assert.throws(
      () => registryOptionsFrom(settingsFromEnv({}), { embeddings: 'openai' }),
      (error: unknown) => error instanceof UsageError && /AGENTRY_OPENAI_BASE_URL/.test(error.message),
    );
  });

  test('the per-origin crawl limits come from the flags, else the environment; none is no limit', () => {
    const env = settingsFromEnv({
      AGENTRY_MAX_AGENTS_PER_ORIGIN: '50',
      AGENTRY_MAX_DOCUMENTS_PER_ORIGIN: 'none',
    });
    assert.deepEqual(registryOptionsFrom(env, {}).crawl, {
      enabled: false,
      maxAgentsPerOrigin: 50,
      maxDocumentsPerOrigin: null,
    });
    const flagged = registryOptionsFrom(env, { maxAgentsPerOrigin: 'none', maxDocumentsPerOrigin: '8' });
    assert.deepEqual(flagged.crawl, { enabled: false, maxAgentsPerOrigin: null, maxDocumentsPerOrigin: 8 });
    assert.equal(registryOptionsFrom(settingsFromEnv({}), {}).crawl, undefined);
    assert.throws(
      () => settingsFromEnv({ AGENTRY_MAX_AGENTS_PER_ORIGIN: 'lots' }),
      /AGENTRY_MAX_AGENTS_PER_ORIGIN must be a positive integer or none; got "lots"/,
    );
    assert.throws(
      () => registryOptionsFrom(settingsFromEnv({}), { maxDocumentsPerOrigin: '-1' }),
      (error: unknown) => error instanceof UsageError && /--max-documents-per-origin/.test(error.message),
    );
  });
});
