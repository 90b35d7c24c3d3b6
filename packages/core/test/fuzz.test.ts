/**
 * Fuzzing every codec with mutations of valid documents: values of the wrong type, sizes, deep nesting, unicode
 * edge cases (lone surrogates, NUL, bidi controls, non-characters), `__proto__` and `constructor` keys. No case may
 * crash (a throw, an `.internal` issue, an emitted document that does not serialise or read back) or hang (a hang
 * would outlast the test's own timeout: there are no timed assertions). Also fuzzes the agent:// URI parser.
 *
 * A fixed seed and bounded runs keep it reproducible and quick in CI; AGENTRY_FUZZ_RUNS raises the count locally.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type Agent,
  AgentUriError,
  codecs,
  convertDocument,
  convertDocumentText,
  FORMAT_NAMES,
  type FormatName,
  formatAgentUri,
  normalizeAgentUri,
  type ParseResult,
  parseAgentUri,
  readDocument,
  readDocumentText,
} from '../src/index.js';
import { agentArbitrary } from './arbitraries.js';
import { readVector } from './helpers.js';

const SEED = 20;
const RUNS = Number(process.env['AGENTRY_FUZZ_RUNS'] ?? 120);
const TIMEOUT = { timeout: 120_000 };

const { cases, baseUrl } = readVector<{ baseUrl: string; cases: Array<{ agent: Agent }> }>(
  'round-trip-agents.json',
);

/** Valid documents of every format: each fixture agent emitted, the mutation seeds. */
const SEEDS: Array<{ format: FormatName; document: unknown }> = FORMAT_NAMES.flatMap((format) =>
  cases.map(({ agent }) => ({ format, document: codecs[format].emit([agent], { baseUrl }).document })),
);

/** Strings that have broken parsers: lone and reversed surrogates, controls, bidi, URI-special, long. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\ud800',
    '\udfff',
    'a\ud83dz',
    '\ude00\ud83d',
    '\u0000',
    '\u202e\u2066',
    '\ufffe\uffff',
    '%',
    '%zz',
    '%ED%A0%80',
    '../../etc/passwd',
    'agent://',
    'agent://a@b',
    'https://',
    'http://[::1',
    'mailto:',
    'javascript:alert(1)',
    '<script>',
    '',
    ' ',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    '#',
    '?a=%',
    '\\',
    'did:web:',
    'did:web:%ZZ',
    '1e309',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('\ud800', '\udc00', 'a', '/', '%', ':', '@', '#', '?', '.'),
    maxLength: 12,
  }),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)),
  // Long runs of one character inside other text: what makes an unanchored `x+$` regex quadratic.
  fc
    .tuple(fc.constantFrom('-', '/', ' ', '_', '.', ':', '%', '\t'), fc.integer({ min: 1000, max: 20_000 }))
    .map(([char, n]) => `a${char.repeat(n)}a!`),
);

/** Values of every JSON type (and deep ones), for replacing a member. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(0, -0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, true, false, null),
  fc.constantFrom([], {}, [null], [[]], { '': '' }),
  fc.array(hostileString, { maxLength: 4 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 1, max: 400 }).map((depth) => nested(depth)),
  fc.integer({ min: 50, max: 3000 }).map((count) => Array.from({ length: count }, (_, i) => `item-${i}`)),
);

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

type Mutation =
  | { kind: 'replace'; path: number[]; value: unknown }
  | { kind: 'delete'; path: number[] }
  | { kind: 'rename'; path: number[]; key: string }
  | { kind: 'add'; path: number[]; key: string; value: unknown };

const path = fc.array(fc.nat(), { maxLength: 7 });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), path, value: hostileValue }),
  fc.record({ kind: fc.constant('delete' as const), path }),
  fc.record({ kind: fc.constant('rename' as const), path, key: hostileString }),
  fc.record({ kind: fc.constant('add' as const), path, key: hostileString, value: hostileValue }),
);

/** Follows `path` (indexes into each level's keys, wrapping) and applies the mutation there, on a copy. */
function applyMutation(document: unknown, change: Mutation): unknown {
  const root = structuredClone(document);
  let parent: unknown;
  let key: string | number | undefined;
  let node: unknown = root;
  for (const step of change.path) {
    if (typeof node !== 'object' || node === null) break;
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node;
    key = keys[step % keys.length]!;
    node = (node as Record<string | number, unknown>)[key];
  }
  const setIn = (target: unknown, name: string | number, value: unknown): void => {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  };
  switch (change.kind) {
    case 'replace':
      if (parent === undefined) return change.value;
      setIn(parent, key!, change.value);
      return root;
    case 'delete':
      if (parent === undefined) return root;
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Record<string, unknown>)[key as string];
      return root;
    case 'rename':
      if (parent === undefined || Array.isArray(parent)) return root;
      delete (parent as Record<string, unknown>)[key as string];
      setIn(parent, change.key, node);
      return root;
    case 'add':
      if (typeof node !== 'object' || node === null) return root;
      if (Array.isArray(node)) node.push(change.value);
      else setIn(node, change.key, change.value);
      return root;
  }
}

/** The JSON text of the mutated document: what arrives over the wire (`__proto__` keys become own members). */
function wireText(document: unknown): string {
  return JSON.stringify(document) ?? 'null';
}

function assertNoCrash(result: ParseResult | ReturnType<typeof readDocument>, label: string): void {
  for (const issue of result.issues) {
    assert.ok(!issue.code.endsWith('.internal'), `${label}: internal failure: ${issue.message}`);
    assert.equal(typeof issue.message, 'string');
  }
}

