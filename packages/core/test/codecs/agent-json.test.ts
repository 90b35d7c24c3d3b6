/**
 * The agent:// descriptor codec (agent.json): the draft's Appendix A example (invalid as printed, then with its one
 * bad token quoted), one problem document per rule, detection, and the JSON-LD descriptor it writes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agentJsonCodec } from '../../src/codecs/agent-json/index.js';
import type { Agent, JsonObject, ParseOptions } from '../../src/index.js';
import { AGENTRY_CONTEXT_URL, AGENTRY_NS, lostFields, parseJsonText } from '../../src/index.js';
import { errorsOf, extractJsonAfter, issueSummary, readSharedText, readVector } from '../helpers.js';

interface InvalidCase {
  name: string;
  document: unknown;
  options?: ParseOptions;
  expect: Array<{ code: string; pointer: string; severity: string }>;
}

const draft = readSharedText('specs', '001_0c1058934a778260.txt');
const appendixA = extractJsonAfter(draft, 'Following is an example of agent.json.');
/** The one token that makes Appendix A invalid JSON: a version written as a bare 3.1.4. */
const BARE_VERSION = /("version":\s*)(\d+\.\d+\.\d+)(?=\s*,)/;

function appendixWithQuotedVersion(): JsonObject {
  const fixed = appendixA.replace(BARE_VERSION, '$1"$2"');
  const parsed = parseJsonText(fixed);
  assert.ok(parsed.ok, 'quoting the version makes Appendix A valid JSON');
  return parsed.value as JsonObject;
}

function agent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'trip-sketcher',
    name: 'Trip Sketcher',
    description: 'Sketches day trips.',
    version: '1.0.0',
    operations: [
      {
        name: 'sketch',
        description: 'Sketch one day.',
        input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
    bindings: [],
    ...overrides,
  };
}

function roundTrip(source: Agent) {
  const emitted = agentJsonCodec.emit([source]);
  assert.deepEqual(errorsOf(emitted.issues), []);
  const parsed = agentJsonCodec.parse(emitted.document);
  assert.deepEqual(errorsOf(parsed.issues), [], JSON.stringify(emitted.document));
  const back = parsed.agents[0]!;
  const reported = [...new Set(emitted.losses.map((loss) => loss.field))].sort();
  assert.deepEqual(reported, lostFields(source, back).sort(), 'the loss report is exact');
  return { descriptor: emitted.document as JsonObject, back, losses: reported };
}

