/**
 * The AWP codec: the spec's own examples (assembled at run time from the fragments the draft shows), the real
 * agent.json files in ../shared/corpora/awp, one invalid document per rule (vectors/awp-invalid.json), the type
 * system both ways, and what emitting writes and reports lost.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { EntityTable } from '../../src/codecs/awp/entities.js';
import {
  type AwpType,
  awpTypeToSchema,
  formatAwpType,
  isCustomTypeName,
  parseAwpType,
  schemaToAwpType,
} from '../../src/codecs/awp/types.js';
import {
  type Agent,
  checkSchemaDocument,
  codecs,
  IssueCollector,
  type JsonObject,
  type JsonValue,
  lostFields,
  type ValidationIssue,
} from '../../src/index.js';
import { jsonEqual } from '../../src/json/values.js';
import { errorsOf, listFiles, readSharedJson, readSharedText, readVector, sharedPath } from '../helpers.js';

const awp = codecs.awp;
const SPEC = ['specs', '002_5b1a404b219b105c.txt'] as const;

const warningsOf = (issues: readonly ValidationIssue[]) =>
  issues.filter((issue) => issue.severity === 'warning');
const where = (issues: readonly ValidationIssue[]) =>
  issues.map(({ code, pointer }) => `${code} ${pointer}`).sort();

function only(agents: readonly Agent[]): Agent {
  assert.equal(agents.length, 1);
  return agents[0]!;
}

function operation(agent: Agent, name: string) {
  const found = agent.operations.find((op) => op.name === name);
  assert.ok(found, `operation ${name}`);
  return found;
}

function withoutProvenance(agent: Agent): Omit<Agent, 'provenance'> {
  const { provenance: _provenance, ...rest } = agent;
  return rest;
}

/** Emits and parses back, asserting both steps are clean and the loss report is exact. */
function roundTrip(agent: Agent, baseUrl?: string): { back: Agent; document: JsonObject; losses: string[] } {
  const emitted = awp.emit([agent], baseUrl === undefined ? {} : { baseUrl });
  assert.deepEqual(errorsOf(emitted.issues), []);
  const document = emitted.document as JsonObject;
  const parsed = awp.parse(document);
  assert.deepEqual(errorsOf(parsed.issues), [], JSON.stringify(document));
  const back = only(parsed.agents);
  const losses = [...new Set(emitted.losses.map((loss) => loss.field))].sort();
  assert.deepEqual(losses, lostFields(agent, back).sort(), 'the loss report is exact');
  return { back, document, losses };
}

/**
 * Reads the JSON members that follow `marker` in the spec text (`"key": value, "key": value ...`), stopping at the
 * first member not followed by a comma. The draft shows every example as such a fragment, sometimes run on into
 * the next sentence, so the value extents are found by scanning, not by lines.
 */
function specMembers(text: string, marker: string): JsonObject {
  let at = text.indexOf(marker);
  assert.ok(at >= 0, `spec marker ${marker}`);
  const members: JsonObject = {};
  for (;;) {
    const key = /^\s*"([^"]+)"\s*:\s*/.exec(text.slice(at));
    assert.ok(key, `a member at ${text.slice(at, at + 40)}`);
    at += key[0].length;
    const end = valueEnd(text, at);
    members[key[1]!] = JSON.parse(text.slice(at, end)) as JsonValue;
    const comma = /^\s*,/.exec(text.slice(end));
    if (comma === null) return members;
    at = end + comma[0].length;
  }
}

function valueEnd(text: string, start: number): number {
  const open = text[start];
  if (open === '"') {
    for (let i = start + 1; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
  }
  if (open === '{' || open === '[') {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
  }
  const scalar = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(start));
  assert.ok(scalar, `a JSON value at ${text.slice(start, start + 40)}`);
  return start + scalar[0].length;
}

