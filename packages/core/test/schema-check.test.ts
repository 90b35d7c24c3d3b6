/**
 * Checking that a value is a JSON Schema document: the fast path (meta-fast-path.ts) and the cache of valid schema
 * texts (valid-schema-cache.ts) must never change a verdict Ajv's meta-schema validation gives, nor any issue.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type Agent,
  checkSchemaDocument,
  getAjv,
  IssueCollector,
  JSON_SCHEMA_2020_12,
  type ValidationIssue,
} from '../src/index.js';
import { plainJsonText } from '../src/json/plain-text.js';
import { createMetaFastPath } from '../src/json-schema/meta-fast-path.js';
import { isKnownValidSchema, rememberValidSchema } from '../src/json-schema/valid-schema-cache.js';
import { readVector } from './helpers.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);
const fastPath = createMetaFastPath(getAjv());
const metaSchema = getAjv().getSchema(JSON_SCHEMA_2020_12)!;

/** Ajv's verdict alone: what checkSchemaDocument answered before it had a fast path or a cache. */
function ajvVerdict(schema: unknown): boolean {
  try {
    return metaSchema(schema) === true;
  } catch {
    return false;
  }
}

/** What checkSchemaDocument answered before: a root `$schema` naming another dialect fails, else Ajv decides. */
function referenceVerdict(schema: unknown): boolean {
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
    const declared = (schema as Record<string, unknown>)['$schema'];
    if (typeof declared === 'string' && declared.replace(/#$/, '') !== JSON_SCHEMA_2020_12) return false;
  }
  return ajvVerdict(schema);
}

/** `[<hole>, ...items]`: Ajv reads the hole as undefined; a walk with `every` would skip it. */
function afterHole(...items: unknown[]): unknown[] {
  const out = new Array(items.length + 1);
  items.forEach((item, index) => {
    out[index + 1] = item;
  });
  return out;
}

function check(schema: unknown): { valid: boolean; issues: ValidationIssue[] } {
  const issues = new IssueCollector('Test');
  const valid = checkSchemaDocument(schema, '/s', issues, { codePrefix: 'test', what: 'The schema' });
  return { valid, issues: issues.issues };
}

const simpleType = fc.constantFrom(
  'array',
  'boolean',
  'integer',
  'null',
  'number',
  'object',
  'string',
  'strin',
);
const count = fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom(1.5, '3', null, 1e21, -0));
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom('1', null, 0, -0));
const text = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null));
const flag = fc.oneof(fc.boolean(), fc.constantFrom('true', 0));
const name = fc.constantFrom('a', 'b', 'c', '__proto__', '');
const json = fc.jsonValue({ maxDepth: 2 });