describe('agent://: the Appendix A example descriptor', () => {
  test('as printed it is not JSON: the bare version 3.1.4 is a syntax error on its line', () => {
    const result = parseJsonText(appendixA);
    assert.equal(result.ok, false);
    if (result.ok) return;
    const match = BARE_VERSION.exec(appendixA);
    assert.ok(match, 'the example still has its bare version');
    const line = appendixA.slice(0, match.index).split('\n').length;
    assert.equal(result.issue.code, 'json.syntax');
    assert.equal(result.issue.severity, 'error');
    assert.match(result.issue.message, new RegExp(`at line ${line}, column \\d+`));
  });

  test('with that token quoted it parses with no errors and reads gen-iti with its behavioural metadata', () => {
    const document = appendixWithQuotedVersion();
    assert.equal(agentJsonCodec.detect(document), true);
    const result = agentJsonCodec.parse(document);
    assert.deepEqual(result.issues, []);
    const [read] = result.agents;
    assert.ok(read);
    assert.equal(read.name, document['name']);
    assert.equal(read.id, 'planner-example-com');
    assert.equal(read.version, '3.1.4');
    assert.equal(read.url, document['url']);
    assert.equal(read.description, document['description']);
    assert.deepEqual(read.publisher, { name: (document['provider'] as JsonObject)['organization'] });
    assert.equal(read.documentationUrl, document['documentationUrl']);
    assert.deepEqual(read.supportedVersions, document['supportedVersions']);
    assert.deepEqual(read.surface, {
      interactionModel: document['interactionModel'],
      orchestration: document['orchestration'],
      envelopeSchemas: document['envelopeSchemas'],
    });
    assert.deepEqual(read.auth, { schemes: [{ id: 'oauth2', type: 'oauth2' }] });

    const capability = (document['capabilities'] as JsonObject[])[0]!;
    const contentTypes = capability['contentTypes'] as JsonObject;
    assert.deepEqual(read.operations, [
      {
        name: 'gen-iti',
        version: capability['version'],
        description: capability['description'],
        // The shorthand `{field: typename}` becomes the JSON Schema it stands for.
        input: { type: 'object', properties: { city: { type: 'string' } } },
        output: { type: 'object', properties: { itinerary: { type: 'array' } } },
        deterministic: false,
        outputVariability: 'medium',
        inputModes: contentTypes['inputFormat'],
        outputModes: contentTypes['outputFormat'],
      },
    ]);
    // AgentCard-style skills and the publisher's own context are kept, not dropped.
    assert.deepEqual(read.extensions, {
      'agent-json': { skills: document['skills']!, '@context': document['@context']! },
    });
    assert.deepEqual(read.bindings, []);
  });

  test('it survives agent-json → agent-json unchanged', () => {
    const read = agentJsonCodec.parse(appendixWithQuotedVersion()).agents[0]!;
    const { losses, descriptor } = roundTrip(read);
    assert.deepEqual(losses, []);
    assert.deepEqual(descriptor['@context'], [
      appendixWithQuotedVersion()['@context']!,
      AGENTRY_CONTEXT_URL,
      { agentry: AGENTRY_NS },
    ]);
  });
});

describe('agent://: problem descriptors (vectors/agent-json-invalid.json)', () => {
  const { cases } = readVector<{ cases: InvalidCase[] }>('agent-json-invalid.json');
  for (const item of cases) {
    test(item.name, () => {
      const result = agentJsonCodec.parse(item.document, item.options ?? {});
      assert.deepEqual(issueSummary(result.issues), item.expect);
      assert.equal(result.valid, !item.expect.some((issue) => issue.severity === 'error'));
      for (const issue of result.issues) {
        assert.ok(issue.spec?.startsWith('agent:// §'), `${issue.code} names its section`);
        assert.ok(issue.message.length > 20);
      }
    });
  }

  test('a broken capability does not stop the others from being read', () => {
    const document = appendixWithQuotedVersion();
    (document['capabilities'] as unknown[]).push({ description: 'no name' }, { name: 'second' });
    const result = agentJsonCodec.parse(document);
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.agents[0]?.operations.map((op) => op.name),
      ['gen-iti', 'second'],
    );
  });

  test('a real JSON Schema is kept as given; a bare type name stands for that type', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
    };
    const result = agentJsonCodec.parse({
      name: 'Trip Sketcher',
      version: '1.0.0',
      capabilities: [{ name: 'sketch', input: schema, output: 'string' }],
    });
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.agents[0]?.operations[0]?.input, schema);
    assert.deepEqual(result.agents[0]?.operations[0]?.output, { type: 'string' });
  });

  test('never throws, whatever it is given', () => {
    const inputs: unknown[] = [
      null,
      [],
      { capabilities: [null, 1, { name: {} }] },
      { '@context': [null, {}], name: 3, capabilities: [{ name: 'a', input: null, contentTypes: [] }] },
      {
        supportedVersions: [],
        authentication: { schemes: 'OAuth2', 'agentry:schemes': {} },
        'agentry:bindings': {},
      },
      { name: 'x', provider: [], 'agentry:bindings': [null, { kind: 1 }, { kind: 'other', protocol: 'p' }] },
    ];
    for (const input of inputs) {
      const result = agentJsonCodec.parse(input);
      assert.ok(
        !result.issues.some((issue) => issue.code === 'agent-json.internal'),
        JSON.stringify(result.issues),
      );
    }
  });
});

