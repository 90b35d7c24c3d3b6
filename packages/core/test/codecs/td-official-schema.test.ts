/**
 * The official TD JSON Schema check answers valid TDs from a first pass with shortcuts: remembered verdicts on
 * security schemes, and a walk of action DataSchemas. Its verdict must always be the plain schema's, also when the
 * same scheme comes again, valid or not; and the walk must never vouch for a DataSchema the schema rejects.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import {
  isEvidentlyValidContext,
  isEvidentlyValidDataSchema,
  isEvidentlyValidTypeDeclaration,
} from '../../src/codecs/td/first-pass-checks.js';
import { validateThingDescription } from '../../src/codecs/td/official-schema.js';
import { type Agent, codecs } from '../../src/index.js';
import { DELETE, mutate } from '../arbitraries.js';
import { readVector } from '../helpers.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);

type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);
const tdSchema = createRequire(import.meta.url)(
  'wot-thing-description-types/schema/td-json-schema-validation.json',
) as object;
const referenceAjv = new Ajv({ strict: false });
addFormats(referenceAjv);
const reference = referenceAjv.compile(tdSchema);
const definition = (name: string) =>
  referenceAjv.getSchema(`${(tdSchema as { $id: string }).$id}#/definitions/${name}`)!;
const referenceDataSchema = definition('dataSchema');

const fixtures = readVector<{ baseUrl: string; cases: Array<{ agent: Agent }> }>('round-trip-agents.json');
const seeds = fixtures.cases.map(
  ({ agent }) => codecs.td.emit([agent], { baseUrl: fixtures.baseUrl }).document as Record<string, unknown>,
);

/** Security schemes of every kind, well and badly formed. */
const scheme = fc.oneof(
  fc.record(
    {
      scheme: fc.constantFrom(
        'nosec',
        'auto',
        'basic',
        'digest',
        'apikey',
        'bearer',
        'psk',
        'oauth2',
        'combo',
      ),
      in: fc.constantFrom('header', 'query', 'body', 'cookie', 'uri', 'auto', 'nowhere'),
      name: fc.string({ maxLength: 3 }),
      flow: fc.constantFrom('code', 'client', 5),
      oneOf: fc.array(fc.constantFrom('a', 'b'), { maxLength: 3 }),
      qop: fc.constantFrom('auth', 'auth-int', 'x'),
      proxy: fc.oneof(fc.constant('https://proxy.example'), fc.integer()),
    },
    { requiredKeys: [] },
  ),
  fc.record({ scheme: fc.constantFrom('ace:ACESecurityScheme', 'x:', ':x', '') }),
  fc.jsonValue({ maxDepth: 1 }),
);

/** DataSchema-shaped values: mostly right, often wrong in one place. */
const { dataSchema } = fc.letrec<{ dataSchema: unknown; node: unknown }>((tie) => {
  const sub = tie('dataSchema');
  const count = fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constantFrom(1.5, '2', null));
  const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('1', null, 0));
  const text = fc.oneof(fc.string({ maxLength: 3 }), fc.integer());
  const primitive = fc.oneof(
    fc.string({ maxLength: 2 }),
    fc.integer({ min: 0, max: 3 }),
    fc.boolean(),
    fc.constant(null),
  );
  const members: Record<string, fc.Arbitrary<unknown>> = {
    '@type': fc.oneof(
      text,
      fc.array(fc.oneof(text, fc.constant('tm:ThingModel')), { maxLength: 2 }),
      fc.constant('tm:ThingModel'),
    ),
    description: text,
    title: text,
    unit: text,
    format: text,
    descriptions: fc.oneof(fc.dictionary(fc.constantFrom('en', 'de'), text), text),
    titles: fc.dictionary(fc.constantFrom('en', 'de'), text),
    readOnly: fc.oneof(fc.boolean(), text),
    writeOnly: fc.boolean(),
    type: fc.constantFrom('boolean', 'integer', 'number', 'string', 'object', 'array', 'null', 'strin', 5),
    enum: fc.oneof(
      fc.array(primitive, { maxLength: 3 }),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }),
      text,
    ),
    const: fc.jsonValue({ maxDepth: 1 }),
    default: fc.jsonValue({ maxDepth: 1 }),
    required: fc.oneof(fc.array(fc.oneof(fc.constantFrom('a', 'b'), fc.integer()), { maxLength: 2 }), text),
    minimum: number,
    maximum: number,
    exclusiveMinimum: number,
    multipleOf: fc.oneof(number, fc.constantFrom(0, -2)),
    minItems: count,
    maxLength: count,
    items: fc.oneof(sub, fc.array(sub, { maxLength: 2 }), text),
    oneOf: fc.oneof(fc.array(sub, { maxLength: 2 }), sub),
    properties: fc.oneof(fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), sub, { maxKeys: 2 }), text),
    'x-awp-type': fc.jsonValue({ maxDepth: 1 }),
  };
  const names = Object.keys(members);
  return {
    dataSchema: fc.oneof({ depthSize: 'small', maxDepth: 3 }, tie('node'), fc.jsonValue({ maxDepth: 1 })),
    node: fc
      .uniqueArray(fc.constantFrom(...names), { maxLength: 4 })
      .chain((chosen) => fc.record(Object.fromEntries(chosen.map((name) => [name, members[name]!])))),
  };
});

