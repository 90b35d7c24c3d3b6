/** The AIDIP agent-metadata codec: the draft's example, invalid metadata per rule, detection, the emitted shape. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aidipCodec } from '../../src/codecs/aidip/index.js';
import type { Agent, JsonObject, ParseOptions } from '../../src/index.js';
import { lostFields } from '../../src/index.js';
import { errorsOf, extractJsonAfter, issueSummary, readSharedText, readVector } from '../helpers.js';

interface InvalidCase {
  name: string;
  document: unknown;
  options?: ParseOptions;
  expect: Array<{ code: string; pointer: string; severity: string }>;
}

/**
 * The draft prints its JSON inline and wraps it across lines (and page breaks never fall inside these examples),
 * so lines are joined with a space before the JSON is cut out.
 */
const draft = readSharedText('specs', '004_d074d054821fd687.txt').replace(/\s*\n\s*/g, ' ');
function exampleAt(marker: string): JsonObject {
  const at = draft.indexOf(marker);
  assert.ok(at >= 0, `marker not found: ${marker}`);
  return JSON.parse(extractJsonAfter(draft, 'json', at)) as JsonObject;
}
const example = exampleAt('json { "id": "agent-12345"');

function agent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'glossary-1',
    name: 'Glossary Lookup',
    description: 'Looks up technical terms.',
    operations: [
      {
        name: 'lookup',
        description: 'Find one term.',
        input: { type: 'object', properties: { term: { type: 'string' } } },
        output: { type: 'object', properties: { definition: { type: 'string' } } },
      },
    ],
    bindings: [],
    ...overrides,
  };
}

function roundTrip(source: Agent, baseUrl?: string) {
  const emitted = aidipCodec.emit([source], baseUrl === undefined ? {} : { baseUrl });
  const parsed = aidipCodec.parse(emitted.document);
  assert.deepEqual(errorsOf(parsed.issues), [], JSON.stringify(emitted.document));
  const back = parsed.agents[0];
  const reported = [...new Set(emitted.losses.map((l) => l.field))].sort();
  assert.deepEqual(reported, lostFields(source, back).sort(), 'the loss report is exact');
  return { emitted, document: emitted.document as JsonObject, back: back!, losses: reported };
}

describe('AIDIP: the draft example (§3.3)', () => {
  test('parses with no issues and yields the translateText operation', () => {
    const result = aidipCodec.parse(example);
    assert.deepEqual(result.issues, []);
    const [translator] = result.agents;
    assert.ok(translator);
    assert.equal(translator.id, 'agent-12345');
    assert.equal(translator.name, 'Chinese-English Translator');
    assert.equal(translator.version, '1.2.0');
    assert.deepEqual(translator.publisher, { name: 'ExampleAI Inc.' });
    assert.deepEqual(translator.capabilities, ['translation']);
    assert.deepEqual(translator.tags, ['nlp', 'chinese', 'english', 'cloud']);
    assert.deepEqual(translator.languages, ['en', 'zh']);
    assert.deepEqual(translator.status, { state: 'active' });
    assert.deepEqual(translator.bindings, [
      { kind: 'http', url: 'https://api.example.com/agents/translate', method: 'POST' },
    ]);
    assert.deepEqual(translator.auth, {
      schemes: [{ id: 'api_key', type: 'apiKey' }],
      security: [{ api_key: [] }],
      instructions: "Include 'X-API-Key' header with your API key.",
    });
    assert.deepEqual(
      translator.operations.map((op) => op.name),
      ['translateText'],
    );
    const translate = translator.operations[0]!;
    assert.deepEqual((translate.input as JsonObject)['required'], [
      'text',
      'source_language',
      'target_language',
    ]);
    assert.deepEqual(translate.examples, [
      {
        input: { text: '你好世界', source_language: 'zh', target_language: 'en' },
        output: { translated_text: 'Hello World' },
      },
    ]);
  });

  test('is written back exactly as the draft prints it', () => {
    const emitted = aidipCodec.emit(aidipCodec.parse(example).agents);
    assert.deepEqual(emitted.document, example);
    assert.deepEqual(emitted.losses, []);
    assert.deepEqual(emitted.issues, []);
  });

  test('search summaries (§4.3.1) are not full metadata: they describe no inputs and outputs', () => {
    const summaryObject = exampleAt('json [ { "id": "agent-12345"');
    assert.equal(aidipCodec.detect(summaryObject), true);
    assert.deepEqual(issueSummary(errorsOf(aidipCodec.parse(summaryObject).issues)), [
      { code: 'aidip.io.missing', pointer: '', severity: 'error' },
    ]);
  });
});