describe('agent://: detection', () => {
  test('recognises descriptors by capability objects, supportedVersions, or a non-TD JSON-LD context with a name', () => {
    const documents: unknown[] = [
      appendixWithQuotedVersion(),
      { capabilities: [{ name: 'sketch' }] },
      { supportedVersions: { '1.0.0': '/v1/' } },
      { '@context': 'https://ctx.example.org/agents.jsonld', name: 'Trip Sketcher' },
      { '@context': ['https://ctx.example.org/agents.jsonld', { x: 'https://x.example.org#' }], name: 'T' },
    ];
    for (const document of documents)
      assert.equal(agentJsonCodec.detect(document), true, JSON.stringify(document));
  });

  test('leaves alone TDs, A2A cards, AIDIP-like lists and other documents', () => {
    const others: unknown[] = [
      null,
      'agent.json',
      { '@context': 'https://www.w3.org/2022/wot/td/v1.1', name: 'Lamp', title: 'Lamp' },
      {
        '@context': ['https://www.w3.org/2019/wot/td/v1', { saref: 'https://w3id.org/saref#' }],
        name: 'Lamp',
      },
      { '@context': 'https://ctx.example.org/agents.jsonld' },
      { name: 'Geo', skills: [], capabilities: { streaming: true }, url: 'https://geo.example.org' },
      { name: 'Translator', capabilities: ['translation'] },
      { name: 'Empty', capabilities: [] },
    ];
    for (const other of others) assert.equal(agentJsonCodec.detect(other), false, JSON.stringify(other));
  });
});

