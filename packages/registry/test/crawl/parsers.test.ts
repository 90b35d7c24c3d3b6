/**
 * Property tests of what the crawler reads from strangers: cache headers, origins, AI Catalogs, WoT directories
 * and OpenAPI documents never throw, whatever they hold; synthetic surfaces always validate with core's awp codec;
 * merging does not depend on the order documents arrive in.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readDocument } from '@agentry/core';
import fc from 'fast-check';
import { freshnessLifetime } from '../../src/crawl/cache-lifetime.js';
import { readAiCatalog, readWotDirectory } from '../../src/crawl/index-documents.js';
import { type Description, mergeDescriptions } from '../../src/crawl/merge.js';
import { normalizeOrigin } from '../../src/crawl/origins.js';
import { openApiToAwp } from '../../src/synthetic/openapi-to-awp.js';
import { emitted, openApiDocument } from './support/documents.js';

const NOW = Date.parse('2026-11-21T00:00:00Z');

describe('freshnessLifetime', () => {
  test('reads max-age, s-maxage, Age, Expires and the Last-Modified heuristic', () => {
    const lifetime = (headers: Record<string, string>) => freshnessLifetime(new Headers(headers), NOW);
    assert.equal(lifetime({ 'cache-control': 'public, max-age=300' }), 300);
    assert.equal(lifetime({ 'cache-control': 'max-age=300, s-maxage=60' }), 60);
    assert.equal(lifetime({ 'cache-control': 'max-age=300', age: '100' }), 200);
    assert.equal(lifetime({ 'cache-control': 'no-store, max-age=300' }), 0);
    assert.equal(lifetime({ 'cache-control': 'no-cache' }), 0);
    const date = new Date(NOW).toUTCString();
    assert.equal(lifetime({ date, expires: new Date(NOW + 90_000).toUTCString() }), 90);
    assert.equal(lifetime({ date, expires: 'garbage' }), 0);
    assert.equal(lifetime({ date, 'last-modified': new Date(NOW - 1_000_000).toUTCString() }), 100);
    assert.equal(lifetime({}), undefined);
  });

  test('never throws and never answers a negative number', () => {
    const header = fc.oneof(
      fc.string(),
      fc.constantFrom('max-age=', 'max-age=-5', 'max-age=1e9', 's-maxage="7"'),
    );
    fc.assert(
      fc.property(header, header, header, header, (cacheControl, age, expires, lastModified) => {
        const headers = new Headers();
        const set = (name: string, value: string): void => {
          try {
            headers.set(name, value);
          } catch {
            // Not a valid header value: a server could not have sent it either.
          }
        };
        set('cache-control', cacheControl);
        set('age', age);
        set('expires', expires);
        set('last-modified', lastModified);
        const lifetime = freshnessLifetime(headers, NOW);
        assert.ok(lifetime === undefined || (Number.isFinite(lifetime) && lifetime >= 0));
      }),
      { numRuns: 300 },
    );
  });
});

describe('normalizeOrigin', () => {
  test('one key per origin, whatever the spelling', () => {
    assert.equal(normalizeOrigin('Agents.Example.com'), 'https://agents.example.com');
    assert.equal(normalizeOrigin('https://agents.example.com:443/path?q#f'), 'https://agents.example.com');
    assert.equal(normalizeOrigin('http://localhost:8080/'), 'http://localhost:8080');
    assert.throws(() => normalizeOrigin('https://user:pw@example.com'), TypeError);
    assert.throws(() => normalizeOrigin('mailto:someone@example.com'), TypeError);
  });

  test('either throws a TypeError or gives an origin that normalises to itself', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.domain()), (input) => {
        let origin: string;
        try {
          origin = normalizeOrigin(input);
        } catch (error) {
          assert.ok(error instanceof TypeError);
          return;
        }
        assert.equal(normalizeOrigin(origin), origin);
        assert.match(origin, /^https?:\/\/[^/]+$/);
      }),
      { numRuns: 300 },
    );
  });
});

describe('index documents', () => {
  test('AI Catalogs and WoT directories of any shape are read without throwing, links absolute', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (a, b) => {
        for (const value of [a, { entries: [a, b] }, { things: [a, b], links: [a] }, [a, b]]) {
          for (const contents of [
            readAiCatalog(value, 'https://x.example/.well-known/ai-catalog.json'),
            readWotDirectory(value, 'https://x.example/.well-known/wot'),
          ]) {
            for (const url of [...contents.links, ...contents.indexes]) assert.match(url, /^https?:\/\//);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('openApiToAwp', () => {
  const options = {
    origin: 'https://api.example.com',
    sourceUrl: 'https://api.example.com/openapi.json',
    verifiedAt: '2026-11-21T00:00:00Z',
  };

  test('maps operations to actions with typed inputs and outputs, and validates with the awp codec', () => {
    const surface = openApiToAwp(openApiDocument(), options);
    assert.ok(surface);
    const read = readDocument(surface.document, { format: 'awp' });
    assert.deepEqual(
      read.issues.filter((issue) => issue.severity === 'error'),
      [],
    );
    const actions = surface.document['actions'] as Array<Record<string, unknown>>;
    assert.deepEqual(actions[0], {
      id: 'getForecast',
      description: 'The forecast for a city',
      inputs: {
        city: { type: 'string', required: true },
        days: { type: 'integer', default: 3 },
        units: { type: 'enum', options: ['metric', 'imperial'] },
      },
      outputs: { city: 'string', days: 'array[float]' },
      endpoint: 'https://api.example.com/v2/forecast',
      method: 'GET',
      auth_required: false,
    });
    assert.equal(actions[1]?.['auth_required'], true);
    assert.deepEqual(Object.keys(actions[1]?.['inputs'] as object), ['city', 'callback', 'until']);
    assert.equal(surface.document['source'], 'synthetic');
    assert.equal(surface.document['last_verified'], options.verifiedAt);
    assert.equal(read.agents[0]?.provenance?.origin, 'synthetic');
  });

  test('a sparser document gets a lower confidence', () => {
    const full = openApiToAwp(openApiDocument(), options)!.confidence;
    const sparse = openApiToAwp(
      { openapi: '3.0.0', info: {}, paths: { '/x': { post: { responses: {} } } } },
      options,
    )!.confidence;
    assert.ok(full > sparse, `${full} > ${sparse}`);
    assert.ok(full <= 0.95 && sparse >= 0);
  });

  test('whatever the document, it never throws, and any surface it makes validates', () => {
    const schema = fc.oneof(
      fc.record({
        type: fc.constantFrom('string', 'integer', 'number', 'boolean', 'array', 'object', 'null'),
      }),
      fc.record({
        $ref: fc.constantFrom('#/components/schemas/A', '#/nowhere', '#/components/schemas/Loop'),
      }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const operation = fc.record(
      {
        operationId: fc.oneof(fc.string(), fc.constant('same')),
        summary: fc.string(),
        parameters: fc.array(
          fc.record(
            { name: fc.string(), in: fc.constantFrom('query', 'path', 'header'), schema },
            { requiredKeys: [] },
          ),
        ),
        requestBody: fc.record({ content: fc.record({ 'application/json': fc.record({ schema }) }) }),
        responses: fc.record({
          '200': fc.record({ content: fc.record({ 'application/json': fc.record({ schema }) }) }),
        }),
        security: fc.array(fc.dictionary(fc.string(), fc.array(fc.string()))),
      },
      { requiredKeys: [] },
    );
    const document = fc.record({
      openapi: fc.constantFrom('3.0.3', '3.1.0'),
      info: fc.record({ title: fc.string(), description: fc.string() }, { requiredKeys: [] }),
      servers: fc.array(fc.record({ url: fc.oneof(fc.webUrl(), fc.string()) })),
      paths: fc.dictionary(
        fc.string(),
        fc.record({ get: operation, post: operation, delete: operation }, { requiredKeys: [] }),
      ),
      components: fc.record({
        schemas: fc.record({ A: schema, Loop: fc.constant({ $ref: '#/components/schemas/Loop' }) }),
      }),
    });
    fc.assert(
      fc.property(fc.oneof(document, fc.jsonValue({ maxDepth: 3 })), (value) => {
        const surface = openApiToAwp(value, options);
        if (surface === undefined) return;
        assert.ok(surface.confidence >= 0 && surface.confidence <= 0.95);
        const read = readDocument(surface.document, { format: 'awp' });
        const errors = read.issues.filter((issue) => issue.severity === 'error');
        assert.deepEqual(errors, [], JSON.stringify(surface.document));
      }),
      { numRuns: 200 },
    );
  });
});

describe('mergeDescriptions', () => {
  test('the merged agents do not depend on the order the documents arrive in', () => {
    const origin = 'https://agents.example.com';
    const descriptions: Description[] = (['woa', 'a2a', 'td', 'mcp', 'agent-json', 'awp'] as const).flatMap(
      (format) =>
        emitted(origin, format).flatMap((document, index) =>
          readDocument(document, { format }).agents.map((agent) => ({
            agent,
            format,
            documentUrl: `${origin}/${format}/${index}`,
            source: {
              url: `${origin}/${format}/${index}`,
              format,
              origin: 'native' as const,
              fetchedAt: '2026-11-21T00:00:00Z',
              primary: false,
            },
          })),
        ),
    );
    const reference = JSON.stringify(mergeDescriptions(origin, descriptions).agents);
    assert.deepEqual(
      mergeDescriptions(origin, descriptions).agents.map((agent) => agent.id),
      ['keywords', 'summarizer'],
    );
    fc.assert(
      fc.property(fc.shuffledSubarray(descriptions, { minLength: descriptions.length }), (shuffled) => {
        assert.equal(JSON.stringify(mergeDescriptions(origin, shuffled).agents), reference);
      }),
      { numRuns: 50 },
    );
  });
});