describe('awp: the spec examples, assembled into one agent.json', () => {
  const spec = readSharedText(...SPEC);
  const version = /Current version:\s*(\d+\.\d+)/.exec(spec)?.[1];
  const fragments = [
    '"capabilities":',
    '"auth":',
    '"entities":',
    '"actions":',
    '"errors":',
    '"dependencies":',
    '"agent_hints":',
    '"agent_status":',
    '"source":',
  ].map((marker) => specMembers(spec, marker));
  const parts = Object.assign({}, ...fragments) as JsonObject;
  const domain = 'flights.example.test';
  const assembled = (): JsonObject => ({
    awp_version: version ?? '',
    domain,
    intent: 'Search, book and check in for flights.',
    ...structuredClone(parts),
  });
  /** The actions the spec's dependencies and status mention beyond its one example action, in our own words. */
  const moreActions: JsonObject[] = ['book_flight', 'check_in', 'select_seat'].map((id) => ({
    id,
    description: `The ${id.replace('_', ' ')} step.`,
    auth_required: true,
    inputs: { search_token: { type: 'string', required: true } },
    outputs: { confirmation: 'string' },
    endpoint: `/api/${id}`,
    method: 'POST',
  }));
  const complete = (): JsonObject => {
    const document = assembled();
    document['actions'] = [...(document['actions'] as JsonValue[]), ...moreActions];
    return document;
  };

  test('every fragment was found, and the spec names its current version', () => {
    assert.equal(version, '0.1');
    for (const key of [
      'capabilities',
      'auth',
      'entities',
      'actions',
      'errors',
      'dependencies',
      'agent_hints',
    ]) {
      assert.ok(key in parts, key);
    }
    assert.deepEqual(Object.keys(fragments.at(-1)!), [
      'source',
      'generated_by',
      'confidence',
      'last_verified',
    ]);
  });

  test('its dependencies name actions its single action example lacks: exactly those are errors', () => {
    const result = awp.parse(assembled());
    assert.deepEqual(where(errorsOf(result.issues)), [
      'awp.dependency.unknown-action /dependencies/book_flight',
      'awp.dependency.unknown-action /dependencies/check_in',
      'awp.dependency.unknown-action /dependencies/check_in/0',
      'awp.dependency.unknown-action /dependencies/select_seat',
      'awp.dependency.unknown-action /dependencies/select_seat/0',
    ]);
    for (const issue of errorsOf(result.issues)) assert.equal(issue.spec, 'AWP §11');
    // The auth example and the status example name actions of other examples too; those are warnings.
    assert.deepEqual(where(warningsOf(result.issues)), [
      'awp.auth.unknown-action /auth/optional_for/0',
      'awp.auth.unknown-action /auth/required_for/0',
      'awp.auth.unknown-action /auth/required_for/1',
      'awp.status.unknown-action /agent_status/degraded_actions/0',
    ]);
  });

  test('adding the actions the dependencies name clears every error', () => {
    const result = awp.parse(complete());
    assert.deepEqual(errorsOf(result.issues), []);
    assert.equal(result.valid, true);
    assert.deepEqual(where(warningsOf(result.issues)), [
      'awp.auth.unknown-action /auth/optional_for/0',
      'awp.auth.unknown-action /auth/required_for/0',
      'awp.auth.unknown-action /auth/required_for/1',
    ]);
  });

  test('maps onto the canonical agent', () => {
    const agent = only(awp.parse(complete(), { sourceUrl: `https://${domain}/agent.json` }).agents);
    const example = (parts['actions'] as JsonObject[])[0]!;
    assert.equal(agent.id, domain);
    assert.equal(agent.name, domain);
    assert.equal(agent.description, 'Search, book and check in for flights.');
    assert.equal(agent.surface?.domain, domain);
    assert.equal(agent.surface?.intent, agent.description);

    const search = operation(agent, 'search_flights');
    assert.equal(search.description, example['description']);
    assert.equal(search.authRequired, false);
    assert.equal(search.rateLimit, example['rate_limit']);
    assert.equal(search.executionModel, 'sync');
    const idempotency = example['idempotency'] as JsonObject;
    assert.deepEqual(search.idempotency, {
      supported: idempotency['supported'],
      keyField: idempotency['key_field'],
      window: idempotency['window'],
    });
    // Names and values come from the spec's fragments; the mappings the type-system tests below cover on their own.
    const inputs = example['inputs'] as Record<string, JsonObject>;
    const input = search.input as JsonObject;
    const properties = input['properties'] as Record<string, JsonObject>;
    assert.equal(input['type'], 'object');
    assert.deepEqual(Object.keys(properties), Object.keys(inputs));
    assert.deepEqual(
      input['required'],
      Object.keys(inputs).filter((name) => inputs[name]!['required'] === true),
    );
    assert.deepEqual(properties['origin'], { type: 'string', 'x-awp-type': 'airport_code' });
    assert.deepEqual(properties['date'], { type: 'string', format: 'date-time' });
    const cabin = inputs['cabin_class']!;
    assert.equal(cabin['type'], 'enum');
    assert.deepEqual(properties['cabin_class'], {
      type: 'string',
      enum: cabin['options'],
      default: cabin['default'],
    });

    const entity = (parts['entities'] as Record<string, JsonObject>)['flight']!;
    const fields = entity['fields'] as Record<string, string>;
    const flight = {
      type: 'object',
      'x-awp-entity': 'flight',
      properties: Object.fromEntries(
        Object.entries(fields).map(([field, type]) => [field, plainSchema(type)]),
      ),
    };
    assert.deepEqual(flight.properties['origin'], { type: 'string', 'x-awp-type': 'airport_code' });
    assert.deepEqual(flight.properties['cabin_class'], { type: 'string', enum: cabin['options'] });
    const outputs = example['outputs'] as Record<string, string>;
    assert.equal(outputs['flights'], 'array[flight]');
    assert.deepEqual(search.output, {
      type: 'object',
      properties: {
        flights: { type: 'array', items: flight },
        search_token: plainSchema(outputs['search_token']!),
      },
    });
    assert.deepEqual(agent.surface?.entities, { flight });
    assert.deepEqual(
      agent.bindings.find((binding) => binding.operations?.includes('search_flights')),
      {
        kind: 'http',
        url: `https://${domain}${example['endpoint'] as string}`,
        method: 'POST',
        operations: ['search_flights'],
      },
    );

    assert.deepEqual(operation(agent, 'book_flight').dependsOn, ['search_flights']);
    assert.deepEqual(operation(agent, 'check_in').dependsOn, ['book_flight']);
    assert.deepEqual(operation(agent, 'select_seat').dependsOn, ['book_flight']);
    assert.equal(search.dependsOn, undefined);

    const errors = parts['errors'] as Record<string, JsonObject>;
    assert.deepEqual(
      agent.surface?.errors,
      Object.fromEntries(
        Object.entries(errors).map(([code, entry]) => [code, { recovery: entry['recovery'] }]),
      ),
    );
    assert.deepEqual(agent.surface?.hints, parts['agent_hints']);
    assert.deepEqual(agent.surface?.flags, {
      streaming: false,
      batchActions: true,
      webhooks: true,
      pagination: 'cursor',
      idempotency: true,
    });
    const auth = parts['auth'] as JsonObject;
    assert.deepEqual(agent.auth, {
      requiredFor: auth['required_for'],
      optionalFor: auth['optional_for'],
      schemes: [{ id: 'oauth2', type: 'oauth2' }],
      tokenExpiry: auth['token_expiry'],
      refreshEndpoint: auth['refresh_endpoint'],
    });
    const status = parts['agent_status'] as JsonObject;
    assert.deepEqual(agent.status, {
      operational: status['operational'],
      degradedOperations: status['degraded_actions'],
      statusEndpoint: status['status_endpoint'],
    });
    assert.deepEqual(agent.provenance, {
      sourceFormat: 'awp',
      sourceUrl: `https://${domain}/agent.json`,
      origin: 'synthetic',
      generatedBy: parts['generated_by'],
      confidence: parts['confidence'],
      lastVerified: parts['last_verified'],
    });
    assert.equal(agent.extensions, undefined);
  });

  test('written back, it reads as the same agent with nothing lost', () => {
    const agent = only(awp.parse(complete()).agents);
    const { back, losses } = roundTrip(agent);
    assert.deepEqual(losses, []);
    assert.deepEqual(back, agent);
  });
});