/** Schema-shaped values: mostly right, often wrong in one place, with keywords the fast path leaves to Ajv. */
const { schema } = fc.letrec<{ schema: unknown; object: unknown }>((tie) => {
  const sub = tie('schema');
  const values: Record<string, fc.Arbitrary<unknown>> = {
    type: fc.oneof(simpleType, fc.array(simpleType, { maxLength: 3 }), fc.constant(5)),
    enum: fc.oneof(fc.array(json, { maxLength: 3 }), json),
    const: json,
    default: json,
    examples: fc.oneof(fc.array(json, { maxLength: 2 }), json),
    multipleOf: fc.oneof(number, fc.constantFrom(0, -1, 0.5)),
    maximum: number,
    exclusiveMaximum: number,
    minimum: number,
    exclusiveMinimum: number,
    maxLength: count,
    minLength: count,
    maxItems: count,
    minItems: count,
    maxContains: count,
    minContains: count,
    maxProperties: count,
    minProperties: count,
    uniqueItems: flag,
    deprecated: flag,
    readOnly: flag,
    writeOnly: flag,
    title: text,
    description: text,
    $comment: text,
    format: text,
    contentEncoding: text,
    contentMediaType: text,
    required: fc.oneof(fc.array(fc.oneof(name, fc.integer()), { maxLength: 3 }), name),
    dependentRequired: fc.oneof(fc.dictionary(name, fc.array(name, { maxLength: 2 })), fc.array(name)),
    properties: fc.oneof(fc.dictionary(name, sub, { maxKeys: 3 }), fc.array(sub, { maxLength: 1 }), text),
    dependentSchemas: fc.oneof(fc.dictionary(name, sub, { maxKeys: 2 }), text),
    $defs: fc.oneof(fc.dictionary(name, sub, { maxKeys: 2 }), text),
    definitions: fc.oneof(fc.dictionary(name, sub, { maxKeys: 2 }), text),
    items: fc.oneof(sub, fc.array(sub, { maxLength: 2 }), text),
    additionalProperties: fc.oneof(sub, text),
    propertyNames: fc.oneof(sub, text),
    contains: sub,
    not: sub,
    if: sub,
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited.
    then: sub,
    else: sub,
    unevaluatedItems: sub,
    unevaluatedProperties: sub,
    contentSchema: sub,
    prefixItems: fc.oneof(fc.array(sub, { maxLength: 2 }), sub),
    allOf: fc.oneof(fc.array(sub, { maxLength: 2 }), sub),
    anyOf: fc.oneof(fc.array(sub, { maxLength: 2 }), sub),
    oneOf: fc.oneof(fc.array(sub, { maxLength: 2 }), sub),
    $schema: fc.constantFrom(
      JSON_SCHEMA_2020_12,
      `${JSON_SCHEMA_2020_12}#`,
      'not a uri',
      'urn:example:x',
      5,
      'http://exa mple.com/',
    ),
    $ref: fc.constantFrom('#/$defs/a', '#', 'other.json#/x', 'http://x y', '%', 5, ''),
    pattern: fc.constantFrom('^a+$', '(', 'a\\Zb', '[', '\\p{L}', 5, ''),
    // Rarer keywords, with the meta-schema's patterns.
    $id: fc.constantFrom('https://example.com/s', 'https://example.com/s#', '#frag', 'not a uri', 5),
    $anchor: fc.constantFrom('a', '1a', 'a b', 5),
    $dynamicAnchor: fc.constantFrom('meta', '-x'),
    patternProperties: fc.oneof(fc.dictionary(fc.constantFrom('^a', '('), sub, { maxKeys: 1 }), text),
    dependencies: fc.oneof(fc.dictionary(name, fc.oneof(sub, fc.array(name))), text),
    $vocabulary: fc.constantFrom({ 'https://example.com/v': true }, { x: 1 }, { 'not a uri': false }),
    // Keywords no meta-schema constrains.
    'x-awp-type': json,
    nullable: json,
  };
  const keywords = Object.keys(values);
  return {
    schema: fc.oneof({ depthSize: 'small', maxDepth: 4 }, fc.boolean(), tie('object'), json),
    object: fc
      .uniqueArray(fc.constantFrom(...keywords), { maxLength: 4 })
      .chain((chosen) => fc.record(Object.fromEntries(chosen.map((keyword) => [keyword, values[keyword]!])))),
  };
});