describe('AIDIP: invalid metadata (vectors/aidip-invalid.json)', () => {
  const { cases } = readVector<{ cases: InvalidCase[] }>('aidip-invalid.json');
  for (const item of cases) {
    test(item.name, () => {
      const result = aidipCodec.parse(item.document, item.options);
      assert.deepEqual(issueSummary(result.issues), item.expect);
      assert.equal(result.valid, !item.expect.some((issue) => issue.severity === 'error'));
      for (const issue of result.issues)
        assert.ok(issue.spec?.startsWith('AIDIP §'), `${issue.code} names its section`);
    });
  }

  test('a partial agent is still returned when there are errors', () => {
    const result = aidipCodec.parse({ name: 'Half', endpoint: 'https://half.example.org/run' });
    assert.equal(result.valid, false);
    assert.equal(result.agents[0]?.id, 'half');
    assert.deepEqual(result.agents[0]?.operations, []);
  });

  test('never throws, whatever it is given', () => {
    const junk: unknown[] = [
      null,
      7,
      [],
      { name: 1, operations: [null, 3, { name: [], inputs: null, examples: [null, 1] }] },
      { name: 'x', authentication: { type: 3, scopes: [1] }, inputs: [], outputs: 'y', endpoint: 'ht tp:' },
    ];
    for (const document of junk) {
      const result = aidipCodec.parse(document);
      assert.equal(result.valid, false);
      assert.ok(
        !result.issues.some((issue) => issue.code === 'aidip.internal'),
        JSON.stringify(result.issues),
      );
    }
  });
});