/** Reads the text every way the CLI, the registry and the host do, and writes what it read in every format. */
function exercise(format: FormatName, text: string): void {
  const value = JSON.parse(text) as unknown;
  assertNoCrash(codecs[format].parse(value), `${format} parse`);
  const detected = readDocumentText(text);
  assertNoCrash(detected, 'readDocumentText');
  const read = readDocument(value, { format });
  assertNoCrash(read, `readDocument as ${format}`);
  const agents = [...read.agents, ...detected.agents];
  for (const to of FORMAT_NAMES) {
    const converted = convertDocument(value, to, { baseUrl });
    assertNoCrash(converted.source, `convert to ${to}`);
    if (agents.length === 0) continue;
    const emitted = codecs[to].emit(agents, { baseUrl });
    const written = JSON.stringify(emitted.document);
    assert.equal(typeof written, 'string', `${format} → ${to}: the emitted document serialises`);
    assertNoCrash(codecs[to].parse(JSON.parse(written)), `${format} → ${to} read back`);
  }
}

describe('fuzzing every codec with mutated valid documents', () => {
  for (const format of FORMAT_NAMES) {
    test(`${format}: mutations crash nothing`, TIMEOUT, () => {
      const seeds = SEEDS.filter((seed) => seed.format === format);
      fc.assert(
        fc.property(
          fc.constantFrom(...seeds),
          fc.array(mutation, { minLength: 1, maxLength: 4 }),
          ({ document }, changes) => {
            const mutated = changes.reduce(applyMutation, document);
            exercise(format, wireText(mutated));
          },
        ),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }

  test('mutated JSON text (cut, spliced, bracketed) reads as issues', TIMEOUT, () => {
    const edit = fc.record({
      at: fc.nat(),
      cut: fc.nat({ max: 40 }),
      insert: fc.oneof(
        hostileString.map((text) => JSON.stringify(text)),
        fc.constantFrom('{', '[', '}', ']', ',', ':', '"', '\\', '\\u', '\\ud800', 'null', '-', '1e999'),
        fc.integer({ min: 1, max: 20_000 }).map((depth) => '['.repeat(depth)),
        fc.integer({ min: 1, max: 5000 }).map((depth) => '{"a":'.repeat(depth)),
      ),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...SEEDS),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        (seed, edits) => {
          let text = wireText(seed.document);
          for (const { at, cut, insert } of edits) {
            const where = at % (text.length + 1);
            text = text.slice(0, where) + insert + text.slice(where + cut);
          }
          const read = readDocumentText(text);
          assertNoCrash(read, 'readDocumentText');
          for (const to of FORMAT_NAMES) assertNoCrash(convertDocumentText(text, to, { baseUrl }).source, to);
        },
      ),
      { numRuns: RUNS * 4, seed: SEED },
    );
  });

  test('generated agents with hostile names, ids and descriptions survive every format', TIMEOUT, () => {
    fc.assert(
      fc.property(
        agentArbitrary,
        hostileString,
        hostileString,
        fc.constantFrom(...FORMAT_NAMES),
        (agent, id, text, format) => {
          const hostile: Agent = {
            ...agent,
            id,
            name: text,
            operations: agent.operations.map((op, index) => (index === 0 ? { ...op, name: id } : op)),
          };
          const emitted = codecs[format].emit([hostile], { baseUrl });
          exercise(format, wireText(emitted.document));
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test(
    'ids and names of long runs of one character are written in every format (no quadratic trimming)',
    TIMEOUT,
    () => {
      // `/^-+|-+$/` took 5.9 s on a 20,000-dash id; 200,000 would take ten minutes.
      for (const char of ['-', '/', ' ', '_', '.']) {
        const run = `a${char.repeat(200_000)}a!`;
        const agent: Agent = {
          id: run,
          name: run,
          description: run,
          operations: [{ name: run, description: 'Runs.' }],
          bindings: [],
        };
        for (const format of FORMAT_NAMES) {
          const emitted = codecs[format].emit([agent], {
            baseUrl: `https://agents.example.net/${char.repeat(50_000)}`,
          });
          assert.equal(typeof JSON.stringify(emitted.document), 'string');
        }
      }
    },
  );

  test('"__proto__" and "constructor" keys arrive as JSON text', TIMEOUT, () => {
    fc.assert(
      fc.property(fc.constantFrom(...SEEDS), path, hostileValue, ({ format, document }, at, payload) => {
        const marked = applyMutation(document, { kind: 'add', path: at, key: '__marker__', value: payload });
        for (const key of ['__proto__', 'constructor', 'prototype'])
          exercise(format, wireText(marked).replaceAll('"__marker__"', JSON.stringify(key)));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('fuzzing the agent:// URI parser', () => {
  const uriPiece = fc.oneof(
    hostileString,
    fc.constantFrom(
      'agent://',
      'agent+https://',
      'agent+wss://',
      'agent:',
      'did:web:',
      '@',
      ':',
      '/',
      '?',
      '#',
      '[',
      ']',
    ),
    fc.webSegment(),
  );
  test(
    'no text throws anything but an AgentUriError; what parses formats, normalises and reparses',
    TIMEOUT,
    () => {
      fc.assert(
        fc.property(fc.array(uriPiece, { maxLength: 8 }), (pieces) => {
          const text = pieces.join('');
          let parsed: ReturnType<typeof parseAgentUri>;
          try {
            parsed = parseAgentUri(text);
          } catch (error) {
            assert.ok(error instanceof AgentUriError, `${JSON.stringify(text)}: ${String(error)}`);
            return;
          }
          const formatted = formatAgentUri(parsed);
          const normalized = normalizeAgentUri(parsed);
          assert.equal(normalizeAgentUri(parseAgentUri(formatted)), normalized, JSON.stringify(text));
        }),
        { numRuns: RUNS * 20, seed: SEED },
      );
    },
  );
});
