/**
 * Validation is linear in the document. Errors are gathered in place (json-schema/ajv-code.ts: Ajv's `concat` of
 * each referenced schema's errors was quadratic in their number). Schema patterns run in linear time
 * (json-schema/linear-regexp.ts): inputs that would take a backtracking engine
 * longer than the age of the universe finish (a hang would outlast the test's own timeout: no timed assertions),
 * the engine reads each character of an input once (a deterministic proxy for linear growth), patterns mean what
 * they mean in ECMAScript, and a pattern the engine cannot run is an issue or a clear error, never a crash.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import tdSchema from 'wot-thing-description-types/schema/td-json-schema-validation.json' with {
  type: 'json',
};
import { validateThingDescription } from '../src/codecs/td/official-schema.js';
import {
  compileSchema,
  type JsonValue,
  readDocument,
  UnsupportedPatternError,
  validateInstance,
} from '../src/index.js';
import { appendErrorsInPlace } from '../src/json-schema/ajv-code.js';
import { compileLinearRegExp } from '../src/json-schema/linear-regexp.js';

const SEED = 20;
const TIMEOUT = { timeout: 60_000 };

function thingWithScheme(scheme: string): Record<string, unknown> {
  return {
    '@context': 'https://www.w3.org/2022/wot/td/v1.1',
    title: 'Lamp',
    securityDefinitions: { custom: { scheme } },
    security: ['custom'],
    properties: {},
  };
}

describe('patterns that backtrack without end finish', () => {
  test(
    'a TD with a 1 MiB security scheme (the official schema has `.+:.*` there) is validated',
    TIMEOUT,
    () => {
      // Quadratic under backtracking: about 10^12 steps for a megabyte.
      const issues = validateThingDescription(thingWithScheme('a'.repeat(1024 * 1024)));
      assert.ok(issues.some((issue) => issue.pointer === '/securityDefinitions/custom/scheme'));
      assert.deepEqual(validateThingDescription(thingWithScheme(`x-vendor:${'a'.repeat(1024 * 1024)}`)), []);
    },
  );

  test('the same TD through readDocument: one invalid document, no hang', TIMEOUT, () => {
    const result = readDocument(thingWithScheme('b'.repeat(512 * 1024)));
    assert.equal(result.format, 'td');
  });

  test("an agent's own catastrophic pattern runs in linear time on a long value", TIMEOUT, () => {
    // Exponential under backtracking: 2^100000 paths.
    const schema = { type: 'string', pattern: '^(a+)+$' };
    assert.equal(validateInstance(schema, `${'a'.repeat(100_000)}!`).length, 1);
    assert.deepEqual(validateInstance(schema, 'a'.repeat(100_000)), []);
    const nested = { type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'number' } } };
    assert.deepEqual(validateInstance(nested, { ['x'.repeat(50_000)]: 'not a number' }), []);
    assert.equal(validateInstance(nested, { [`${'x'.repeat(50_000)}y`]: 'not a number' }).length, 1);
  });
});

describe('errors are gathered in linear time', () => {
  test('a TD with 40,000 bad security schemes reads, one issue each', TIMEOUT, () => {
    // 600,000 Ajv errors: copied at every referenced schema, a hundred billion copies.
    const securityDefinitions: Record<string, unknown> = {};
    for (let i = 0; i < 40_000; i++) securityDefinitions[`s${i}`] = { scheme: `bad${i}` };
    const result = readDocument({ ...thingWithScheme('nosec'), securityDefinitions, security: ['s0'] });
    const schemeIssues = result.issues.filter((issue) => issue.pointer.endsWith('/scheme'));
    assert.equal(schemeIssues.length, 40_000);
  });

  test('an instance with 100,000 bad items of a referenced schema gets 100,000 errors', TIMEOUT, () => {
    const schema = {
      $defs: { point: { type: 'object', required: ['x'], properties: { x: { type: 'number' } } } },
      type: 'array',
      items: { $ref: '#/$defs/point' },
    };
    const errors = validateInstance(
      schema,
      Array.from({ length: 100_000 }, () => ({ x: 'not a number' })),
    );
    assert.equal(errors.length, 100_000);
    assert.equal(errors[99_999]!.pointer, '/99999/x');
  });

  test("every concat of a callee's errors in the TD schema's code becomes an append", () => {
    const ajv = new Ajv({ strict: false, allErrors: true, code: { source: true } });
    const code = String(ajv.compile(tdSchema).source?.validateCode ?? '');
    const concats = (code.match(/vErrors\.concat\(/g) ?? []).length;
    assert.ok(concats > 0, `the TD schema's code gathers errors with concat (${concats})`);
    assert.equal((appendErrorsInPlace(code).match(/vErrors\.concat\(/g) ?? []).length, 0);
  });
});

/** A UTF-8 input whose every byte read is counted (re2js reads byte arrays by index). */
function countingInput(text: string): { input: number[]; reads: () => number } {
  let reads = 0;
  const bytes = [...new TextEncoder().encode(text)];
  const input = new Proxy(bytes, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { input, reads: () => reads };
}

/** Patterns built of the pieces that make backtracking engines blow up: nested and overlapping repetition. */
const hostilePattern: fc.Arbitrary<string> = fc
  .array(fc.constantFrom('a', 'a+', '(a+)+', '(a|aa)*', '.*', '.+', '(a*)*', 'b?', '[ab]+', ':', '(a|a)+'), {
    minLength: 1,
    maxLength: 6,
  })
  .chain((parts) => fc.constantFrom(parts.join(''), `^${parts.join('')}$`, `(${parts.join('|')})+$`));

describe('work grows linearly with the input', () => {
  test('the engine reads each byte of the input a bounded number of times, whatever the pattern', () => {
    fc.assert(
      fc.property(
        hostilePattern,
        fc.integer({ min: 1, max: 4000 }),
        fc.constantFrom('a', 'ab', 'a:', 'b'),
        fc.constantFrom('', '!', 'b', ':'),
        (pattern, repeats, unit, tail) => {
          // The pattern as Ajv would hand it over, compiled as the adapter compiles it.
          compileLinearRegExp(pattern);
          const engine = RE2JS.compile(RE2JS.translateRegExp(pattern));
          const text = unit.repeat(repeats) + tail;
          const counted = countingInput(text);
          engine.test(counted.input);
          const length = new TextEncoder().encode(text).length;
          // A backtracking engine rereads the input once per start position or per path: n² or 2ⁿ reads.
          assert.ok(
            counted.reads() <= 3 * length + 16,
            `${pattern}: ${counted.reads()} reads of ${length} bytes`,
          );
        },
      ),
      { numRuns: 200, seed: SEED },
    );
  });
});

describe('patterns mean what they mean in ECMAScript', () => {
  const piece = fc.constantFrom(
    'a',
    'b',
    '.',
    '\\s',
    '\\S',
    '[\\s]',
    '\\d',
    '\\w',
    '[^a]',
    '[a-c]',
    '\\u00e9',
    '\\u{1F600}',
    '(?:a)',
    'a{2}',
    '(a|b)',
    'x?',
    '[^]',
    '\\cA',
  );
  const pattern = fc
    .array(
      // A quantifier after a quantifier is a syntax error in ECMAScript.
      fc.oneof(
        piece,
        piece.filter((p) => !/[?}]$/.test(p)).map((p) => `${p}*`),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .chain((parts) => fc.constantFrom(parts.join(''), `^${parts.join('')}$`));
  const text = fc
    .array(
      fc.constantFrom(
        'a',
        'b',
        'c',
        ' ',
        '\n',
        '\r',
        '\u2028',
        '\u00a0',
        '\u3000',
        'é',
        '😀',
        '1',
        '_',
        'x',
        '\u0001',
      ),
      { maxLength: 6 },
    )
    .map((chars) => chars.join(''));

  test('the adapter agrees with RegExp(pattern, "u") on generated patterns and texts', () => {
    fc.assert(
      fc.property(pattern, text, (source, input) => {
        assert.equal(
          compileLinearRegExp(source, 'u').test(input),
          new RegExp(source, 'u').test(input),
          `/${source}/u on ${JSON.stringify(input)}`,
        );
      }),
      { numRuns: 1000, seed: SEED },
    );
  });

  test('named groups and \\u escapes translate', () => {
    assert.equal(compileLinearRegExp('^(?<word>\\w+)-\\u{1F600}$').test('hi-😀'), true);
    assert.equal(compileLinearRegExp('^\\u00e9$').test('é'), true);
  });

  test('toString tells patterns apart (Ajv keys its compiled patterns by it)', () => {
    assert.notEqual(compileLinearRegExp('a').toString(), compileLinearRegExp('b').toString());
    const schema = {
      type: 'object',
      properties: { x: { type: 'string', pattern: '^a$' }, y: { type: 'string', pattern: '^b$' } },
    };
    assert.deepEqual(validateInstance(schema, { x: 'a', y: 'b' }), []);
    assert.equal(validateInstance(schema, { x: 'b', y: 'a' }).length, 2);
  });
});

describe('patterns the engine cannot run', () => {
  for (const [pattern, construct] of [
    ['(a)\\1', 'backreference'],
    ['(?<n>a)\\k<n>', 'named backreference'],
    ['^(?=a)', 'lookahead'],
    ['^(?!a)', 'negative lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['(?<!a)b', 'negative lookbehind'],
    ['\\p{L}{999}\\p{L}{999}', 'too large'],
  ] as const) {
    test(`${pattern}: compiling names the ${construct}, never a crash`, () => {
      assert.throws(
        () => compileSchema({ type: 'string', pattern }),
        (error: unknown) =>
          error instanceof UnsupportedPatternError &&
          error.message.includes(JSON.stringify(pattern)) &&
          error.message.includes(construct),
      );
    });
  }

  test("an agent's schema with one is read, with a warning at the pattern", () => {
    const result = readDocument({
      tools: [
        {
          name: 'lookup',
          description: 'Looks things up.',
          inputSchema: {
            type: 'object',
            properties: { code: { type: 'string', pattern: '^(?!0)\\d+$' } },
            patternProperties: { '(a)\\1': {} },
          },
        },
      ],
    });
    assert.equal(result.valid, true);
    const warnings = result.issues.filter((issue) => issue.code === 'mcp.schema.pattern-unsupported');
    assert.deepEqual(
      warnings.map((issue) => issue.pointer),
      ['/tools/0/inputSchema/patternProperties/(a)\\1', '/tools/0/inputSchema/properties/code/pattern'],
    );
    assert.match(warnings[1]!.message, /negative lookahead/);
  });

  test('reading a document never compiles its patterns: 2,000 heavy ones read at once', TIMEOUT, () => {
    // Compiling each costs about 75 ms: two and a half minutes if a reader compiled them.
    const properties: Record<string, JsonValue> = {};
    for (let i = 0; i < 2000; i++)
      properties[`p${i}`] = { type: 'string', pattern: `${'[a-z]{1,9}'.repeat(99)}${i}` };
    const result = readDocument({
      tools: [{ name: 'heavy', description: 'Heavy patterns.', inputSchema: { type: 'object', properties } }],
    });
    assert.equal(result.valid, true);
  });

  test('an overlong pattern is a warning when read, and a schema with too much pattern text is refused to compile', () => {
    const long = 'a'.repeat(2001);
    const result = readDocument({
      tools: [
        {
          name: 'long',
          description: 'A long pattern.',
          inputSchema: { type: 'object', properties: { x: { type: 'string', pattern: long } } },
        },
      ],
    });
    assert.match(result.issues[0]?.message ?? '', /is 2001 characters long; .* at most 2000/);
    const properties: Record<string, JsonValue> = {};
    for (let i = 0; i < 11; i++) properties[`p${i}`] = { type: 'string', pattern: 'b'.repeat(1000) };
    assert.throws(
      () => compileSchema({ type: 'object', properties }),
      /the schema's patterns total 11000 characters; Agentry compiles at most 10000 per schema/,
    );
  });

  test('a `pattern` that is data (inside `const`) is not a pattern', () => {
    const result = readDocument({
      tools: [
        {
          name: 'lookup',
          description: 'Looks things up.',
          inputSchema: { type: 'object', const: { pattern: '(?=x)' } },
        },
      ],
    });
    assert.deepEqual(result.issues, []);
  });
});
