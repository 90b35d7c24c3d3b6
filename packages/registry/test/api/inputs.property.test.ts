/** The readers of untrusted request input never throw, and cursors read back what they wrote. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonValue } from '@agentry/core';
import fc from 'fast-check';
import { type Cursor, decodeCursor, encodeCursor } from '../../src/api/cursor.js';
import { normaliseTimestamp, readListQuery, readSearchRequest } from '../../src/api/queries.js';
import { settingsFromEnv } from '../../src/config.js';
import { isUrlSafeId, preferredId } from '../../src/records/ids.js';
import { readRegistration } from '../../src/records/registration.js';
import { aidipAgent } from '../support.js';

const json = fc.jsonValue() as fc.Arbitrary<JsonValue>;

test('cursors round-trip, and any other text is refused without throwing', () => {
  const cursor: fc.Arbitrary<Cursor> = fc.oneof(
    fc.record({ kind: fc.constant('id' as const), after: fc.string() }),
    fc.record({ kind: fc.constant('changes' as const), at: fc.string(), id: fc.string() }),
    fc.record({ kind: fc.constant('search' as const), offset: fc.nat() }),
  );
  fc.assert(
    fc.property(cursor, (value) => assert.deepEqual(decodeCursor(encodeCursor(value)), { ...value })),
  );
  fc.assert(
    fc.property(fc.string(), (text) => {
      const decoded = decodeCursor(text);
      if (decoded !== undefined) assert.equal(decodeCursor(encodeCursor(decoded))?.kind, decoded.kind);
    }),
  );
  fc.assert(
    fc.property(json, (value) => void decodeCursor(Buffer.from(JSON.stringify(value)).toString('base64url'))),
  );
});

test('query strings and search bodies are read or refused, never thrown on', () => {
  const parameter = fc.constantFrom(
    'capabilities',
    'tags',
    'language',
    'status',
    'q',
    'mode',
    'limit',
    'cursor',
    'updated_since',
    'other',
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(parameter, fc.string()), { maxLength: 6 }), (pairs) => {
      const url = new URL('https://registry.example/agents');
      for (const [name, value] of pairs) url.searchParams.append(name, value);
      const read = readListQuery(url);
      if (read.ok) assert.ok(read.value.limit >= 1 && read.value.limit <= 100);
      else assert.equal(read.response.status, 400);
    }),
  );
  fc.assert(
    fc.property(json, (body) => {
      const read = readSearchRequest(body);
      if (!read.ok) assert.equal(read.response.status, 400);
    }),
  );
  fc.assert(
    fc.property(fc.string(), (text) => {
      const normalised = normaliseTimestamp(text);
      if (normalised !== undefined) assert.equal(normaliseTimestamp(normalised), normalised);
    }),
  );
});

test('registrations of arbitrary JSON are refused with issues, never thrown on', () => {
  fc.assert(
    fc.property(json, fc.boolean(), (body, all) => {
      const read = readRegistration({ body, all });
      if (!read.ok) assert.ok(read.refusal.detail.length > 0);
    }),
    { numRuns: 300 },
  );
  const wrapped = fc.record({ document: json, access: fc.option(json, { nil: undefined }) });
  fc.assert(
    fc.property(wrapped, (body) => void readRegistration({ body: body as JsonValue })),
    { numRuns: 200 },
  );
  const access = fc.oneof(json, fc.record({ groups: fc.array(fc.string(), { maxLength: 40 }) }));
  fc.assert(
    fc.property(access, (value) => {
      const read = readRegistration({ body: { ...aidipAgent({ name: 'A' }), access: value } as JsonValue });
      if (read.ok && read.value.access !== undefined && read.value.access !== null) {
        assert.ok(read.value.access.groups.length > 0);
      }
    }),
  );
});

test('every agent gets a URL-safe id', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (id, name) => {
      const chosen = preferredId({ id, name, description: '', operations: [], bindings: [] });
      assert.ok(isUrlSafeId(chosen) || chosen === 'agent', chosen);
      assert.equal(encodeURIComponent(chosen), chosen);
    }),
  );
});

test('settings from the environment: what is set, checked', () => {
  const settings = settingsFromEnv({
    AGENTRY_DB: '/var/lib/agentry/registry.db',
    AGENTRY_EMBEDDINGS: 'openai',
    AGENTRY_OPENAI_BASE_URL: 'https://embeddings.example/v1',
    AGENTRY_OPENAI_MODEL: 'small',
    AGENTRY_QUOTA: 'none',
    AGENTRY_TRUST_PROXY: '1',
    PORT: '8080',
  });
  assert.deepEqual(settings, {
    options: {
      databasePath: '/var/lib/agentry/registry.db',
      embeddings: 'openai',
      embeddingOptions: { baseUrl: 'https://embeddings.example/v1', model: 'small' },
      quotaPerPublisher: null,
      trustProxy: true,
    },
    providers: { openai: { baseUrl: 'https://embeddings.example/v1', model: 'small' } },
    port: 8080,
  });
  assert.deepEqual(settingsFromEnv({}), { options: {} });
  // USE-lite is the default provider: its threads apply unless another provider is named.
  assert.deepEqual(settingsFromEnv({ AGENTRY_EMBEDDING_THREADS: '3' }), {
    options: { embeddingOptions: { threads: 3 } },
    providers: { 'use-lite': { threads: 3 } },
  });
  assert.deepEqual(settingsFromEnv({ AGENTRY_EMBEDDING_THREADS: '3', AGENTRY_EMBEDDINGS: 'none' }), {
    options: { embeddings: 'none' },
    providers: { 'use-lite': { threads: 3 } },
  });
  for (const env of [
    { AGENTRY_EMBEDDINGS: 'magic' },
    { AGENTRY_EMBEDDINGS: 'openai' },
    { AGENTRY_EMBEDDINGS: 'openai', AGENTRY_OPENAI_BASE_URL: 'https://embeddings.example/v1' },
    { AGENTRY_EMBEDDING_THREADS: '0' },
    { AGENTRY_EMBEDDING_THREADS: 'two' },
    { AGENTRY_QUOTA: '-1' },
    { PORT: '70000' },
    { AGENTRY_PUBLIC_URL: 'registry' },
  ]) {
    assert.throws(() => settingsFromEnv(env), /must|needs/, JSON.stringify(env));
  }
  // DATABASE_URL names the database, PostgreSQL or SQLite, over AGENTRY_DB.
  assert.equal(
    settingsFromEnv({ DATABASE_URL: 'postgres://db/agentry', AGENTRY_DB: 'registry.db' }).options
      .databasePath,
    'postgres://db/agentry',
  );
});