function verdict(document: unknown): boolean {
  return validateThingDescription(document).length === 0;
}

describe('TD official schema: the first pass', () => {
  test('agrees with the schema on security schemes, seen once or again', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.dictionary(fc.constantFrom('a', 'b', 'oauth2'), scheme, { minKeys: 1, maxKeys: 3 }),
        (seed, definitions) => {
          const document = { ...seed, securityDefinitions: definitions, security: Object.keys(definitions) };
          const expected = reference(document) === true;
          assert.equal(verdict(document), expected, JSON.stringify(definitions));
          assert.equal(verdict(structuredClone(document)), expected);
        },
      ),
      { numRuns: runs * 3 },
    );
  });

  test('the DataSchema walk vouches only for what the schema accepts', () => {
    let vouched = 0;
    fc.assert(
      fc.property(dataSchema, (value) => {
        if (!isEvidentlyValidDataSchema(value)) return;
        vouched++;
        assert.equal(referenceDataSchema(value), true, JSON.stringify(value));
      }),
      { numRuns: runs * 20 },
    );
    // The walk is worth having only if it answers for most valid schemas.
    assert.ok(vouched > runs, `vouched for ${vouched}`);
    for (const seed of seeds) {
      for (const action of Object.values(seed['actions'] as Record<string, Record<string, unknown>>)) {
        for (const schema of [action['input'], action['output']]) {
          if (schema !== undefined) assert.ok(isEvidentlyValidDataSchema(schema), JSON.stringify(schema));
        }
      }
    }
    const hidden = { type: 'object' };
    Object.defineProperty(hidden, 'minItems', { value: -1, enumerable: false });
    assert.equal(isEvidentlyValidDataSchema(hidden), false);
    assert.equal(isEvidentlyValidDataSchema({ required: new Array(1) }), false);
  });

  test('the @context and @type checks vouch only for what the schema accepts', () => {
    const v1 = 'https://www.w3.org/2019/wot/td/v1';
    const v11 = 'https://www.w3.org/2022/wot/td/v1.1';
    const entry = fc.oneof(
      fc.constantFrom(v1, v11, 'tm:ThingModel', 'https://schema.org/', ''),
      fc.dictionary(fc.constantFrom('agentry', 'schema', '@language'), fc.oneof(fc.string(), fc.integer())),
      fc.jsonValue({ maxDepth: 1 }),
    );
    const value = fc.oneof(
      entry,
      fc.array(entry, { maxLength: 5 }),
      fc.tuple(fc.constant(v1), fc.constant(v11)),
    );
    const contexts = { check: isEvidentlyValidContext, reference: definition('thing-context'), vouched: 0 };
    const types = {
      check: isEvidentlyValidTypeDeclaration,
      reference: definition('type_declaration'),
      vouched: 0,
    };
    fc.assert(
      fc.property(value, (candidate) => {
        for (const subject of [contexts, types]) {
          if (!subject.check(candidate)) continue;
          subject.vouched++;
          assert.equal(subject.reference(candidate), true, JSON.stringify(candidate));
        }
      }),
      { numRuns: runs * 20 },
    );
    assert.ok(contexts.vouched > 0 && types.vouched > 0);
    for (const seed of seeds) {
      assert.ok(isEvidentlyValidContext(seed['@context']));
      assert.ok(isEvidentlyValidTypeDeclaration(seed['@type']));
    }
  });

  test('agrees with the schema on mutated TDs', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(DELETE), fc.constant(null), fc.string()),
        (seed, path, replacement) => {
          const document = mutate(seed, path, replacement);
          assert.equal(verdict(document), reference(document) === true);
        },
      ),
      { numRuns: runs * 5 },
    );
  });

  test('a scheme seen valid in one TD does not vouch for a hidden member in another', () => {
    const seed = seeds[0]!;
    const valid = { scheme: 'basic' };
    assert.equal(verdict({ ...seed, securityDefinitions: { s: valid }, security: ['s'] }), true);
    const hidden = { scheme: 'basic' };
    Object.defineProperty(hidden, 'in', { value: 'nowhere', enumerable: false });
    const document = { ...seed, securityDefinitions: { s: hidden }, security: ['s'] };
    assert.equal(reference(document), false);
    assert.equal(verdict(document), false);
  });
});