describe('awp: the real agent.json files in the corpus', () => {
  const files = listFiles(sharedPath('corpora', 'awp'), '.json');
  const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const expectedWarnings: Record<string, string[]> = {
    // A 0.2 file whose actions leave out inputs and outputs, which 0.1 requires.
    'agentwebprotocol.org.agent.json': [
      'awp.action.missing-field /actions/0/inputs',
      'awp.action.missing-field /actions/0/outputs',
      'awp.action.missing-field /actions/1/inputs',
      'awp.action.missing-field /actions/1/outputs',
    ],
    // Every action delegates to a protocol with `via`, which needs nothing else.
    'laclawclaw.agent.json': [],
  };

  test('both files are there', () => {
    assert.deepEqual(files.map(name).sort(), Object.keys(expectedWarnings).sort());
  });

  for (const file of files) {
    test(`${name(file)} is detected, parses without errors and with the expected warnings`, () => {
      const document = readSharedJson('corpora', 'awp', name(file));
      assert.equal(awp.detect(document), true);
      const result = awp.parse(document);
      assert.deepEqual(errorsOf(result.issues), []);
      assert.deepEqual(where(warningsOf(result.issues)), expectedWarnings[name(file)]);
    });
  }

  test('agentwebprotocol.org: endpoint actions become HTTP bindings on the domain', () => {
    const document = readSharedJson('corpora', 'awp', 'agentwebprotocol.org.agent.json') as JsonObject;
    const agent = only(awp.parse(document).agents);
    const actions = document['actions'] as JsonObject[];
    assert.equal(agent.id, document['domain']);
    assert.equal(agent.description, document['intent']);
    assert.deepEqual(
      agent.operations,
      actions.map((action) => ({
        name: action['id'],
        description: action['description'],
        authRequired: action['auth_required'],
      })),
    );
    assert.deepEqual(
      agent.bindings,
      actions.map((action) => ({
        kind: 'http',
        url: `https://${document['domain'] as string}${action['endpoint'] as string}`,
        method: action['method'],
        operations: [action['id']],
      })),
    );
    // Written back as a complete 0.1 file, which reads without a single issue.
    const { document: written } = roundTrip(agent);
    assert.equal(written['awp_version'], '0.1');
    for (const action of written['actions'] as JsonObject[]) {
      assert.deepEqual(action['inputs'], {});
      assert.deepEqual(action['outputs'], {});
    }
    assert.deepEqual(awp.parse(written).issues, []);
  });

  test('laclawclaw: via actions become MCP and A2A bindings, and the file is written back as it was', () => {
    const document = readSharedJson('corpora', 'awp', 'laclawclaw.agent.json') as JsonObject;
    const agent = only(awp.parse(document).agents);
    const protocols = document['protocols'] as Record<string, JsonObject>;
    const actions = document['actions'] as JsonObject[];
    assert.deepEqual(agent.extensions, { awp: { protocols } });
    assert.deepEqual(
      agent.operations,
      actions.map((action) => ({
        name: action['id'],
        extensions: { awp: { via: action['via'], operation: action['operation'] } },
      })),
    );
    assert.deepEqual(
      agent.bindings,
      actions.map((action) =>
        action['via'] === 'mcp'
          ? {
              kind: 'mcp',
              server: protocols['mcp']!['endpoint'],
              transport: protocols['mcp']!['transport'],
              operations: [action['id']],
            }
          : {
              kind: 'a2a',
              url: protocols['a2a']!['endpoint'],
              protocolBinding: 'JSONRPC',
              protocolVersion: protocols['a2a']!['version'],
              operations: [action['id']],
            },
      ),
    );
    const { back, document: written, losses } = roundTrip(agent);
    assert.deepEqual(losses, []);
    assert.deepEqual(withoutProvenance(back), withoutProvenance(agent));
    assert.ok(jsonEqual(written, document), JSON.stringify(written));
  });
});