describe('JSON Schema document check', () => {
  test('the fast path never calls valid what Ajv calls invalid', () => {
    fc.assert(
      fc.property(schema, (value) => {
        if (fastPath(value)) assert.ok(ajvVerdict(value), JSON.stringify(value));
      }),
      { numRuns: runs * 20 },
    );
  });

  test('checkSchemaDocument gives the verdict it gave without fast path and cache, also when the same schema comes twice', () => {
    fc.assert(
      fc.property(schema, (value) => {
        const expected = referenceVerdict(value);
        const first = check(value);
        const second = check(value);
        assert.equal(first.valid, expected, JSON.stringify(value));
        assert.deepEqual(second, first);
        assert.equal(first.valid, !first.issues.some((issue) => issue.severity === 'error'));
      }),
      { numRuns: runs * 5 },
    );
  });

  test('the schemas agents carry take the fast path', () => {
    const fixtures = readVector<{ cases: Array<{ agent: Agent }> }>('round-trip-agents.json');
    const schemas = fixtures.cases.flatMap(({ agent }) =>
      agent.operations.flatMap((operation) => [operation.input, operation.output]),
    );
    assert.ok(schemas.length > 10);
    for (const value of schemas) {
      if (value === undefined) continue;
      assert.ok(fastPath(value), JSON.stringify(value));
    }
    for (const value of [
      true,
      {},
      { $schema: JSON_SCHEMA_2020_12, type: ['string', 'null'], minLength: 1, pattern: '^[a-z]+$' },
      { type: 'array', items: { $ref: '#/$defs/item' }, $defs: { item: { enum: [1, 'a', null] } } },
      { $id: 'https://example.com/s', patternProperties: { '^x-': {} }, dependencies: { a: ['b'], c: {} } },
      { type: 'object', properties: { when: { type: 'string', format: 'date-time' } }, 'x-awp-type': 'when' },
    ]) {
      assert.ok(fastPath(value), JSON.stringify(value));
    }
  });

  test('edge cases the meta-schema rejects are left to Ajv, which reports them', () => {
    for (const value of [
      { type: ['string', 'string'] },
      { type: [] },
      { required: ['a', 'a'] },
      { multipleOf: 0 },
      { minLength: -1 },
      { minLength: 1.5 },
      { items: [{ type: 'string' }] },
      { prefixItems: [] },
      { properties: { a: 5 } },
      { $id: '#frag' },
      { $anchor: '1a' },
      { dependencies: { a: ['b', 'b'] } },
      { allOf: new Array(1) },
      { type: afterHole('string') },
      { required: afterHole('a') },
    ]) {
      assert.equal(fastPath(value), false, JSON.stringify(value));
      const result = check(value);
      assert.equal(result.valid, false, JSON.stringify(value));
      assert.ok(result.issues.length > 0);
    }
  });

  test('values that are not plain JSON data are left to Ajv', () => {
    const hidden = { type: 'object' };
    Object.defineProperty(hidden, 'minLength', { value: -1, enumerable: false });
    class Schema {
      type = 'object';
    }
    for (const value of [hidden, new Schema(), { const: undefined }, { minimum: Number.NaN }]) {
      assert.equal(fastPath(value), false);
      assert.equal(plainJsonText(value), undefined);
      assert.equal(check(value).valid, referenceVerdict(value));
    }
    // A hidden member Ajv sees but JSON text would not: no cached "valid" may stand for it.
    assert.equal(check({ type: 'object' }).valid, true);
    assert.equal(check(hidden).valid, false);
  });

  test('the memory of valid schemas is bounded, and keeps what was used recently', () => {
    const small = '{"type":"string","title":"remembered"}';
    const recent = '{"type":"string","title":"used again"}';
    rememberValidSchema(small);
    rememberValidSchema(recent);
    assert.ok(isKnownValidSchema(small));
    // Twenty texts of 60,000 characters: far more than the memory holds.
    for (let i = 0; i < 20; i++) {
      rememberValidSchema(`{"description":"${String(i).padEnd(60_000, '.')}"}`);
      isKnownValidSchema(recent);
    }
    assert.equal(isKnownValidSchema(small), false);
    assert.ok(isKnownValidSchema(recent));
    assert.equal(isKnownValidSchema(`{"description":"${'0'.padEnd(60_000, '.')}"}`), false);
    assert.ok(isKnownValidSchema(`{"description":"${'19'.padEnd(60_000, '.')}"}`));
    // Longer than one entry may be: never remembered.
    const huge = `{"description":"${''.padEnd(70_000, '.')}"}`;
    rememberValidSchema(huge);
    assert.equal(isKnownValidSchema(huge), false);
  });

  test('plainJsonText is the JSON text of plain data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(plainJsonText(value), JSON.stringify(value));
      }),
      { numRuns: runs },
    );
    assert.equal(plainJsonText(new Array(3)), undefined);
    assert.equal(plainJsonText({ a: () => 1 }), undefined);
    assert.equal(plainJsonText({ a: new Date(0) }), undefined);
    assert.equal(plainJsonText(Object.create(null)), '{}');
  });
});
