/**
 * Property tests over every codec: no input of any shape makes a parser throw or fail internally (every problem is
 * a structured issue), and parse(emit(x)) is stable for generated canonical agents.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type Agent,
  codecs,
  FORMAT_NAMES,
  type ParseResult,
  parseJsonText,
  readDocument,
  readDocumentText,
} from '../src/index.js';
import { agentArbitrary, DELETE, mutate } from './arbitraries.js';
import { readVector } from './helpers.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);

function assertStructured(result: ParseResult | ReturnType<typeof readDocument>, label: string): void {
  assert.ok(Array.isArray(result.agents), `${label}: agents is an array`);
  assert.ok(Array.isArray(result.issues), `${label}: issues is an array`);
  for (const issue of result.issues) {
    assert.ok(issue.severity === 'error' || issue.severity === 'warning');
    assert.equal(typeof issue.pointer, 'string');
    assert.ok(issue.pointer === '' || issue.pointer.startsWith('/'), `pointer ${issue.pointer}`);
    assert.equal(typeof issue.message, 'string');
    assert.ok(!issue.code.endsWith('.internal'), `${label}: internal failure: ${issue.message}`);
  }
  assert.equal(result.valid, !result.issues.some((issue) => issue.severity === 'error'));
}

/** Every object reachable from `value` has the ordinary prototype (none was replaced through a "__proto__" key). */
function assertPlainObjects(value: unknown, label: string, path = ''): void {
  if (typeof value !== 'object' || value === null) return;
  const prototype = Object.getPrototypeOf(value);
  assert.ok(
    prototype === Object.prototype || prototype === Array.prototype || prototype === null,
    `${label}: the object at ${path || '/'} had its prototype replaced`,
  );
  for (const key of Object.keys(value)) {
    assertPlainObjects((value as Record<string, unknown>)[key], label, `${path}/${key}`);
  }
}

const { cases, baseUrl } = readVector<{ baseUrl: string; cases: Array<{ agent: Agent }> }>(
  'round-trip-agents.json',
);

/** Valid documents of every format, emitted from the fixtures: the seeds that mutations start from. */
function seedDocuments(): Array<{ format: (typeof FORMAT_NAMES)[number]; document: unknown }> {
  const seeds = [];
  for (const format of FORMAT_NAMES) {
    for (const { agent } of cases)
      seeds.push({ format, document: codecs[format].emit([agent], { baseUrl }).document });
  }
  return seeds;
}

describe('parsers never throw', () => {
  for (const format of FORMAT_NAMES) {
    test(`${format}: arbitrary JSON values`, () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          assertStructured(codecs[format].parse(value), format);
        }),
        { numRuns: runs },
      );
    });
    test(`${format}: arbitrary JavaScript values`, () => {
      fc.assert(
        fc.property(fc.anything(), (value) => {
          assertStructured(codecs[format].parse(value), format);
        }),
        { numRuns: runs },
      );
    });
  }

  test('every codec: mutated valid documents', () => {
    const seeds = seedDocuments();
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.oneof(fc.jsonValue(), fc.constant(DELETE), fc.constant(null), fc.string()),
        ({ format, document }, path, replacement) => {
          const mutated = mutate(document, path, replacement);
          assertStructured(codecs[format].parse(mutated), format);
          assertStructured(readDocument(mutated), 'detected');
        },
      ),
      { numRuns: runs * 10 },
    );
  });

  test('every codec: "__proto__" keys anywhere are data, never a prototype', () => {
    const seeds = seedDocuments();
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.jsonValue({ maxDepth: 2 }),
        ({ format, document }, path, payload) => {
          // JSON.parse is how hostile keys arrive: it makes "__proto__" an own property.
          const hostile = JSON.parse(
            JSON.stringify(mutate(document, path, { __marker__: payload })).replaceAll(
              '"__marker__"',
              '"__proto__"',
            ),
          ) as unknown;
          const result = codecs[format].parse(hostile);
          assertStructured(result, format);
          assertPlainObjects(result.agents, format);
          assertPlainObjects(codecs[format].emit(result.agents, { baseUrl }).document, `${format} emit`);
        },
      ),
      { numRuns: runs * 5 },
    );
  });

  test('detection and JSON text: arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const parsed = parseJsonText(text);
        assert.equal(typeof parsed.ok, 'boolean');
        assertStructured(readDocumentText(text), 'text');
      }),
      { numRuns: runs },
    );
  });
});

describe('parse(emit(x)) is stable for generated agents', () => {
  for (const format of FORMAT_NAMES) {
    test(format, () => {
      const codec = codecs[format];
      fc.assert(
        fc.property(agentArbitrary, (agent) => {
          const first = codec.parse(codec.emit([agent], { baseUrl }).document);
          assertStructured(first, format);
          assert.ok(first.valid, `${format} reads its own output: ${JSON.stringify(first.issues)}`);
          const second = codec.parse(codec.emit(first.agents, { baseUrl }).document);
          assert.ok(second.valid);
          const strip = (agents: Agent[]) => agents.map(({ provenance: _, ...rest }) => rest);
          assert.deepEqual(strip(second.agents), strip(first.agents));
        }),
        { numRuns: Math.max(50, Math.ceil(runs / 3)) },
      );
    });
  }
});