describe('awp: invalid documents, one rule each (vectors/awp-invalid.json)', () => {
  const { cases } = readVector<{
    cases: Array<{
      name: string;
      document: unknown;
      expect: Array<Pick<ValidationIssue, 'code' | 'pointer' | 'severity'>>;
    }>;
  }>('awp-invalid.json');
  for (const { name, document, expect } of cases) {
    test(name, () => {
      const result = awp.parse(document);
      for (const expected of expect) {
        assert.ok(
          result.issues.some(
            (issue) =>
              issue.code === expected.code &&
              issue.pointer === expected.pointer &&
              issue.severity === expected.severity,
          ),
          `expected ${expected.severity} ${expected.code} at "${expected.pointer}", got ${JSON.stringify(result.issues)}`,
        );
      }
      const expectedErrors = expect.filter((issue) => issue.severity === 'error');
      assert.deepEqual(where(errorsOf(result.issues)), where(expectedErrors as ValidationIssue[]));
      assert.equal(result.valid, expectedErrors.length === 0);
      for (const issue of result.issues) {
        assert.ok(issue.message.length > 20, `a message a person can act on: ${issue.message}`);
      }
    });
  }

  test('a dependency cycle is named in the message', () => {
    const cycle = cases.find((c) => c.name.startsWith('dependencies form a cycle'))!;
    const issue = awp.parse(cycle.document).issues.find((i) => i.code === 'awp.dependency.cycle');
    assert.match(issue?.message ?? '', /draft → publish → review → draft/);
    assert.equal(issue?.spec, 'AWP §11');
  });

  test('an unknown major version is read on: the agent and its actions are there', () => {
    const unknownMajor = cases.find((c) => c.name.startsWith('an unknown major version'))!;
    const result = awp.parse(unknownMajor.document);
    assert.equal(result.valid, true);
    assert.deepEqual(
      only(result.agents).operations.map((op) => op.name),
      ['lookup'],
    );
  });
});

describe('awp: detection', () => {
  test('a document with an awp_version key is AWP', () => {
    assert.equal(awp.detect({ awp_version: '0.1', domain: 'a.example', intent: 'x', actions: [] }), true);
    assert.equal(awp.detect({ awp_version: '9.9' }), true);
  });
  test('anything else is not', () => {
    for (const document of [
      {},
      [],
      null,
      'awp_version',
      42,
      { woa_version: '1', agents: [] },
      { awpVersion: '0.1', domain: 'a.example' },
      { domain: 'a.example', intent: 'x', actions: [] },
      [{ awp_version: '0.1' }],
    ]) {
      assert.equal(awp.detect(document), false, JSON.stringify(document));
    }
  });
});