describe('AIDIP: valid variations', () => {
  test('top-level inputs and outputs are one implied "default" operation', () => {
    const input = { type: 'object', properties: { prompt: { type: 'string' } } };
    const output = { type: 'object', properties: { text: { type: 'string' } } };
    const document = { name: 'Writer', description: 'Writes prose.', inputs: input, outputs: output };
    const result = aidipCodec.parse(document);
    assert.deepEqual(result.issues, []);
    assert.equal(result.agents[0]?.id, 'writer');
    assert.deepEqual(result.agents[0]?.operations, [{ name: 'default', input, output }]);
    const emitted = aidipCodec.emit(result.agents).document as JsonObject;
    assert.deepEqual(emitted, { id: 'writer', ...document });
  });

  test('a relative endpoint (a gateway path) is resolved against the document URL', () => {
    const document = { ...example, endpoint: '/agents/agent-12345/invoke' };
    const result = aidipCodec.parse(document, {
      sourceUrl: 'https://registry.example.org/agents/agent-12345',
    });
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.agents[0]?.bindings, [
      { kind: 'http', url: 'https://registry.example.org/agents/agent-12345/invoke', method: 'POST' },
    ]);
  });

  test('oauth2_bearer scopes become a security requirement; unknown fields are kept', () => {
    const document = {
      ...example,
      authentication: {
        type: 'oauth2_bearer',
        scopes: ['translate:run'],
        token_url: 'https://id.example.com/token',
      },
      rate_limit: { per_minute: 60 },
      pricing: 'free',
    };
    const result = aidipCodec.parse(document);
    assert.deepEqual(result.issues, []);
    const translator = result.agents[0]!;
    assert.deepEqual(translator.auth, {
      schemes: [{ id: 'oauth2_bearer', type: 'oauth2' }],
      security: [{ oauth2_bearer: ['translate:run'] }],
    });
    assert.deepEqual(translator.extensions, {
      aidip: {
        rate_limit: { per_minute: 60 },
        pricing: 'free',
        authentication: { token_url: 'https://id.example.com/token' },
      },
    });
    assert.deepEqual(aidipCodec.emit(result.agents).document, document);
  });

  test('credentials listed with their headers (a gateway) are one scheme each, all required, written back as they were', () => {
    const document = {
      ...example,
      endpoint: 'https://registry.example.com/agents/agent-12345/invoke',
      authentication: {
        type: 'oauth2_bearer',
        instructions: 'Send both.',
        credentials: [
          {
            for: 'registry',
            type: 'oauth2_bearer',
            in: 'header',
            name: 'Authorization',
            instructions: 'A token.',
          },
          { for: 'agent', type: 'api_key', in: 'header', name: 'X-Agent-Api-Key' },
        ],
      },
    };
    const result = aidipCodec.parse(document);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.agents[0]!.auth, {
      schemes: [
        { id: 'registry', type: 'bearer', description: 'A token.' },
        { id: 'agent', type: 'apiKey', in: 'header', name: 'X-Agent-Api-Key' },
      ],
      security: [{ registry: [], agent: [] }],
      instructions: 'Send both.',
    });
    const emitted = aidipCodec.emit(result.agents);
    assert.deepEqual(emitted.document, document);
    assert.deepEqual(emitted.losses, []);
  });

  test('a credential marked required: false is offered as a scheme, not required', () => {
    const authentication = {
      type: 'oauth2_bearer',
      credentials: [
        { for: 'registry', type: 'oauth2_bearer', in: 'header', name: 'Authorization' },
        { for: 'agent', type: 'api_key', in: 'header', name: 'X-Agent-Api-Key', required: false },
      ],
    };
    const result = aidipCodec.parse({ ...example, authentication });
    assert.deepEqual(result.agents[0]!.auth, {
      schemes: [
        { id: 'registry', type: 'bearer' },
        { id: 'agent', type: 'apiKey', in: 'header', name: 'X-Agent-Api-Key' },
      ],
      security: [{ registry: [] }],
    });
    assert.deepEqual(aidipCodec.emit(result.agents).document, { ...example, authentication });
  });

  test('a credentials list that does not say where each credential goes is only kept', () => {
    const authentication = { type: 'api_key', credentials: [{ type: 'api_key', name: 'X-Key' }] };
    const result = aidipCodec.parse({ ...example, authentication });
    assert.deepEqual(result.agents[0]!.auth?.schemes, [{ id: 'api_key', type: 'apiKey' }]);
    assert.deepEqual(aidipCodec.emit(result.agents).document, { ...example, authentication });
  });

  test('a field named "__proto__" is data: kept in extensions.aidip on the agent and an operation', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key.
    const document = JSON.parse(`{
      "id": "glossary-1", "name": "Glossary Lookup", "description": "Looks up technical terms.",
      "authentication": { "type": "api_key", "__proto__": { "authentication": true } },
      "operations": [{
        "name": "lookup", "description": "Find one term.",
        "inputs": { "type": "object" }, "outputs": { "type": "object" },
        "__proto__": { "operation": true }
      }],
      "__proto__": { "agent": true }
    }`) as JsonObject;
    const result = aidipCodec.parse(document);
    assert.deepEqual(result.issues, []);
    const read = result.agents[0]!;
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    const extension = read.extensions?.['aidip'];
    assert.equal(Object.getPrototypeOf(extension), Object.prototype);
    assert.deepEqual(own(extension), { agent: true });
    assert.deepEqual(own(extension?.['authentication']), { authentication: true });
    assert.deepEqual(own(read.operations[0]?.extensions?.['aidip']), { operation: true });
    const { document: written, losses } = roundTrip(read);
    assert.deepEqual(losses, []);
    assert.equal(Object.getPrototypeOf(written), Object.prototype);
    assert.deepEqual(own(written), { agent: true });
    assert.deepEqual(own(written['authentication']), { authentication: true });
    assert.deepEqual(own((written['operations'] as JsonObject[])[0]), { operation: true });
    assert.deepEqual(written, document);
  });

  test('authentication types named like Object.prototype members are unknown types, not prototypes', () => {
    for (const type of ['__proto__', 'toString', 'constructor']) {
      const result = aidipCodec.parse({ ...example, authentication: { type } });
      assert.deepEqual(issueSummary(result.issues), [
        { code: 'aidip.authentication.type', pointer: '/authentication/type', severity: 'warning' },
      ]);
      assert.deepEqual(result.agents[0]?.auth?.schemes, [{ id: type, type: 'other', scheme: type }]);
    }
  });
});

describe('AIDIP: detection', () => {
  test('a name with operations, an endpoint, or top-level inputs and outputs', () => {
    assert.equal(aidipCodec.detect(example), true);
    assert.equal(aidipCodec.detect({ name: 'a', operations: [] }), true);
    assert.equal(aidipCodec.detect({ name: 'a', endpoint: 'https://a.example.org' }), true);
    assert.equal(aidipCodec.detect({ name: 'a', inputs: {}, outputs: {} }), true);
  });
  test('not other shapes', () => {
    for (const document of [
      null,
      [example],
      { name: 'a' },
      { name: 'a', inputs: {} },
      { name: 7, operations: [] },
      { operations: [], endpoint: 'https://a.example.org' },
      { name: 'a', operations: {}, endpoint: 5 },
    ]) {
      assert.equal(aidipCodec.detect(document), false, JSON.stringify(document));
    }
  });
});