describe('agent://: the descriptor it writes', () => {
  test('is JSON-LD naming our context and prefix, with the id and canonical bindings under agentry:', () => {
    const bindings: Agent['bindings'] = [
      { kind: 'http', url: 'https://trips.example.org/sketch', method: 'POST', operations: ['sketch'] },
      { kind: 'local', name: 'trip-sketcher' },
    ];
    const { descriptor, losses } = roundTrip(agent({ bindings, url: 'agent://trips.example.org/sketcher' }));
    assert.deepEqual(losses, []);
    assert.deepEqual(descriptor['@context'], [AGENTRY_CONTEXT_URL, { agentry: AGENTRY_NS }]);
    assert.equal(descriptor['id'], 'trip-sketcher');
    assert.deepEqual(descriptor['agentry:bindings'], bindings);
    assert.equal(agentJsonCodec.detect(descriptor), true);
  });

  test('writes behavioural metadata under the draft names and schemas in full (never the shorthand)', () => {
    const { descriptor } = roundTrip(
      agent({
        operations: [
          {
            name: 'sketch',
            input: { type: 'object', properties: { city: { type: 'string' } } },
            deterministic: true,
            outputVariability: 'low',
            latency: 'medium',
            requiresContext: false,
            memoryEnabled: false,
            confidenceEstimation: true,
            inputModes: ['application/json'],
            tags: ['travel'],
          },
        ],
      }),
    );
    assert.deepEqual((descriptor['capabilities'] as JsonObject[])[0], {
      name: 'sketch',
      input: { type: 'object', properties: { city: { type: 'string' } } },
      isDeterministic: true,
      expectedOutputVariability: 'low',
      responseLatency: 'medium',
      requiresContext: false,
      memoryEnabled: false,
      confidenceEstimation: true,
      contentTypes: { inputFormat: ['application/json'] },
      tags: ['travel'],
    });
  });

  test('scheme words alone when they say everything, full schemes beside them when not', () => {
    const simple = roundTrip(agent({ auth: { schemes: [{ id: 'bearer', type: 'bearer' }] } }));
    assert.deepEqual(simple.descriptor['authentication'], { schemes: ['Bearer'] });

    const apiKey = { id: 'key', type: 'apiKey' as const, in: 'header' as const, name: 'X-Trip-Key' };
    const detailed = roundTrip(agent({ auth: { schemes: [apiKey], security: [{ key: [] }] } }));
    assert.deepEqual(detailed.descriptor['authentication'], {
      schemes: ['ApiKey'],
      'agentry:schemes': [apiKey],
      'agentry:security': [{ key: [] }],
    });
    assert.deepEqual(detailed.losses, []);
  });

  test('the loss report is exact for what a descriptor cannot say', () => {
    const cases: Array<[Partial<Agent>, string[]]> = [
      [{ tags: ['travel'], iconUrl: 'https://trips.example.org/icon.png' }, ['iconUrl', 'tags']],
      [{ surface: { interactionModel: 'agent2agent', flags: { streaming: true } } }, ['surface.flags']],
      [{ auth: { schemes: [], instructions: 'Ask us.' } }, ['auth.instructions']],
      [
        { operations: [{ name: 'sketch', title: 'Sketch', safe: true, examples: [{ text: 'Paris' }] }] },
        ['operations[sketch].examples', 'operations[sketch].safe', 'operations[sketch].title'],
      ],
      [{ operations: [{ name: 'sketch', input: { city: 'string' } }] }, ['operations[sketch].input']],
      [
        { extensions: { 'agent-json': { '@context': ['https://ctx.example.org/a.jsonld'] } } },
        ['extensions.agent-json'],
      ],
      [
        { extensions: { 'agent-json': { capabilities: 'x' }, td: { a: 1 } } },
        ['extensions.agent-json', 'extensions.td'],
      ],
    ];
    for (const [overrides, expected] of cases) {
      const { losses } = roundTrip(agent(overrides));
      assert.deepEqual(losses, [...expected].sort(), JSON.stringify(overrides));
    }
  });

  test('a field named "__proto__" is data: kept in extensions.agent-json on the descriptor and a capability', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key.
    const document = JSON.parse(`{
      "@context": ["${AGENTRY_CONTEXT_URL}", { "agentry": "${AGENTRY_NS}" }],
      "id": "trip-sketcher", "name": "Trip Sketcher", "description": "Sketches day trips.", "version": "1.0.0",
      "__proto__": { "descriptor": true },
      "supportedVersions": { "__proto__": "/v0/agent.json" },
      "capabilities": [{ "name": "sketch", "__proto__": { "capability": true } }]
    }`) as JsonObject;
    const result = agentJsonCodec.parse(document);
    assert.deepEqual(errorsOf(result.issues), []);
    const read = result.agents[0]!;
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    assert.equal(Object.getPrototypeOf(read.extensions?.['agent-json']), Object.prototype);
    assert.deepEqual(own(read.extensions?.['agent-json']), { descriptor: true });
    assert.deepEqual(own(read.operations[0]?.extensions?.['agent-json']), { capability: true });
    assert.equal(own(read.supportedVersions), '/v0/agent.json');
    const { descriptor, back, losses } = roundTrip(read);
    assert.deepEqual(losses, []);
    assert.equal(Object.getPrototypeOf(descriptor), Object.prototype);
    assert.deepEqual(own(descriptor), { descriptor: true });
    assert.deepEqual(own((descriptor['capabilities'] as JsonObject[])[0]), { capability: true });
    assert.equal(own(descriptor['supportedVersions']), '/v0/agent.json');
    assert.deepEqual(descriptor, document);
    const { provenance: _p1, ...before } = read;
    const { provenance: _p2, ...after } = back;
    assert.deepEqual(after, before);
  });

  test('bindings are written verbatim, so their extensions of every format survive', () => {
    const bindings: Agent['bindings'] = [
      {
        kind: 'a2a',
        url: 'https://trips.example.org/a2a',
        protocolBinding: 'JSONRPC',
        extensions: { a2a: { 'x-region': 'eu' }, woa: { timeout_ms: 5 } },
      },
      { kind: 'mcp', server: 'https://trips.example.org/mcp', extensions: { mcp: { headers: [] } } },
    ];
    const { back, losses } = roundTrip(agent({ bindings }));
    assert.deepEqual(losses, []);
    assert.deepEqual(back.bindings, bindings);
  });
});