describe('awp: the type system and JSON Schema', () => {
  const entities = new EntityTable();
  const define = (name: string, fields: Record<string, string>) => {
    entities.define(
      name,
      Object.entries(fields).map(([field, text]) => {
        const parsed = parseAwpType(text);
        assert.ok(parsed.ok);
        return [field, parsed.type] as const;
      }),
    );
  };
  define('gate', { code: 'string', opens_at: 'ISO8601' });
  define('terminal', { name: 'string', gates: 'array[gate]' });
  define('route', { via: 'object[route]', hops: 'integer' });
  const gate = {
    type: 'object',
    'x-awp-entity': 'gate',
    properties: { code: { type: 'string' }, opens_at: { type: 'string', format: 'date-time' } },
  };

  const exact: Array<[string, JsonObject]> = [
    ['string', { type: 'string' }],
    ['integer', { type: 'integer' }],
    ['float', { type: 'number' }],
    ['boolean', { type: 'boolean' }],
    ['ISO8601', { type: 'string', format: 'date-time' }],
    ['url', { type: 'string', format: 'uri' }],
    ['enum[window, aisle, middle]', { type: 'string', enum: ['window', 'aisle', 'middle'] }],
    ['enum[first class, economy]', { type: 'string', enum: ['first class', 'economy'] }],
    ['array[string]', { type: 'array', items: { type: 'string' } }],
    ['array[array[integer]]', { type: 'array', items: { type: 'array', items: { type: 'integer' } } }],
    ['array[enum[on, off]]', { type: 'array', items: { type: 'string', enum: ['on', 'off'] } }],
    ['seat_code', { type: 'string', 'x-awp-type': 'seat_code' }],
    ['array[seat_code]', { type: 'array', items: { type: 'string', 'x-awp-type': 'seat_code' } }],
    ['object[gate]', gate],
    ['array[gate]', { type: 'array', items: gate }],
    [
      'object[terminal]',
      {
        type: 'object',
        'x-awp-entity': 'terminal',
        properties: { name: { type: 'string' }, gates: { type: 'array', items: gate } },
      },
    ],
    // A recursive entity is inlined once; the reference inside stays a reference.
    [
      'object[route]',
      {
        type: 'object',
        'x-awp-entity': 'route',
        properties: { via: { type: 'object', 'x-awp-entity': 'route' }, hops: { type: 'integer' } },
      },
    ],
    ['object', { type: 'object' }],
    ['array', { type: 'array' }],
  ];
  for (const [text, schema] of exact) {
    test(`${text} ⇄ ${JSON.stringify(schema)}`, () => {
      const parsed = parseAwpType(text);
      assert.ok(parsed.ok, text);
      assert.deepEqual(parsed.notes, []);
      assert.deepEqual(awpTypeToSchema(parsed.type, entities), schema);
      assert.equal(formatAwpType(schemaToAwpType(schema, entities)), text);
    });
  }

  const nearest: Array<[JsonObject, string]> = [
    [{ type: 'string', minLength: 1 }, 'string'],
    [{ type: 'string', format: 'email' }, 'string'],
    [{ type: 'string', format: 'date' }, 'string'],
    [{ type: ['string', 'null'] }, 'string'],
    [{ type: 'integer', minimum: 0 }, 'integer'],
    [{ type: 'number', multipleOf: 0.5 }, 'float'],
    [{ type: 'object', properties: { street: { type: 'string' } } }, 'object'],
    [{ type: 'object', 'x-awp-entity': 'hangar' }, 'object'],
    [{ type: 'string', enum: ['a, b', 'c'] }, 'string'],
    [{ type: 'string', 'x-awp-type': 'integer' }, 'string'],
    [{ oneOf: [{ type: 'string' }, { type: 'integer' }] }, 'string'],
    [{ type: 'array', items: { type: 'integer', maximum: 9 } }, 'array[integer]'],
    [{ type: 'array', items: { type: 'object', properties: {} } }, 'array[object]'],
  ];
  for (const [schema, text] of nearest) {
    test(`${JSON.stringify(schema)} → nearest ${text}, and the difference shows`, () => {
      const type = schemaToAwpType(schema, entities);
      assert.equal(formatAwpType(type), text);
      assert.equal(jsonEqual(awpTypeToSchema(type, entities), schema), false);
    });
  }

  const malformed = [
    '',
    'array[',
    'array[]',
    'enum',
    'enum[]',
    'enum[a, , b]',
    'list[string]',
    'object[array[x]]',
    'string integer',
    '[string]',
  ];
  for (const text of malformed) {
    test(`"${text}" is not a type`, () => {
      const parsed = parseAwpType(text);
      assert.equal(parsed.ok, false);
    });
  }

  test('tolerated spellings read as the spec types, with a note', () => {
    for (const [text, expected] of [
      ['iso8601', 'ISO8601'],
      ['Integer', 'integer'],
      ['number', 'float'],
      ['array[ Boolean ]', 'array[boolean]'],
    ] as const) {
      const parsed = parseAwpType(text);
      assert.ok(parsed.ok);
      assert.equal(formatAwpType(parsed.type), expected);
      assert.ok(parsed.notes.length > 0, text);
    }
    const quoted = parseAwpType('enum["red", \'blue\']');
    assert.ok(quoted.ok);
    assert.deepEqual(quoted.type, { kind: 'enum', values: ['red', 'blue'] });
  });

  test('property: generated type strings map to valid JSON Schemas and back to the same string', () => {
    const entityNames = ['gate', 'terminal', 'route'];
    const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
    const enumValue = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,8}[A-Za-z0-9]$|^[A-Za-z0-9]$/);
    const primitive = fc.constantFrom('string', 'integer', 'float', 'boolean', 'ISO8601', 'url');
    const leaf: fc.Arbitrary<AwpType> = fc.oneof(
      primitive.map((name) => parseType(name)),
      fc
        .uniqueArray(enumValue, { minLength: 1, maxLength: 4 })
        .map((values): AwpType => ({ kind: 'enum', values })),
      fc.constantFrom(...entityNames).map((entity): AwpType => ({ kind: 'object', entity })),
      word
        .filter((name) => isCustomTypeName(name) && !entityNames.includes(name))
        .map((name): AwpType => ({ kind: 'named', name })),
      fc.constant<AwpType>({ kind: 'object' }),
      fc.constant<AwpType>({ kind: 'array' }),
    );
    const type: fc.Arbitrary<AwpType> = fc.letrec<{ type: AwpType }>((tie) => ({
      type: fc.oneof(
        { depthSize: 'small' },
        leaf,
        tie('type').map((items): AwpType => ({ kind: 'array', items })),
      ),
    })).type;
    fc.assert(
      fc.property(type, (tree) => {
        const text = formatAwpType(tree);
        const parsed = parseAwpType(text);
        assert.ok(parsed.ok, text);
        assert.deepEqual(parsed.notes, []);
        const schema = awpTypeToSchema(parsed.type, entities);
        const issues = new IssueCollector('test');
        assert.ok(checkSchemaDocument(schema, '', issues, { codePrefix: 'test', what: text }), text);
        const back = schemaToAwpType(schema, entities);
        assert.equal(formatAwpType(back), text);
        assert.deepEqual(awpTypeToSchema(back, entities), schema);
      }),
      { numRuns: 500 },
    );
  });
});