describe('AIDIP: emitting', () => {
  test('the endpoint is the binding serving every operation', () => {
    const source = agent({
      bindings: [
        { kind: 'http', url: 'https://glossary.example.org/other', method: 'POST', operations: ['lookup'] },
        { kind: 'http', url: 'https://glossary.example.org/run', method: 'POST' },
      ],
    });
    const { document, losses } = roundTrip(source);
    assert.equal(document['endpoint'], 'https://glossary.example.org/run');
    assert.deepEqual(losses, ['bindings.http']);
  });

  test('a single operation uses its own binding, and the operation restriction is reported', () => {
    const source = agent({
      bindings: [
        { kind: 'http', url: 'https://glossary.example.org/lookup', method: 'POST', operations: ['lookup'] },
      ],
    });
    const { document, losses } = roundTrip(source);
    assert.equal(document['endpoint'], 'https://glossary.example.org/lookup');
    assert.deepEqual(losses, ['bindings.http']);
  });

  test('with a base URL and one operation, the Agentry host path is the endpoint', () => {
    const { document, losses } = roundTrip(agent(), 'https://agents.example.net/');
    assert.equal(document['endpoint'], 'https://agents.example.net/agents/glossary-1/operations/lookup');
    assert.deepEqual(losses, []);
  });

  test('several operations without a shared binding get no endpoint', () => {
    const second = {
      name: 'list',
      description: 'List terms.',
      input: { type: 'object' },
      output: { type: 'object' },
    };
    const source = agent({
      operations: [agent().operations[0]!, second],
      bindings: [
        { kind: 'http', url: 'https://glossary.example.org/list', method: 'GET', operations: ['list'] },
      ],
    });
    const { document, losses } = roundTrip(source, 'https://agents.example.net');
    assert.equal('endpoint' in document, false);
    assert.deepEqual(losses, ['bindings.http']);
  });

  test('operations always carry a description and both schemas', () => {
    const source = agent({ operations: [{ name: 'ping', title: 'Ping it' }] });
    const { document, losses } = roundTrip(source);
    assert.deepEqual(document['operations'], [
      { name: 'ping', description: 'Ping it', inputs: { type: 'object' }, outputs: { type: 'object' } },
    ]);
    assert.deepEqual(losses, ['operations[ping].title']);
  });

  test('publisher URLs and text-only examples are reported as lost', () => {
    const op = agent().operations[0]!;
    const source = agent({
      publisher: { name: 'Glossary Co', url: 'https://glossary.example.org' },
      operations: [
        {
          ...op,
          examples: [
            { text: 'What does ABNF mean?' },
            { input: { term: 'ABNF' }, output: { definition: 'A grammar.' } },
          ],
        },
      ],
    });
    const { document, losses } = roundTrip(source);
    assert.equal(document['publisher'], 'Glossary Co');
    assert.deepEqual((document['operations'] as JsonObject[])[0]!['examples'], [
      { input: { term: 'ABNF' }, output: { definition: 'A grammar.' } },
    ]);
    assert.deepEqual(losses, ['operations[lookup].examples', 'publisher']);
  });

  test('auth: the first requirement names the type; what AIDIP cannot say is reported', () => {
    const exact = agent({
      auth: {
        schemes: [{ id: 'oauth2_bearer', type: 'oauth2' }],
        security: [{ oauth2_bearer: ['read'] }],
        instructions: 'Ask the admin.',
      },
    });
    const first = roundTrip(exact);
    assert.deepEqual(first.document['authentication'], {
      type: 'oauth2_bearer',
      scopes: ['read'],
      instructions: 'Ask the admin.',
    });
    assert.deepEqual(first.losses, []);

    const bearer = agent({
      auth: {
        schemes: [{ id: 'jwt', type: 'bearer', bearerFormat: 'JWT' }],
        security: [{ jwt: [] }],
        tokenExpiry: '1h',
      },
    });
    const second = roundTrip(bearer);
    assert.deepEqual(second.document['authentication'], { type: 'oauth2_bearer' });
    assert.deepEqual(second.losses, ['auth.schemes', 'auth.security', 'auth.tokenExpiry']);
  });

  test('status keeps its state only', () => {
    const { document, losses } = roundTrip(agent({ status: { state: 'deprecated', operational: false } }));
    assert.equal(document['status'], 'deprecated');
    assert.deepEqual(losses, ['status.operational']);
  });
});
