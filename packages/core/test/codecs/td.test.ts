/**
 * The WoT Thing Description codec: the ADR-0015 AgentCard sketch (read from the spec text), the AgentCards it writes
 * (checked against the official TD 1.1 JSON Schema from the npm package AND the copy in ../shared/w3c), the W3C
 * WoT Plugfest corpus (every TD reads as an agent, every TM with the Thing Model warning), one invalid document
 * per rule, detection, the shipped ontology and context, and the parse budget.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { tdCodec } from '../../src/codecs/td/index.js';
import { OFFICIAL_SCHEMA_SPEC, validateThingDescription } from '../../src/codecs/td/official-schema.js';
import { EMITTED_AGENTRY_TERMS } from '../../src/codecs/td/terms.js';
import type { Agent, JsonObject, JsonValue, ParseOptions, ValidationIssue } from '../../src/index.js';
import { AGENTRY_NS, lostFields, TD_CONTEXT_1_0, TD_CONTEXT_1_1 } from '../../src/index.js';
import {
  errorsOf,
  extractJsonAfter,
  readSharedJson,
  readSharedText,
  readVector,
  repoRoot,
  sharedPath,
} from '../helpers.js';

interface InvalidCase {
  name: string;
  document: unknown;
  options?: ParseOptions;
  expect: Array<{ code: string; pointer: string; severity: string }>;
}

const fixtures = readVector<{ baseUrl: string; cases: Array<{ name: string; agent: Agent }> }>(
  'round-trip-agents.json',
);
const baseUrl = fixtures.baseUrl;

// The same schema, compiled here from the copy in ../shared/w3c, so that the codec's own check is not the only judge.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);
let sharedSchemaValidator: ValidateFunction | undefined;
function sharedSchemaErrors(document: unknown): string[] {
  if (sharedSchemaValidator === undefined) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    sharedSchemaValidator = ajv.compile(readSharedJson('w3c', 'td-json-schema-validation.json') as object);
  }
  if (sharedSchemaValidator(document)) return [];
  return (sharedSchemaValidator.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`);
}

function assertValidTd(document: unknown, label: string): void {
  assert.deepEqual(validateThingDescription(document), [], `${label}: official schema (npm package)`);
  assert.deepEqual(sharedSchemaErrors(document), [], `${label}: official schema (../shared/w3c copy)`);
}

const brief = (issues: readonly ValidationIssue[]) =>
  issues.map(({ code, pointer, severity }) => ({ code, pointer, severity }));

function emitOne(agent: Agent, options: { baseUrl?: string } = { baseUrl }) {
  const result = tdCodec.emit([agent], options);
  assert.ok(!Array.isArray(result.document));
  return { ...result, document: result.document as JsonObject };
}

function actionsOf(document: JsonObject): Record<string, JsonObject> {
  return document['actions'] as Record<string, JsonObject>;
}

// ---------------------------------------------------------------------------------------------------------------

describe('td: the ADR-0015 AgentCard sketch', () => {
  const sketch = JSON.parse(
    extractJsonAfter(readSharedText('specs', '003_1b15d8db6fda8324.txt'), 'Surface sketch'),
  ) as JsonObject;

  test('is detected as a TD', () => {
    assert.equal(tdCodec.detect(sketch), true);
  });

  test('is abridged: the official schema reports its action without forms, and nothing else', () => {
    const result = tdCodec.parse(sketch);
    assert.deepEqual(brief(errorsOf(result.issues)), [
      { code: 'td.schema.required', pointer: '/actions/summarize/forms', severity: 'error' },
    ]);
    const [issue] = errorsOf(result.issues);
    assert.equal(issue?.spec, OFFICIAL_SCHEMA_SPEC);
    assert.match(issue?.message ?? '', /"forms"/);
  });

  test('its action still maps to an operation with every ADR field read from the trails: terms', () => {
    const [agent] = tdCodec.parse(sketch).agents;
    assert.ok(agent);
    assert.equal(agent.id, 'did:web:example.org:agents:summarize');
    assert.equal(agent.name, 'Summarize Agent');
    assert.deepEqual(agent.auth, {
      schemes: [{ id: 'biscuit_sc', type: 'bearer', bearerFormat: 'biscuit' }],
      security: [{ biscuit_sc: [] }],
    });
    assert.deepEqual(agent.operations, [
      {
        name: 'summarize',
        description: 'Return a 3-sentence abstract of an input document.',
        version: '1.2.0',
        idempotent: true,
        input: { type: 'object', 'sh:node': 'urn:shape:DocumentInput' },
        output: { type: 'object', 'sh:node': 'urn:shape:Abstract' },
        assurance: 'L2',
        costEstimate: { tokensEstimate: 1200, usdEstimate: 0.004 },
        policiesRequired: ['urn:policy:summarize.basic'],
        sideEffects: { graphWrites: ['urn:g:abstracts'], regulated: false },
        reasoningMode: 'none',
        versionStatus: 'active',
        revisionOf: 'cap:summarize@1.1.0',
      },
    ]);
    // The prefixes the sketch declares beyond ours are kept, so its sh: and trails: terms stay meaningful.
    assert.deepEqual(agent.extensions?.['td']?.['@context'], [
      { trails: 'https://trails.dev/ont/core#', sh: 'http://www.w3.org/ns/shacl#' },
    ]);
  });

  test('with a form added it is a valid TD, and converts to an AgentCard with the fields under agentry:', () => {
    const completed = structuredClone(sketch);
    const summarize = (completed['actions'] as Record<string, JsonObject>)['summarize']!;
    summarize['forms'] = [{ href: 'https://example.org/agents/summarize/invoke' }];
    assertValidTd(completed, 'completed sketch');
    const parsed = tdCodec.parse(completed);
    assert.deepEqual(errorsOf(parsed.issues), []);
    const card = emitOne(parsed.agents[0]!).document;
    assertValidTd(card, 'AgentCard from the sketch');
    const action = actionsOf(card)['summarize']!;
    assert.equal(action['agentry:assurance'], 'L2');
    assert.deepEqual(action['agentry:policyRequired'], ['urn:policy:summarize.basic']);
    assert.equal(action['schema:softwareVersion'], '1.2.0');
    assert.equal(action['prov:wasRevisionOf'], 'cap:summarize@1.1.0');
    assert.equal(action['trails:assurance'], undefined);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('td: emitted AgentCards', () => {
  test('a root $schema naming 2020-12 is left out of DataSchemas (draft-07 consumers refuse it), with no loss', () => {
    const dialect = 'https://json-schema.org/draft/2020-12/schema';
    const agent: Agent = {
      ...fixtures.cases[0]!.agent,
      operations: [
        {
          name: 'summarize',
          input: { $schema: dialect, type: 'object', properties: { text: { type: 'string' } } },
          output: { $schema: dialect, type: 'string' },
        },
      ],
    };
    const { document, losses } = emitOne(agent);
    const action = actionsOf(document)['summarize']!;
    assert.deepEqual(action['input'], { type: 'object', properties: { text: { type: 'string' } } });
    assert.deepEqual(action['output'], { type: 'string' });
    assert.ok(
      !losses.some((loss) => /operations\[summarize\]\.(input|output)/.test(loss.field)),
      JSON.stringify(losses),
    );
  });

  for (const { name, agent } of fixtures.cases) {
    test(`${name}: valid under the official TD 1.1 JSON Schema and read back without errors`, () => {
      const { document, issues } = emitOne(agent);
      assert.deepEqual(errorsOf(issues), []);
      assertValidTd(document, name);
      const parsed = tdCodec.parse(document);
      assert.deepEqual(errorsOf(parsed.issues), []);
      assert.equal(parsed.agents[0]?.id, agent.id);
    });

    test(`${name}: every form href is absolute and every operation is one action`, () => {
      const { document } = emitOne(agent);
      const actions = actionsOf(document);
      assert.deepEqual(
        Object.keys(actions),
        agent.operations.map((op) => op.name),
      );
      for (const [actionName, action] of Object.entries(actions)) {
        const forms = action['forms'] as JsonObject[];
        assert.ok(forms.length > 0, `${actionName} has forms`);
        for (const form of forms) {
          assert.ok(URL.canParse(String(form['href'])), `${actionName}: ${String(form['href'])} is absolute`);
          assert.equal(form['op'], 'invokeaction');
        }
      }
    });
  }

  test('the Thing: exact @context, AgentCard type, URI id, agentId, title, version', () => {
    const planner = fixtures.cases.find((c) => c.agent.id === 'itinerary-planner')!.agent;
    const { document } = emitOne(planner);
    assert.deepEqual(document['@context'], [
      TD_CONTEXT_1_0,
      TD_CONTEXT_1_1,
      {
        agentry: AGENTRY_NS,
        schema: 'https://schema.org/',
        prov: 'http://www.w3.org/ns/prov#',
        dct: 'http://purl.org/dc/terms/',
      },
    ]);
    assert.deepEqual(document['@type'], ['agentry:AgentCard', 'Thing']);
    assert.equal(document['id'], 'agent://planner.example.com/');
    assert.equal(document['agentry:agentId'], 'itinerary-planner');
    assert.equal(document['title'], 'Itinerary Planner');
    assert.deepEqual(document['version'], { instance: '3.1.4' });
    assert.deepEqual(document['links'], [{ rel: 'service-doc', href: 'https://planner.example.com/docs' }]);

    const summarizer = fixtures.cases.find((c) => c.agent.id === 'summarizer')!.agent;
    const plain = emitOne(summarizer).document;
    assert.equal(plain['id'], 'urn:agentry:agent:summarizer');
    assert.deepEqual(plain['securityDefinitions'], { nosec_sc: { scheme: 'nosec' } });
    assert.deepEqual(plain['security'], ['nosec_sc']);
  });

  test('the action: the ADR mapping table field by field', () => {
    const planner = fixtures.cases.find((c) => c.agent.id === 'itinerary-planner')!.agent;
    const action = actionsOf(emitOne(planner).document)['gen-iti']!;
    assert.equal(action['description'], 'Creates a travel itinerary for a given city.');
    assert.equal(action['dct:description'], 'Creates a travel itinerary for a given city.');
    assert.equal(action['schema:softwareVersion'], '2.1.5');
    assert.deepEqual(action['input'], planner.operations[0]!.input);
    assert.deepEqual(action['output'], planner.operations[0]!.output);
    assert.deepEqual(action['agentry:precondition'], ['urn:precondition:city-known']);
    assert.deepEqual(action['agentry:sideEffect'], { graphWrites: [], regulated: false });
    assert.deepEqual(action['agentry:costEstimate'], { tokensEstimate: 1200, usdEstimate: 0.004 });
    assert.deepEqual(action['agentry:policyRequired'], ['urn:policy:travel.basic']);
    assert.equal(action['idempotent'], false);
    assert.equal(action['prov:wasRevisionOf'], 'cap:gen-iti@2.1.4');
    assert.equal(action['agentry:reasoningMode'], 'none');
    assert.equal(action['agentry:assurance'], 'L2');
    assert.equal(action['agentry:versionStatus'], 'active');
    assert.equal(action['safe'], true);
    assert.equal(action['synchronous'], true);
    assert.equal(action['agentry:latency'], 'high');
    assert.deepEqual(action['forms'], [
      {
        href: 'https://planner.example.com/gen-iti',
        op: 'invokeaction',
        'htv:methodName': 'POST',
        contentType: 'application/json',
      },
    ]);
  });

  test('unknown safe/idempotent/synchronous are written as false/false/true; async as synchronous false', () => {
    const agent: Agent = {
      id: 'jobs',
      name: 'Jobs',
      description: '',
      operations: [{ name: 'start' }, { name: 'run', executionModel: 'async' }],
      bindings: [],
    };
    const actions = actionsOf(emitOne(agent).document);
    assert.deepEqual(
      [actions['start']!['safe'], actions['start']!['idempotent'], actions['start']!['synchronous']],
      [false, false, true],
    );
    assert.equal(actions['run']!['synchronous'], false);
    assert.deepEqual(
      tdCodec.parse(emitOne(agent).document).agents[0]!.operations[1]!.executionModel,
      'async',
    );
  });

  test('an operation without an HTTP binding gets a form at /agents/{id}/operations/{name} under the base URL', () => {
    const agent: Agent = {
      id: 'echo bot',
      name: 'Echo',
      description: '',
      operations: [{ name: 'say' }],
      bindings: [],
    };
    const { document, issues } = emitOne(agent);
    assert.deepEqual(issues, []);
    const forms = actionsOf(document)['say']!['forms'] as JsonObject[];
    assert.equal(forms[0]!['href'], `${baseUrl}/agents/echo%20bot/operations/say`);
  });

  test('without a base URL such a form cannot be absolute: an error says to pass one', () => {
    const agent: Agent = {
      id: 'echo',
      name: 'Echo',
      description: '',
      operations: [{ name: 'say' }],
      bindings: [],
    };
    const { issues } = emitOne(agent, {});
    assert.deepEqual(brief(issues), [
      { code: 'td.emit.no-base-url', pointer: '/actions/say/forms/0/href', severity: 'error' },
    ]);
    assert.match(issues[0]!.message, /base URL/);
  });

  test('action keys are unique by construction: a second operation of the same name is an error', () => {
    const agent: Agent = {
      id: 'twice',
      name: 'Twice',
      description: '',
      operations: [
        { name: 'go', description: 'first' },
        { name: 'go', description: 'second' },
      ],
      bindings: [],
    };
    const { document, issues } = emitOne(agent);
    assert.deepEqual(Object.keys(actionsOf(document)), ['go']);
    assert.equal(actionsOf(document)['go']!['description'], 'first');
    assert.deepEqual(brief(issues), [
      { code: 'td.emit.duplicate-operation', pointer: '/actions/go', severity: 'error' },
    ]);
  });

  test('local $refs are inlined (no $ref in a TD), and the changed shape is reported', () => {
    const input: JsonObject = {
      type: 'object',
      $defs: { city: { type: 'string', minLength: 2 } },
      properties: {
        from: { $ref: '#/$defs/city' },
        to: { $ref: '#/$defs/city', description: 'Destination' },
      },
    };
    const agent: Agent = {
      id: 'route',
      name: 'Route',
      description: '',
      operations: [{ name: 'plan', input }],
      bindings: [],
    };
    const { document, losses } = emitOne(agent);
    assertValidTd(document, 'inlined');
    assert.deepEqual(actionsOf(document)['plan']!['input'], {
      type: 'object',
      properties: {
        from: { type: 'string', minLength: 2 },
        to: { type: 'string', minLength: 2, description: 'Destination' },
      },
    });
    assert.ok(!JSON.stringify(document).includes('$ref'));
    assert.deepEqual(
      losses.map((loss) => loss.field),
      ['operations[plan].input'],
    );
  });

  test('a schema that cannot be inlined becomes {} with a loss saying why', () => {
    const input: JsonObject = {
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
      $ref: '#/$defs/node',
    };
    const output: JsonObject = { $ref: 'https://schemas.example.org/result.json' };
    const agent: Agent = {
      id: 'graph',
      name: 'Graph',
      description: '',
      operations: [{ name: 'walk', input, output }],
      bindings: [],
    };
    const { document, losses } = emitOne(agent);
    assertValidTd(document, 'dropped schemas');
    assert.deepEqual(actionsOf(document)['walk']!['input'], {});
    assert.deepEqual(actionsOf(document)['walk']!['output'], {});
    assert.deepEqual(losses.map((loss) => loss.field).sort(), [
      'operations[walk].input',
      'operations[walk].output',
    ]);
    assert.match(losses.find((l) => l.field.endsWith('input'))!.message, /recursive/);
  });

  test('type lists, tuples and boolean subschemas are written in TD forms the official schema accepts', () => {
    const input: JsonObject = {
      type: 'object',
      properties: {
        note: { type: ['string', 'null'] },
        point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
        anything: true,
      },
      additionalProperties: false,
    };
    const agent: Agent = {
      id: 'shapes',
      name: 'Shapes',
      description: '',
      operations: [{ name: 'draw', input }],
      bindings: [],
    };
    const { document } = emitOne(agent);
    assertValidTd(document, 'TD shapes');
    const written = actionsOf(document)['draw']!['input'] as JsonObject;
    const properties = written['properties'] as JsonObject;
    assert.deepEqual(properties['note'], { oneOf: [{ type: 'string' }, { type: 'null' }] });
    assert.deepEqual(properties['point'], { type: 'array', items: [{ type: 'number' }, { type: 'number' }] });
    // A TD tuple reads back as a 2020-12 tuple.
    const back = tdCodec.parse(document).agents[0]!.operations[0]!.input as JsonObject;
    assert.deepEqual(
      (back['properties'] as JsonObject)['point'],
      input['properties'] && (input['properties'] as JsonObject)['point'],
    );
  });

  test('security: every canonical scheme type survives a TD round trip, and the TD is valid', () => {
    const agent: Agent = {
      id: 'secure',
      name: 'Secure',
      description: '',
      auth: {
        schemes: [
          { id: 'key', type: 'apiKey', in: 'query', name: 'k' },
          { id: 'jwt', type: 'bearer', bearerFormat: 'JWT', description: 'Issued by the portal' },
          { id: 'pw', type: 'basic' },
          {
            id: 'oauth',
            type: 'oauth2',
            authorizationUrl: 'https://auth.example.org/authorize',
            tokenUrl: 'https://auth.example.org/token',
            scopes: { read: '', write: '' },
          },
          {
            id: 'oidc',
            type: 'openIdConnect',
            openIdConnectUrl: 'https://auth.example.org/.well-known/openid-configuration',
          },
          { id: 'cert', type: 'mtls' },
          { id: 'custom', type: 'other', scheme: 'hmac-signature' },
          {
            id: 'ace',
            type: 'other',
            scheme: 'ace:ACESecurityScheme',
            extensions: { td: { 'ace:as': 'coaps://as.example.org/token' } },
          },
        ],
        security: [{ jwt: [], key: [] }],
      },
      operations: [{ name: 'op' }],
      bindings: [],
    };
    const { document, losses } = emitOne(agent);
    assertValidTd(document, 'security');
    assert.deepEqual(losses, []);
    assert.deepEqual((document['securityDefinitions'] as JsonObject)['oidc'], {
      scheme: 'agentry:OpenIdConnectSecurityScheme',
      'agentry:openIdConnectUrl': 'https://auth.example.org/.well-known/openid-configuration',
    });
    assert.deepEqual(document['security'], ['jwt', 'key']);
    const back = tdCodec.parse(document).agents[0]!;
    assert.deepEqual(back.auth, agent.auth);
  });

  test('security alternatives become a combo scheme; what changes shape is reported', () => {
    const agent: Agent = {
      id: 'either',
      name: 'Either',
      description: '',
      auth: {
        schemes: [
          { id: 'key', type: 'apiKey', in: 'header', name: 'X-Key' },
          { id: 'oauth', type: 'oauth2', scopes: { read: 'Read access' } },
        ],
        security: [{ key: [] }, { oauth: ['read'] }],
      },
      operations: [{ name: 'op' }],
      bindings: [],
    };
    const { document, losses } = emitOne(agent);
    assertValidTd(document, 'combo');
    assert.deepEqual(document['security'], ['combo_sc']);
    assert.deepEqual((document['securityDefinitions'] as JsonObject)['combo_sc'], {
      scheme: 'combo',
      oneOf: ['key', 'oauth'],
    });
    const back = tdCodec.parse(document).agents[0]!;
    assert.deepEqual(losses.map((loss) => loss.field).sort(), lostFields(agent, back).sort());
    assert.deepEqual(losses.map((loss) => loss.field).sort(), ['auth.schemes', 'auth.security']);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('td: reading any Thing', () => {
  const context = [
    TD_CONTEXT_1_1,
    {
      agentry: AGENTRY_NS,
      trails: 'https://trails.dev/ont/core#',
      coap: 'http://www.example.org/coap-binding#',
    },
  ];

  test('forms become bindings: base-relative hrefs resolved, TD defaults left out, other terms kept', () => {
    const thing: JsonObject = {
      '@context': context,
      title: 'Pump',
      base: 'https://pump.example.org/api/',
      securityDefinitions: {
        nosec_sc: { scheme: 'nosec' },
        oauth_sc: { scheme: 'oauth2', flow: 'client', scopes: ['pump'] },
      },
      security: 'nosec_sc',
      actions: {
        start: {
          synchronous: false,
          forms: [
            { href: 'start', contentType: 'application/json', response: { contentType: 'application/json' } },
            { href: 'start/status', op: ['queryaction'], security: 'oauth_sc', scopes: 'pump' },
            { href: 'coap://pump.example.org/start', 'coap:method': 'POST' },
          ],
        },
      },
      properties: { level: { type: 'number', forms: [{ href: 'level' }] } },
    };
    const result = tdCodec.parse(thing);
    assert.deepEqual(errorsOf(result.issues), []);
    const agent = result.agents[0]!;
    assert.equal(agent.id, 'pump');
    assert.deepEqual(agent.bindings, [
      {
        kind: 'http',
        url: 'https://pump.example.org/api/start',
        method: 'POST',
        operations: ['start'],
        // The form's member the binding has no field for is the binding's own, not the operation's.
        extensions: { td: { response: { contentType: 'application/json' } } },
      },
      {
        kind: 'http',
        url: 'https://pump.example.org/api/start/status',
        method: 'GET',
        op: ['queryaction'],
        security: [{ oauth_sc: ['pump'] }],
        operations: ['start'],
      },
      {
        kind: 'other',
        protocol: 'coap',
        config: { href: 'coap://pump.example.org/start', 'coap:method': 'POST' },
        operations: ['start'],
      },
    ]);
    assert.equal(agent.operations[0]!.executionModel, 'async');
    assert.equal(agent.operations[0]!.extensions, undefined);
    assert.deepEqual(agent.extensions?.['td']?.['properties'], thing['properties']);
    assert.equal(agent.extensions?.['td']?.['base'], 'https://pump.example.org/api/');

    // Written back, the TD keeps the form's response, the CoAP form and the properties.
    const { document, losses } = emitOne(agent);
    assert.deepEqual(losses, []);
    assertValidTd(document, 'pump');
    const forms = actionsOf(document)['start']!['forms'] as JsonObject[];
    assert.deepEqual(forms[0]!['response'], { contentType: 'application/json' });
    assert.deepEqual(forms[2], { href: 'coap://pump.example.org/start', 'coap:method': 'POST' });
    assert.deepEqual(document['properties'], thing['properties']);
    const again = tdCodec.parse(document).agents[0]!;
    assert.deepEqual(lostFields(agent, again), []);
  });

  test('relative hrefs without base resolve against the source URL', () => {
    const thing: JsonObject = {
      '@context': TD_CONTEXT_1_1,
      title: 'Door',
      securityDefinitions: { nosec_sc: { scheme: 'nosec' } },
      security: 'nosec_sc',
      actions: { lock: { forms: [{ href: '/things/door/lock' }] } },
    };
    const result = tdCodec.parse(thing, { sourceUrl: 'http://door.local:8080/things/door' });
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.agents[0]!.bindings, [
      { kind: 'http', url: 'http://door.local:8080/things/door/lock', method: 'POST', operations: ['lock'] },
    ]);
  });

  test('agentry: terms win over trails: ones for the same field; the trails: value is kept, not lost', () => {
    const thing: JsonObject = {
      '@context': context,
      title: 'Scorer',
      securityDefinitions: { nosec_sc: { scheme: 'nosec' } },
      security: 'nosec_sc',
      actions: {
        score: {
          'trails:assurance': 'L1',
          'agentry:assurance': 'L3',
          'agentry:sensitivity': 'destructive',
          'trails:precondition': 'urn:precondition:single',
          description: 'Score a text.',
          'dct:description': 'Scores a text (longer form).',
          forms: [{ href: 'https://scorer.example.org/score' }],
        },
      },
    };
    const op = tdCodec.parse(thing).agents[0]!.operations[0]!;
    assert.equal(op.assurance, 'L3');
    assert.equal(op.sensitivity, 'destructive');
    assert.deepEqual(op.preconditions, ['urn:precondition:single']);
    assert.equal(op.description, 'Score a text.');
    assert.deepEqual(op.extensions?.['td'], {
      'trails:assurance': 'L1',
      'dct:description': 'Scores a text (longer form).',
    });
  });

  test('terms are recognised by IRI, whatever prefix the document binds', () => {
    const thing: JsonObject = {
      '@context': [TD_CONTEXT_1_1, { ag: AGENTRY_NS }],
      title: 'Prefixed',
      securityDefinitions: { nosec_sc: { scheme: 'nosec' } },
      security: 'nosec_sc',
      'ag:agentId': 'prefixed-agent',
      actions: { go: { 'ag:rateLimit': '5/second', forms: [{ href: 'https://p.example.org/go' }] } },
    };
    const agent = tdCodec.parse(thing).agents[0]!;
    assert.equal(agent.id, 'prefixed-agent');
    assert.equal(agent.operations[0]!.rateLimit, '5/second');
  });

  test("form members a binding has no field for are kept in that binding's extensions.td and written back", () => {
    const thing: JsonObject = {
      '@context': [TD_CONTEXT_1_1, { coap: 'http://www.example.org/coap-binding#' }],
      title: 'Kettle',
      securityDefinitions: { nosec_sc: { scheme: 'nosec' } },
      security: 'nosec_sc',
      actions: {
        boil: {
          forms: [
            {
              href: 'https://kettle.example.org/boil',
              contentType: 'application/json',
              response: { contentType: 'application/json' },
              additionalResponses: [{ success: false, contentType: 'application/problem+json' }],
            },
            { href: 'https://kettle.example.org/boil/plain', subprotocol: 'longpoll' },
            { href: 'https://kettle.example.org/boil/text', contentType: 'text/plain' },
            { href: 'legacy/boil' },
          ],
        },
        stop: {
          forms: [{ href: 'https://kettle.example.org/stop', 'coap:hint': 'not coap at all' }],
        },
      },
    };
    const result = tdCodec.parse(thing);
    const agent = result.agents[0]!;
    assert.deepEqual(agent.bindings, [
      {
        kind: 'http',
        url: 'https://kettle.example.org/boil',
        method: 'POST',
        operations: ['boil'],
        extensions: {
          td: {
            response: { contentType: 'application/json' },
            additionalResponses: [{ success: false, contentType: 'application/problem+json' }],
          },
        },
      },
      {
        kind: 'http',
        url: 'https://kettle.example.org/boil/plain',
        method: 'POST',
        operations: ['boil'],
        extensions: { td: { subprotocol: 'longpoll' } },
      },
      {
        kind: 'http',
        url: 'https://kettle.example.org/boil/text',
        method: 'POST',
        operations: ['boil'],
        contentType: 'text/plain',
      },
      {
        kind: 'http',
        url: 'https://kettle.example.org/stop',
        method: 'POST',
        operations: ['stop'],
        extensions: { td: { 'coap:hint': 'not coap at all' } },
      },
    ]);
    // Only the form that could not become a binding stays with the operation; nothing is matched by position.
    assert.deepEqual(agent.operations[0]!.extensions, {
      td: { forms: { unbound: [{ href: 'legacy/boil' }] } },
    });
    assert.equal(agent.operations[1]!.extensions, undefined);

    // Written back, each form gets its own binding's members, whatever order the bindings are in. (No base URL,
    // so that the relative href stays unresolved, as it was read.)
    const reordered: Agent = { ...agent, bindings: [...agent.bindings].reverse() };
    for (const candidate of [agent, reordered]) {
      const { document, losses } = emitOne(candidate, {});
      assert.deepEqual(losses, []);
      const forms = actionsOf(document)['boil']!['forms'] as JsonObject[];
      const byHref = new Map(forms.map((form) => [form['href'], form]));
      assert.deepEqual(byHref.get('https://kettle.example.org/boil')!['response'], {
        contentType: 'application/json',
      });
      assert.deepEqual(byHref.get('https://kettle.example.org/boil')!['additionalResponses'], [
        { success: false, contentType: 'application/problem+json' },
      ]);
      assert.equal(byHref.get('https://kettle.example.org/boil/plain')!['subprotocol'], 'longpoll');
      assert.equal(byHref.get('https://kettle.example.org/boil/text')!['subprotocol'], undefined);
      assert.equal(byHref.get('https://kettle.example.org/boil/text')!['response'], undefined);
      assert.deepEqual(forms.at(-1), { href: 'legacy/boil' });
      assert.equal(
        (actionsOf(document)['stop']!['forms'] as JsonObject[])[0]!['coap:hint'],
        'not coap at all',
      );
      const back = tdCodec.parse(document).agents[0]!;
      assert.deepEqual(lostFields(candidate, back), []);
    }
  });

  test("a binding's td extensions never override what the binding itself says", () => {
    const agent: Agent = {
      id: 'clash',
      name: 'Clash',
      description: '',
      operations: [{ name: 'go' }],
      bindings: [
        {
          kind: 'http',
          url: 'https://clash.example.org/go',
          method: 'PUT',
          operations: ['go'],
          extensions: {
            td: { href: 'https://elsewhere.example.org/', response: { contentType: 'text/plain' } },
          },
        },
      ],
    };
    const { document, losses } = emitOne(agent);
    assertValidTd(document, 'clash');
    const form = (actionsOf(document)['go']!['forms'] as JsonObject[])[0]!;
    assert.equal(form['href'], 'https://clash.example.org/go');
    assert.equal(form['htv:methodName'], 'PUT');
    assert.deepEqual(form['response'], { contentType: 'text/plain' });
    // The overridden member does not come back, and the report says so.
    const back = tdCodec.parse(document).agents[0]!;
    assert.deepEqual(
      losses.map((loss) => loss.field),
      ['bindings.http'],
    );
    assert.deepEqual(lostFields(agent, back), ['bindings.http']);
  });

  test("a binding whose extensions hold another format's namespace is reported lost; its td members are written", () => {
    const agent: Agent = {
      id: 'mixed',
      name: 'Mixed',
      description: '',
      operations: [{ name: 'go' }, { name: 'stay' }],
      bindings: [
        {
          kind: 'http',
          url: 'https://mixed.example.org/go',
          method: 'POST',
          operations: ['go'],
          extensions: { td: { subprotocol: 'sse' }, awp: { note: 'from AWP' } },
        },
        {
          kind: 'other',
          protocol: 'coap',
          config: { href: 'coap://mixed.example.org/stay' },
          operations: ['stay'],
          extensions: { woa: { qos: 1 } },
        },
      ],
    };
    const { document, losses } = emitOne(agent);
    assert.deepEqual(losses.map((loss) => loss.field).sort(), ['bindings.http', 'bindings.other']);
    assert.match(losses.find((loss) => loss.field === 'bindings.http')!.message, /"awp"/);
    assert.match(losses.find((loss) => loss.field === 'bindings.other')!.message, /"woa"/);
    const back = tdCodec.parse(document).agents[0]!;
    assert.deepEqual(lostFields(agent, back).sort(), ['bindings.http', 'bindings.other']);
    assert.equal((actionsOf(document)['go']!['forms'] as JsonObject[])[0]!['subprotocol'], 'sse');
    assert.deepEqual(back.bindings[0], {
      kind: 'http',
      url: 'https://mixed.example.org/go',
      method: 'POST',
      operations: ['go'],
      extensions: { td: { subprotocol: 'sse' } },
    });

    // With only its td members the same binding comes back whole, and nothing is reported.
    const tdOnly: Agent = {
      ...agent,
      operations: [{ name: 'go' }],
      bindings: [{ ...agent.bindings[0]!, extensions: { td: { subprotocol: 'sse' } } }],
    };
    const clean = emitOne(tdOnly);
    assert.deepEqual(clean.losses, []);
    assert.deepEqual(lostFields(tdOnly, tdCodec.parse(clean.document).agents[0]), []);
  });

  test('"__proto__" keys in a TD are data: kept in extensions, written back, and an action of that name round-trips', () => {
    // JSON text, because JSON.parse is how such keys arrive: it makes "__proto__" an own property.
    const text = `{
      "@context": "${TD_CONTEXT_1_1}",
      "title": "Hostile",
      "securityDefinitions": { "nosec_sc": { "scheme": "nosec" } },
      "security": "nosec_sc",
      "__proto__": { "polluted": true },
      "actions": {
        "run": {
          "__proto__": { "alsoPolluted": true },
          "forms": [{ "href": "https://hostile.example.org/run", "__proto__": { "formPolluted": true } }]
        },
        "__proto__": {
          "title": "Proto",
          "forms": [{ "href": "https://hostile.example.org/proto" }]
        }
      }
    }`;
    const thing = JSON.parse(text) as JsonObject;
    const result = tdCodec.parse(thing);
    assert.deepEqual(errorsOf(result.issues), []);
    const agent = result.agents[0]!;
    const own = (value: unknown, key: string): unknown => {
      assert.ok(isRecord(value), 'an object');
      assert.equal(Object.getPrototypeOf(value), Object.prototype, 'the prototype is untouched');
      assert.ok(Object.hasOwn(value, key), `"${key}" is an own member`);
      return value[key];
    };

    // Thing level and action level: unknown members, kept in extensions.td.
    assert.deepEqual(own(agent.extensions?.['td'], '__proto__'), { polluted: true });
    const run = agent.operations.find((op) => op.name === 'run')!;
    assert.deepEqual(own(run.extensions?.['td'], '__proto__'), { alsoPolluted: true });
    // Form level: the binding's own.
    assert.deepEqual(own(agent.bindings[0]!.extensions?.['td'], '__proto__'), { formPolluted: true });
    // An action named "__proto__" is an operation like any other.
    assert.deepEqual(
      agent.operations.map((op) => op.name),
      ['run', '__proto__'],
    );
    assert.equal(agent.operations[1]!.title, 'Proto');
    assert.deepEqual(agent.bindings[1]!.operations, ['__proto__']);

    const { document, losses, issues } = emitOne(agent);
    assert.deepEqual(errorsOf(issues), []);
    assert.deepEqual(losses, []);
    assertValidTd(document, 'hostile');
    assert.deepEqual(own(document, '__proto__'), { polluted: true });
    const actions = document['actions'];
    assert.deepEqual(Object.keys(actions as JsonObject), ['run', '__proto__']);
    assert.deepEqual(own(own(actions, 'run'), '__proto__'), { alsoPolluted: true });
    assert.equal((own(actions, '__proto__') as JsonObject)['title'], 'Proto');
    const runForm = ((own(actions, 'run') as JsonObject)['forms'] as JsonObject[])[0];
    assert.deepEqual(own(runForm, '__proto__'), { formPolluted: true });

    // The written TD survives JSON text too, and reads back to the same agent.
    const back = tdCodec.parse(JSON.parse(JSON.stringify(document))).agents[0]!;
    assert.deepEqual(lostFields(agent, back), []);
    assert.deepEqual(
      back.operations.map((op) => op.name),
      ['run', '__proto__'],
    );
    assert.deepEqual(own(back.extensions?.['td'], '__proto__'), { polluted: true });
    assert.deepEqual(own(back.operations[0]!.extensions?.['td'], '__proto__'), { alsoPolluted: true });
    assert.deepEqual(own(back.bindings[0]!.extensions?.['td'], '__proto__'), { formPolluted: true });
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface ManifestRow {
  path: string;
  kind: string;
}
const corpusDir = sharedPath('corpora', 'wot-testing-td');
const manifest: ManifestRow[] = readFileSync(join(corpusDir, 'manifest.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const match = /^(.*),(TD|TM|other),\d+$/.exec(line);
    assert.ok(match, `manifest line: ${line}`);
    return { path: match[1]!, kind: match[2]! };
  });
const corpusDocument = (row: ManifestRow): JsonObject =>
  JSON.parse(readFileSync(join(corpusDir, row.path), 'utf8')) as JsonObject;

describe('td: the W3C WoT Plugfest corpus', () => {
  const tds = manifest.filter((row) => row.kind === 'TD');
  const tms = manifest.filter((row) => row.kind === 'TM');

  test('the manifest lists 242 TDs and 238 TMs', () => {
    assert.equal(tds.length, 242);
    assert.equal(tms.length, 238);
  });

  test('every TD is detected and reads as one agent whose operations are its actions', () => {
    for (const row of tds) {
      const document = corpusDocument(row);
      assert.ok(tdCodec.detect(document), `${row.path} detected`);
      const result = tdCodec.parse(document);
      assert.equal(result.agents.length, 1, row.path);
      const actions = isRecord(document['actions']) ? Object.keys(document['actions']) : [];
      assert.deepEqual(
        result.agents[0]!.operations.map((op) => op.name),
        actions,
        `${row.path}: each action becomes an operation`,
      );
    }
  });

  test('errors are exactly the official schema failures, reported faithfully (236 of 242 TDs pass)', () => {
    const failing: string[] = [];
    for (const row of tds) {
      const document = corpusDocument(row);
      const result = tdCodec.parse(document);
      const errors = errorsOf(result.issues);
      assert.ok(
        errors.every((issue) => issue.code.startsWith('td.schema.') && issue.spec === OFFICIAL_SCHEMA_SPEC),
        `${row.path}: ${JSON.stringify(errors)}`,
      );
      assert.equal(
        errors.length === 0,
        sharedSchemaErrors(document).length === 0,
        `${row.path}: agrees with Ajv`,
      );
      if (errors.length > 0)
        failing.push(`${row.path} ${errors.map((e) => `${e.code}@${e.pointer}`).join(' ')}`);
    }
    assert.deepEqual(failing, [
      'Older/Siemens/siemens-node-wot/dataSchemaTest-siemens.json td.schema.required@/forms/0/op td.schema.required@/forms/1/op',
      'Older/Siemens/siemens-node-wot/minItems_maxItems_oneOf.json td.schema.required@/forms/0/op',
      'Older/Siemens/siemens-node-wot/uriVariablesTest-siemens.json td.schema.required@/forms/0/op td.schema.required@/forms/1/op',
      'TinyIoT/TDs/directory.td.jsonld td.schema.required@/actions/createThing/forms/0/response/contentType td.schema.required@/actions/createAnonymousThing/forms/0/response/contentType td.schema.required@/actions/updateThing/forms/0/response/contentType td.schema.required@/actions/partiallyUpdateThing/forms/0/response/contentType td.schema.required@/actions/deleteThing/forms/0/response/contentType',
      'Zion/TDs/directory.td.jsonld td.schema.required@/actions/createThing/forms/0/response/contentType td.schema.required@/actions/createAnonymousThing/forms/0/response/contentType td.schema.required@/actions/updateThing/forms/0/response/contentType td.schema.required@/actions/partiallyUpdateThing/forms/0/response/contentType td.schema.required@/actions/deleteThing/forms/0/response/contentType',
      'siemens-logilab/TDs/directory.td.jsonld td.schema.required@/actions/createTD/forms/0/response/contentType td.schema.required@/actions/createTD/forms/1/response/contentType td.schema.required@/actions/updateTD/forms/0/response/contentType td.schema.required@/actions/updateTD/forms/1/response/contentType td.schema.required@/actions/deleteTD/forms/0/response/contentType',
    ]);
  });

  test('every valid TD converts to a valid AgentCard with an exact loss report (nothing lost but unresolved forms)', () => {
    for (const row of tds) {
      const result = tdCodec.parse(corpusDocument(row));
      if (!result.valid) continue;
      const agent = result.agents[0]!;
      const { document, losses, issues } = emitOne(agent);
      assert.deepEqual(errorsOf(issues), [], row.path);
      assert.deepEqual(validateThingDescription(document), [], `${row.path}: AgentCard is a valid TD`);
      const back = tdCodec.parse(document, { sourceUrl: baseUrl });
      assert.deepEqual(errorsOf(back.issues), [], row.path);
      const reported = [...new Set(losses.map((loss) => loss.field))].sort();
      assert.deepEqual(lostFields(agent, back.agents[0]).sort(), reported, `${row.path}: exact loss report`);
      // Only forms whose relative href could not be resolved (no base, no source URL) change: served under the
      // base URL they resolve, so they move from the operation's extensions into bindings.
      const unresolved = result.issues.some((issue) => issue.code === 'td.form.href-unresolved');
      for (const field of reported) {
        assert.ok(
          unresolved && /^operations\[.*\]\.extensions\.td$/.test(field),
          `${row.path}: lost ${field}`,
        );
      }
    }
  });

  test('every TM reads as an agent with the Thing Model warning and no TD schema issues', () => {
    for (const row of tms) {
      const result = tdCodec.parse(corpusDocument(row));
      assert.equal(result.agents.length, 1, row.path);
      assert.ok(
        result.issues.some((issue) => issue.code === 'td.thing-model' && issue.severity === 'warning'),
        `${row.path}: warned`,
      );
      assert.ok(
        !result.issues.some((issue) => issue.code.startsWith('td.schema.')),
        `${row.path}: no TD schema`,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('td: rules (vectors/td-invalid.json)', () => {
  const { cases } = readVector<{ cases: InvalidCase[] }>('td-invalid.json');
  for (const { name, document, options, expect } of cases) {
    test(name, () => {
      const result = tdCodec.parse(document, options);
      assert.deepEqual(brief(result.issues), expect);
      assert.equal(result.valid, !expect.some((issue) => issue.severity === 'error'));
      if (typeof document === 'object' && document !== null && !Array.isArray(document)) {
        assert.equal(result.agents.length, 1, 'the agent is still read');
      }
    });
  }
});

describe('td: detection', () => {
  const positive: Array<[string, unknown]> = [
    ['TD 1.1 context string', { '@context': TD_CONTEXT_1_1, title: 'x' }],
    [
      'TD 1.0 context in an array with prefixes',
      { '@context': [TD_CONTEXT_1_0, { saref: 'https://saref.etsi.org/core/' }] },
    ],
    ['both contexts', { '@context': [TD_CONTEXT_1_0, TD_CONTEXT_1_1] }],
    ['Thing Model', { '@context': [TD_CONTEXT_1_1], '@type': 'tm:ThingModel' }],
  ];
  const negative: Array<[string, unknown]> = [
    ['schema.org JSON-LD', { '@context': 'https://schema.org', '@type': 'Person' }],
    ['TD context as a key, not a value', { 'https://www.w3.org/2022/wot/td/v1.1': true }],
    ['TD context nested in an object', { '@context': [{ td: TD_CONTEXT_1_1 }] }],
    ['WoA document', { woa_version: '1.0', agents: [] }],
    ['no @context', { title: 'x', actions: {} }],
    ['not an object', [TD_CONTEXT_1_1]],
    ['null', null],
  ];
  for (const [name, document] of positive)
    test(`detects: ${name}`, () => assert.equal(tdCodec.detect(document), true));
  for (const [name, document] of negative)
    test(`rejects: ${name}`, () => assert.equal(tdCodec.detect(document), false));
});

// ---------------------------------------------------------------------------------------------------------------

describe('td: ontology and JSON-LD context shipped in the package', () => {
  const ontologyDir = join(repoRoot, 'packages', 'core', 'ontology');
  const turtle = readFileSync(join(ontologyDir, 'agentry.ttl'), 'utf8');
  const context = (
    JSON.parse(readFileSync(join(ontologyDir, 'agentry.context.jsonld'), 'utf8')) as JsonObject
  )['@context'] as JsonObject;

  /** The Turtle statements about `agentry:<term>`, from its subject line to the closing ` .`. */
  function definition(term: string): string | undefined {
    const match = new RegExp(`^agentry:${term}\\s[\\s\\S]*?\\s\\.\\s*$`, 'm').exec(turtle);
    return match?.[0];
  }

  test('the ontology declares AgentCard a subclass of td:Thing', () => {
    assert.match(turtle, /@prefix agentry: <https:\/\/w3id\.org\/agentry\/ns#> \./);
    assert.match(definition('AgentCard') ?? '', /rdfs:subClassOf td:Thing/);
    assert.match(turtle, /@prefix td: <https:\/\/www\.w3\.org\/2019\/wot\/td#> \./);
  });

  test('every agentry: term the emitter can write is defined in both files', () => {
    assert.equal(context['agentry'], AGENTRY_NS);
    assert.equal(context['@version'], 1.1);
    for (const term of EMITTED_AGENTRY_TERMS) {
      const block = definition(term);
      assert.ok(block, `agentry:${term} is defined in agentry.ttl`);
      assert.match(block, /\ba (rdf:Property|rdfs:Class)/, `agentry:${term} is a property or class`);
      assert.match(block, /rdfs:label "/, `agentry:${term} has a label`);
      assert.match(block, /rdfs:comment "/, `agentry:${term} has a comment`);
      const entry = context[`agentry:${term}`];
      assert.ok(isRecord(entry) && entry['@id'] === `agentry:${term}`, `agentry:${term} is in the context`);
    }
  });

  test('the list of emittable terms is complete: every agentry: name in emitted AgentCards is in it', () => {
    const seen = new Set<string>();
    const collect = (value: JsonValue): void => {
      if (typeof value === 'string' && value.startsWith('agentry:')) seen.add(value.slice(8));
      else if (Array.isArray(value)) value.forEach(collect);
      else if (isRecord(value)) {
        for (const [key, member] of Object.entries(value)) {
          if (key.startsWith('agentry:')) seen.add(key.slice(8));
          collect(member);
        }
      }
    };
    const everything: Agent = {
      id: 'everything',
      name: 'Everything',
      description: '',
      auth: {
        schemes: [
          { id: 'a', type: 'openIdConnect', openIdConnectUrl: 'https://id.example.org' },
          { id: 'b', type: 'mtls' },
          { id: 'c', type: 'other', scheme: 'custom' },
        ],
        security: [{ a: [], b: [] }],
      },
      operations: [
        {
          name: 'all',
          deterministic: true,
          outputVariability: 'low',
          latency: 'low',
          requiresContext: false,
          memoryEnabled: false,
          confidenceEstimation: true,
          sensitivity: 'standard',
          requiresConfirmation: false,
          reversible: true,
          authRequired: false,
          rateLimit: '1/second',
          idempotency: { supported: true, header: 'Idempotency-Key' },
          dependsOn: ['other'],
          pollEndpoint: 'https://x.example.org/poll',
          streaming: false,
          tags: ['t'],
          examples: [{ text: 'do it' }],
          inputModes: ['text/plain'],
          outputModes: ['text/plain'],
          preconditions: ['urn:p'],
          sideEffects: {},
          costEstimate: {},
          policiesRequired: ['urn:policy'],
          reasoningMode: 'none',
          assurance: 'L1',
          versionStatus: 'active',
        },
      ],
      bindings: [],
    };
    for (const agent of [everything, ...fixtures.cases.map((c) => c.agent)]) collect(emitOne(agent).document);
    for (const term of seen) assert.ok(EMITTED_AGENTRY_TERMS.includes(term), `agentry:${term} is listed`);
    assert.equal(seen.size, EMITTED_AGENTRY_TERMS.length, 'every listed term is really written');
    // Everything written reads back.
    const back = tdCodec.parse(emitOne(everything).document).agents[0]!;
    assert.deepEqual(lostFields(everything, back), []);
  });
});

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