/** The schema of a type that references no entity. */
function plainSchema(text: string): JsonObject {
  return awpTypeToSchema(parseType(text), new EntityTable());
}

function parseType(text: string): AwpType {
  const parsed = parseAwpType(text);
  assert.ok(parsed.ok, text);
  return parsed.type;
}

/** A small valid 0.1 document in our own words, for the tests below. */
function recordsDocument(): JsonObject {
  return {
    awp_version: '0.1',
    domain: 'records.example.org',
    intent: 'Look up and archive records.',
    actions: [
      {
        id: 'lookup',
        description: 'Look a record up by its key.',
        auth_required: false,
        inputs: { key: { type: 'string', required: true, description: 'The record key.' } },
        outputs: { record: 'string' },
        endpoint: '/api/lookup',
        method: 'GET',
      },
      {
        id: 'archive',
        description: 'Archive a record for good.',
        auth_required: true,
        inputs: { key: { type: 'string', required: true } },
        outputs: { archived: 'boolean' },
        endpoint: 'https://archive.example.net/v1/archive',
        method: 'DELETE',
        sensitivity: 'irreversible',
        requires_human_confirmation: true,
        reversible: false,
        execution_model: 'async',
        poll_endpoint: '/api/archive/status',
      },
    ],
    dependencies: { archive: ['lookup'] },
  };
}

