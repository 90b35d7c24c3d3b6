/** Property tests of the host's parsers: Accept negotiation, query-string input, bounded bodies, and definitions. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { negotiate, parseAccept } from '../src/http/accept.js';
import { readBodyText } from '../src/http/body.js';
import { AgentDefinitionError, defineAgent } from '../src/index.js';
import { inputFromQuery } from '../src/routes/query-input.js';

const TYPES = ['application/json', 'text/event-stream', 'application/x-ndjson'] as const;

describe('Accept negotiation', () => {
  test('never throws, and only answers an offered type', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const chosen = negotiate(header, TYPES);
        assert.ok(chosen === undefined || TYPES.includes(chosen as (typeof TYPES)[number]));
        for (const range of parseAccept(header)) assert.ok(range.q >= 0 && range.q <= 1);
      }),
    );
  });

  test('picks the offered type with the highest quality, the host order breaking ties', () => {
    const weighted = fc.array(fc.tuple(fc.constantFrom(...TYPES), fc.integer({ min: 0, max: 1000 })), {
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(weighted, (entries) => {
        const unique = new Map(entries.map(([type, q]) => [type, q] as const));
        const header = [...unique].map(([type, q]) => `${type};q=${(q / 1000).toFixed(3)}`).join(', ');
        const best = Math.max(...unique.values());
        const expected = best === 0 ? undefined : TYPES.find((type) => unique.get(type) === best);
        assert.equal(negotiate(header, TYPES), expected);
      }),
    );
  });

  test('wildcards match and the most specific range decides', () => {
    assert.equal(negotiate('*/*', TYPES), 'application/json');
    assert.equal(negotiate('text/*', TYPES), 'text/event-stream');
    assert.equal(negotiate('application/*;q=0.5, application/x-ndjson', TYPES), 'application/x-ndjson');
    assert.equal(negotiate('application/json;q=0, */*', TYPES), 'text/event-stream');
    assert.equal(negotiate('text/html', TYPES), undefined);
    assert.equal(negotiate(null, TYPES), 'application/json');
  });
});

describe('query-string input', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'integer' },
      x: { type: 'number' },
      flag: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      ids: { type: 'array', items: { type: 'integer' } },
      filter: { type: 'object' },
      text: { type: 'string' },
    },
  };

  test('decodes what our client encodes (scalars as text, arrays repeated, objects as JSON)', () => {
    const input = fc.record(
      {
        n: fc.integer(),
        x: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0)),
        flag: fc.boolean(),
        tags: fc.array(fc.string(), { minLength: 1 }),
        ids: fc.array(fc.integer(), { minLength: 1 }),
        filter: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
        text: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(input, (value) => {
        const params = new URLSearchParams();
        for (const [name, member] of Object.entries(value)) {
          const items = Array.isArray(member) ? member : [member];
          for (const item of items)
            params.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
        }
        const decoded = inputFromQuery(new URLSearchParams(params.toString()), schema);
        assert.deepEqual(decoded, JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  test('text a type cannot read stays text, for the schema check to report', () => {
    assert.deepEqual(inputFromQuery(new URLSearchParams('n=abc&flag=yes&other=1'), schema), {
      n: 'abc',
      flag: 'yes',
      other: '1',
    });
  });
});

describe('bounded bodies', () => {
  test('bodies up to the limit are read whole, larger ones are refused with 413', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 200 }),
        async (parts, limit) => {
          const text = parts.join('');
          const size = new TextEncoder().encode(text).byteLength;
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
              controller.close();
            },
          });
          const request = new Request('http://host.test/', {
            method: 'POST',
            body,
            duplex: 'half',
          } as RequestInit);
          const read = await readBodyText(request, limit);
          if (size <= limit) assert.deepEqual(read, { ok: true, text });
          else assert.equal(read.ok ? 0 : read.problem.status, 413);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('invalid UTF-8 is a 400', async () => {
    const request = new Request('http://host.test/', { method: 'POST', body: new Uint8Array([0xff, 0xfe]) });
    const read = await readBodyText(request, 100);
    assert.equal(read.ok ? 0 : read.problem.status, 400);
  });
});

describe('defineAgent', () => {
  test('a validator that cannot be described in JSON Schema is refused, saying what to do', () => {
    assert.throws(
      () =>
        defineAgent({
          id: 'dates',
          name: 'Dates',
          description: '',
          operations: { when: { input: z.object({ at: z.date() }), handler: () => null } },
        }),
      (error: unknown) =>
        error instanceof AgentDefinitionError && /cannot be converted to JSON Schema/.test(error.message),
    );
  });

  test('ids and operation names must be tokens, and handlers functions', () => {
    assert.throws(
      () => defineAgent({ id: 'a b', name: 'x', description: '', operations: {} }),
      AgentDefinitionError,
    );
    assert.throws(
      () =>
        defineAgent({ id: 'ok', name: 'x', description: '', operations: { 'a/b': { handler: () => 1 } } }),
      AgentDefinitionError,
    );
  });

  test('an async generator handler makes the operation streaming, and the zod input its JSON Schema', () => {
    const agent = defineAgent({
      id: 'gen',
      name: 'Gen',
      description: '',
      operations: {
        ticks: {
          input: z.object({ n: z.number().int() }),
          handler: async function* (input) {
            yield input.n;
          },
        },
      },
    });
    const op = agent.agent.operations[0]!;
    assert.equal(op.streaming, true);
    assert.deepEqual((op.input as { required: string[] }).required, ['n']);
  });
});