describe('awp: unknown fields are kept and written back in place', () => {
  test('at every level', () => {
    const document = recordsDocument();
    document['x_support_email'] = 'help@records.example.org';
    document['capabilities'] = { streaming: false, x_max_batch: 20 };
    document['auth'] = { type: 'api_key', required_for: ['archive'], x_header: 'X-Records-Key' };
    document['agent_status'] = { operational: true, x_region: 'eu' };
    document['entities'] = { record: { fields: { key: 'string' }, x_note: 'One row.' } };
    const [lookup, archive] = document['actions'] as [JsonObject, JsonObject];
    lookup['x_cost'] = 0;
    (lookup['inputs'] as Record<string, JsonObject>)['key']!['x_example'] = 'r-17';
    archive['idempotency'] = { supported: true, key_field: 'key', x_scope: 'tenant' };

    const agent = only(awp.parse(document).agents);
    assert.deepEqual(agent.extensions, {
      awp: {
        x_support_email: 'help@records.example.org',
        capabilities: { x_max_batch: 20 },
        auth: { x_header: 'X-Records-Key' },
        agent_status: { x_region: 'eu' },
        entities: { record: { x_note: 'One row.' } },
      },
    });
    assert.deepEqual(operation(agent, 'lookup').extensions, {
      awp: { x_cost: 0, inputs: { key: { x_example: 'r-17' } } },
    });
    assert.deepEqual(operation(agent, 'archive').extensions, { awp: { idempotency: { x_scope: 'tenant' } } });

    const { document: written, losses } = roundTrip(agent);
    assert.deepEqual(losses, []);
    assert.ok(jsonEqual(written, document), JSON.stringify(written));
  });

  test('a field named "__proto__" is data: kept in extensions.awp on the surface and an action, and written back', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key.
    const document = JSON.parse(
      JSON.stringify(recordsDocument()).replace(
        /^\{/,
        '{"__proto__": {"surface": true}, "capabilities": {"streaming": false, "__proto__": {"flags": true}},',
      ),
    ) as JsonObject;
    const [lookup] = document['actions'] as [JsonObject];
    Object.defineProperty(lookup, '__proto__', {
      value: { action: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    assert.deepEqual(own(document), { surface: true });

    const result = awp.parse(document);
    assert.deepEqual(errorsOf(result.issues), []);
    const agent = only(result.agents);
    const extension = agent.extensions?.['awp'];
    assert.equal(Object.getPrototypeOf(extension), Object.prototype);
    assert.deepEqual(own(extension), { surface: true });
    assert.deepEqual(own(extension?.['capabilities']), { flags: true });
    assert.deepEqual(own(operation(agent, 'lookup').extensions?.['awp']), { action: true });

    const { document: written, losses } = roundTrip(agent);
    assert.deepEqual(losses, []);
    assert.equal(Object.getPrototypeOf(written), Object.prototype);
    assert.deepEqual(own(written), { surface: true });
    assert.deepEqual(own(written['capabilities']), { flags: true });
    assert.deepEqual(own((written['actions'] as JsonObject[])[0]), { action: true });
    assert.ok(jsonEqual(written, document), JSON.stringify(written));
  });

  test('an extension that would land on a field AWP defines is reported lost', () => {
    const agent = only(awp.parse(recordsDocument()).agents);
    agent.extensions = { awp: { intent: 'Something else.', x_kept: true } };
    const { back, losses } = roundTrip(agent);
    assert.deepEqual(losses, ['extensions.awp']);
    assert.deepEqual(back.extensions, { awp: { x_kept: true } });
  });
});

describe('awp: synthetic files', () => {
  const declaration = {
    source: 'synthetic',
    generated_by: 'records-crawler',
    confidence: 0.62,
    last_verified: '2026-01-05T08:30:00Z',
  };

  test('the declaration becomes provenance and is written back', () => {
    const agent = only(awp.parse({ ...recordsDocument(), ...declaration }).agents);
    assert.deepEqual(agent.provenance, {
      sourceFormat: 'awp',
      origin: 'synthetic',
      generatedBy: 'records-crawler',
      confidence: 0.62,
      lastVerified: '2026-01-05T08:30:00Z',
    });
    assert.equal(agent.extensions, undefined);
    const { document } = roundTrip(agent);
    assert.deepEqual(
      Object.fromEntries(Object.keys(declaration).map((key) => [key, document[key]])),
      declaration,
    );
  });

  test('a native file is native, and a source other than synthetic stays an extension', () => {
    assert.equal(only(awp.parse(recordsDocument()).agents).provenance?.origin, 'native');
    const agent = only(awp.parse({ ...recordsDocument(), source: 'crawler', confidence: 0.3 }).agents);
    assert.equal(agent.provenance?.origin, 'native');
    assert.deepEqual(agent.extensions, { awp: { source: 'crawler', confidence: 0.3 } });
    const { document } = roundTrip(agent);
    assert.equal(document['source'], 'crawler');
  });
});

describe('awp: emit', () => {
  const { cases, baseUrl } = readVector<{ baseUrl: string; cases: Array<{ name: string; agent: Agent }> }>(
    'round-trip-agents.json',
  );
  const fixture = (name: string) => structuredClone(cases.find((c) => c.name === name)!.agent);

  test('a surface is written as a complete 0.1 file with paths on its domain', () => {
    const agent = fixture('flight surface with governance');
    const { document, losses } = roundTrip(agent, baseUrl);
    assert.equal(document['awp_version'], '0.1');
    assert.equal(document['domain'], 'flights.example.com');
    assert.equal(document['intent'], agent.description);
    const actions = document['actions'] as JsonObject[];
    for (const action of actions) {
      for (const key of ['id', 'description', 'auth_required', 'inputs', 'outputs', 'endpoint', 'method']) {
        assert.ok(key in action, `${action['id'] as string} has ${key}`);
      }
    }
    const [search, book, cancel] = actions as [JsonObject, JsonObject, JsonObject];
    assert.equal(search['endpoint'], '/api/flights/search');
    assert.deepEqual(search['inputs'], {
      origin: { type: 'airport_code', required: true },
      destination: { type: 'airport_code', required: true },
      date: { type: 'ISO8601', required: true },
      cabin_class: { type: 'enum', default: 'economy', options: ['economy', 'business', 'first'] },
    });
    assert.deepEqual(search['outputs'], { flights: 'array[flight]', search_token: 'string' });
    assert.deepEqual(book['idempotency'], { supported: true, key_field: 'idempotency_key', window: '24h' });
    assert.equal(book['execution_model'], 'async');
    assert.equal(cancel['method'], 'DELETE');
    assert.equal(cancel['sensitivity'], 'irreversible');
    assert.equal(cancel['requires_human_confirmation'], true);
    assert.deepEqual(document['dependencies'], {
      book_flight: ['search_flights'],
      cancel_booking: ['book_flight'],
    });
    assert.deepEqual(document['auth'], {
      required_for: ['book_flight', 'cancel_booking'],
      optional_for: ['search_flights'],
      type: 'oauth2',
      token_expiry: '24h',
      refresh_endpoint: '/api/auth/refresh',
    });
    assert.deepEqual(document['capabilities'], { streaming: false, idempotency: true, pagination: 'cursor' });
    assert.deepEqual(document['entities'], {
      flight: { fields: { flight_number: 'string', origin: 'airport_code', price_usd: 'float' } },
    });
    // safe and idempotent have no AWP field (sensitivity does); nothing else is lost.
    assert.deepEqual(losses, [
      'operations[book_flight].idempotent',
      'operations[book_flight].safe',
      'operations[cancel_booking].idempotent',
      'operations[cancel_booking].safe',
      'operations[search_flights].safe',
    ]);
  });

  test('an operation without an HTTP binding gets an endpoint under the base URL', () => {
    const agent = fixture('minimal summarizer');
    const { document, losses, back } = roundTrip(agent, baseUrl);
    assert.equal(document['domain'], new URL(baseUrl).host);
    const [action] = document['actions'] as [JsonObject];
    assert.equal(action['endpoint'], '/agents/summarizer/operations/default');
    assert.equal(action['method'], 'POST');
    // id and name become the domain; the description survives as the intent.
    assert.deepEqual(losses, ['bindings.woa-rest', 'id', 'name', 'operations[default].output']);
    assert.equal(back.description, agent.description);
  });

  test('without a base URL such an operation is an emit error that says what to do', () => {
    const emitted = awp.emit([fixture('minimal summarizer')]);
    const [issue] = errorsOf(emitted.issues);
    assert.equal(issue?.code, 'awp.emit.endpoint-missing');
    assert.equal(issue?.pointer, '/actions/0');
    assert.match(issue?.message ?? '', /base URL/);
  });

  test('schemas AWP types cannot express are written as the nearest types and reported', () => {
    const agent = fixture('translator with metadata');
    const emitted = awp.emit([agent], { baseUrl });
    const input = emitted.losses.find((loss) => loss.field === 'operations[translate].input');
    assert.match(input?.message ?? '', /"text"/);
    const document = emitted.document as JsonObject;
    const [translate] = document['actions'] as [JsonObject];
    assert.deepEqual(translate['inputs'], {
      text: { type: 'string', required: true },
      target: { type: 'enum', required: true, options: ['de', 'fr', 'en'] },
    });
    roundTrip(agent, baseUrl);
  });

  test('auth schemes map to AWP types; detail AWP cannot hold is reported', () => {
    const agent = fixture('translator with metadata');
    const { document, losses } = roundTrip(agent, baseUrl);
    assert.deepEqual(document['auth'], { type: 'api_key' });
    assert.ok(losses.includes('auth.schemes'));
    const research = fixture('multi-transport research agent');
    const written = roundTrip(research, baseUrl);
    assert.deepEqual(written.document['auth'], { type: 'bearer' });
    assert.deepEqual(written.back.auth?.schemes, [{ id: 'bearer', type: 'bearer' }]);
    assert.ok(written.losses.includes('auth.schemes'));
    // MCP and A2A bindings have no place in a 0.1 file.
    assert.ok(written.losses.includes('bindings.mcp') && written.losses.includes('bindings.a2a'));
  });

  test('id, name and description are reported only when they will read back differently', () => {
    const agent = only(awp.parse(recordsDocument()).agents);
    assert.deepEqual(roundTrip(agent).losses, []);
    const renamed = { ...agent, name: 'Records', description: 'Another description.' };
    assert.deepEqual(roundTrip(renamed).losses, ['description', 'name']);
  });

  test('absolute endpoints off the domain stay absolute; poll endpoints stay as written', () => {
    const agent = only(awp.parse(recordsDocument()).agents);
    assert.deepEqual(agent.bindings[1], {
      kind: 'http',
      url: 'https://archive.example.net/v1/archive',
      method: 'DELETE',
      operations: ['archive'],
    });
    assert.equal(operation(agent, 'archive').pollEndpoint, '/api/archive/status');
    const { document } = roundTrip(agent);
    const [lookup, archive] = document['actions'] as [JsonObject, JsonObject];
    assert.equal(lookup['endpoint'], '/api/lookup');
    assert.equal(archive['endpoint'], 'https://archive.example.net/v1/archive');
  });

  test('dependencies on operations the agent lacks are dropped and reported; a cycle is an emit error', () => {
    const agent = only(awp.parse(recordsDocument()).agents);
    operation(agent, 'archive').dependsOn = ['lookup', 'login'];
    const emitted = awp.emit([agent]);
    assert.deepEqual((emitted.document as JsonObject)['dependencies'], { archive: ['lookup'] });
    assert.ok(emitted.losses.some((loss) => loss.field === 'operations[archive].dependsOn'));
    operation(agent, 'lookup').dependsOn = ['archive'];
    const cyclic = awp.emit([agent]);
    assert.deepEqual(where(errorsOf(cyclic.issues)), ['awp.emit.dependency-cycle /dependencies/lookup']);
  });
});
