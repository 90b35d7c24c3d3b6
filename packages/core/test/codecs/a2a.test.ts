/**
 * The A2A AgentCard codec: the specification's sample card in its v1.0 and v0.3 shapes, the five pre-0.3 sample
 * cards, one invalid card per rule, detection, and the card it writes (readable by v0.3 and v1.0 clients alike).
 */
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { describe, test } from 'node:test';
import { a2aCodec } from '../../src/codecs/a2a/index.js';
import { slugify } from '../../src/codecs/urls.js';
import type { Agent, Binding, JsonObject, JsonValue, Operation, ParseOptions } from '../../src/index.js';
import { lostFields } from '../../src/index.js';
import { errorsOf, issueSummary, listFiles, readSharedJson, readVector, sharedPath } from '../helpers.js';

interface InvalidCase {
  name: string;
  document: unknown;
  options?: ParseOptions;
  expect: Array<{ code: string; pointer: string; severity: string }>;
}

interface RequiredFields {
  'v0.3': {
    card: string[];
    provider: string[];
    skill: string[];
    interface: string[];
    securitySchemeByType: Record<string, string[]>;
  };
  'v1.0': {
    card: string[];
    provider: string[];
    skill: string[];
    interface: string[];
    securitySchemeByMember: Record<string, string[]>;
  };
}

const corpus = (name: string): JsonObject => readSharedJson('corpora', 'a2a', name) as JsonObject;
const v1Sample = corpus('a2a-spec-sample-agent-card-v1.0.json');
const v03Sample = corpus('a2a-spec-sample-agent-card-v0.3.json');
/** File names of the sample cards from before v0.3 (everything in corpora/a2a but the specification's sample). */
const preV03Samples = listFiles(sharedPath('corpora', 'a2a'), '.json')
  .map((path) => basename(path))
  .filter((name) => !name.startsWith('a2a-spec-'));
const required = readVector<RequiredFields>('a2a-required-fields.json');
const fixtures = readVector<{ baseUrl: string; cases: Array<{ name: string; agent: Agent }> }>(
  'round-trip-agents.json',
);
const baseUrl = fixtures.baseUrl;

const objects = (value: JsonValue | undefined): JsonObject[] =>
  Array.isArray(value) ? (value as JsonObject[]) : [];

function parseOne(document: unknown, options: ParseOptions = {}): Agent {
  const result = a2aCodec.parse(document, options);
  assert.deepEqual(errorsOf(result.issues), [], JSON.stringify(result.issues));
  assert.equal(result.agents.length, 1);
  return result.agents[0]!;
}

/** What the card's skills must read as. */
function operationsOf(card: JsonObject): Operation[] {
  return objects(card['skills']).map((skill) => {
    const operation: Operation = {
      name: skill['id'] as string,
      title: skill['name'] as string,
      description: skill['description'] as string,
      tags: skill['tags'] as string[],
    };
    if (skill['examples'] !== undefined) {
      operation.examples = (skill['examples'] as string[]).map((text) => ({ text }));
    }
    if (skill['inputModes'] !== undefined) operation.inputModes = skill['inputModes'] as string[];
    if (skill['outputModes'] !== undefined) operation.outputModes = skill['outputModes'] as string[];
    return operation;
  });
}

function agent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'menu-planner',
    name: 'Menu Planner',
    description: 'Plans weekly menus.',
    operations: [{ name: 'plan', description: 'Plan a week of dinners.', tags: ['food'] }],
    bindings: [
      {
        kind: 'a2a',
        url: 'https://menus.example.org/a2a',
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      },
    ],
    ...overrides,
  };
}

/** Emits, reads back, and checks the loss report names exactly what did not survive. */
function roundTrip(source: Agent, options: { baseUrl?: string } = {}) {
  const emitted = a2aCodec.emit([source], options);
  assert.deepEqual(errorsOf(emitted.issues), []);
  const back = parseOne(emitted.document);
  const reported = [...new Set(emitted.losses.map((loss) => loss.field))].sort();
  assert.deepEqual(reported, lostFields(source, back).sort(), 'the loss report is exact');
  return { card: emitted.document as JsonObject, back, losses: reported };
}

describe('A2A: the specification sample card', () => {
  const [schemeId] = Object.keys(v1Sample['securitySchemes'] as JsonObject);
  const scheme = (v1Sample['securitySchemes'] as JsonObject)[schemeId!] as JsonObject;
  const requirement = objects(v1Sample['securityRequirements'])[0]!['schemes'] as JsonObject;

  test('v1.0 shape: no issues, and every field lands in the canonical agent', () => {
    const result = a2aCodec.parse(v1Sample);
    assert.deepEqual(result.issues, []);
    const [read] = result.agents;
    const provider = v1Sample['provider'] as JsonObject;
    const capabilities = v1Sample['capabilities'] as JsonObject;
    const interfaces = objects(v1Sample['supportedInterfaces']);
    assert.equal(read?.id, slugify(v1Sample['name'] as string));
    assert.equal(read?.name, v1Sample['name']);
    assert.equal(read?.description, v1Sample['description']);
    assert.equal(read?.version, v1Sample['version']);
    assert.deepEqual(read?.publisher, { name: provider['organization'], url: provider['url'] });
    assert.equal(read?.iconUrl, v1Sample['iconUrl']);
    assert.equal(read?.documentationUrl, v1Sample['documentationUrl']);
    assert.equal(read?.url, interfaces[0]!['url']);
    assert.deepEqual(
      read?.bindings,
      interfaces.map((entry) => ({ kind: 'a2a', ...entry })),
    );
    assert.deepEqual(read?.surface, {
      flags: {
        streaming: capabilities['streaming'],
        pushNotifications: capabilities['pushNotifications'],
        extendedCard: capabilities['extendedAgentCard'],
      },
    });
    assert.deepEqual(read?.inputModes, v1Sample['defaultInputModes']);
    assert.deepEqual(read?.outputModes, v1Sample['defaultOutputModes']);
    assert.deepEqual(read?.auth, {
      schemes: [
        {
          id: schemeId,
          type: 'openIdConnect',
          openIdConnectUrl: (scheme['openIdConnectSecurityScheme'] as JsonObject)['openIdConnectUrl'],
        },
      ],
      security: [{ [schemeId!]: (requirement[schemeId!] as JsonObject)['list'] as string[] }],
    });
    assert.deepEqual(read?.operations, operationsOf(v1Sample));
    assert.deepEqual(read?.extensions, { a2a: { signatures: v1Sample['signatures']! } });
    assert.match(read?.provenance?.signature?.detail ?? '', /1 JWS signature/);
  });

  test('v0.3 shape: no issues; the main url and additional interfaces become deduplicated bindings', () => {
    const result = a2aCodec.parse(v03Sample);
    assert.deepEqual(result.issues, []);
    const read = result.agents[0]!;
    const version = v03Sample['protocolVersion'] as string;
    const additional = objects(v03Sample['additionalInterfaces']).map((entry) => ({
      kind: 'a2a',
      url: entry['url'],
      protocolBinding: entry['transport'],
      protocolVersion: version,
    }));
    const primary = {
      kind: 'a2a',
      url: v03Sample['url'],
      protocolBinding: v03Sample['preferredTransport'],
      protocolVersion: version,
    };
    assert.deepEqual(read.bindings, [primary, ...additional.filter((b) => b.url !== primary.url)]);
    assert.equal(read.url, v03Sample['url']);
    assert.deepEqual(read.auth?.security, v03Sample['security']);
    assert.equal(read.surface?.flags?.extendedCard, v03Sample['supportsAuthenticatedExtendedCard']);
    assert.equal(
      read.surface?.flags?.stateTransitionHistory,
      (v03Sample['capabilities'] as JsonObject)['stateTransitionHistory'],
    );
    assert.deepEqual(read.operations, operationsOf(v03Sample));
  });

  test('both shapes read as the same agent, apart from what the versions themselves differ in', () => {
    const normalise = (read: Agent): Agent => {
      const { provenance: _provenance, ...rest } = structuredClone(read);
      rest.bindings = rest.bindings.map((binding) => {
        const { protocolVersion: _version, ...unversioned } = binding as Binding & {
          protocolVersion?: string;
        };
        return unversioned as Binding;
      });
      delete rest.surface?.flags?.stateTransitionHistory;
      return rest;
    };
    assert.deepEqual(normalise(parseOne(v03Sample)), normalise(parseOne(v1Sample)));
  });
});

describe('A2A: the pre-0.3 sample cards (corpora/a2a)', () => {
  test('there are five of them', () => {
    assert.equal(preV03Samples.length, 5);
  });
  for (const name of preV03Samples) {
    test(`${name} parses with no errors and maps as expected`, () => {
      const card = corpus(name);
      const result = a2aCodec.parse(card);
      assert.deepEqual(issueSummary(result.issues), [
        { code: 'a2a.missing-field', pointer: '/protocolVersion', severity: 'warning' },
      ]);
      assert.equal(result.valid, true);
      const read = result.agents[0]!;
      assert.equal(read.id, slugify(card['name'] as string));
      assert.equal(read.version, card['version']);
      assert.equal(read.url, card['url']);
      assert.deepEqual(read.bindings, [{ kind: 'a2a', url: card['url'], protocolBinding: 'JSONRPC' }]);
      assert.deepEqual(read.surface?.flags, card['capabilities']);
      assert.deepEqual(read.inputModes, card['defaultInputModes']);
      assert.deepEqual(read.outputModes, card['defaultOutputModes']);
      assert.deepEqual(read.operations, operationsOf(card));
      assert.equal(read.extensions, undefined);
      assert.equal(read.provenance?.sourceFormat, 'a2a');
    });
  }
});

describe('A2A: invalid cards (vectors/a2a-invalid.json)', () => {
  const { cases } = readVector<{ cases: InvalidCase[] }>('a2a-invalid.json');
  for (const item of cases) {
    test(item.name, () => {
      const result = a2aCodec.parse(item.document, item.options ?? {});
      assert.deepEqual(issueSummary(result.issues), item.expect);
      assert.equal(result.valid, !item.expect.some((issue) => issue.severity === 'error'));
      for (const issue of result.issues) {
        assert.ok(issue.spec?.startsWith('A2A '), `${issue.code} names its section`);
        assert.ok(issue.message.length > 20);
      }
    });
  }

  test('errors do not stop the reading: the valid skills are still returned', () => {
    const card = structuredClone(v1Sample);
    (card['skills'] as JsonValue[]).unshift({ name: 'No id' });
    const result = a2aCodec.parse(card);
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.agents[0]?.operations.map((op) => op.name),
      objects(v1Sample['skills']).map((skill) => skill['id']),
    );
  });

  test('a relative interface URL is resolved against the card URL, with a warning', () => {
    const card: JsonObject = { ...structuredClone(v03Sample), url: '/a2a/v1' };
    delete card['additionalInterfaces'];
    const result = a2aCodec.parse(card, { sourceUrl: 'https://geo.example.net/.well-known/agent-card.json' });
    assert.deepEqual(issueSummary(result.issues), [
      { code: 'a2a.url.relative', pointer: '/url', severity: 'warning' },
    ]);
    assert.equal(result.agents[0]?.url, 'https://geo.example.net/a2a/v1');
    assert.deepEqual(
      result.agents[0]?.bindings.map((b) => (b.kind === 'a2a' ? b.url : '')),
      ['https://geo.example.net/a2a/v1'],
    );
  });

  test('never throws, whatever it is given', () => {
    const inputs: unknown[] = [
      null,
      1,
      'card',
      [],
      { skills: 'none' },
      { skills: [null, 1, 'x', { id: 3 }], url: 5 },
      { skills: [], supportedInterfaces: [null, { url: {} }], capabilities: [] },
      { skills: [], url: 'https://x.example', securitySchemes: [], security: {}, provider: 'p' },
      {
        skills: [],
        url: 'https://x.example',
        securitySchemes: { a: null, b: { type: 'oauth2', flows: [] } },
      },
      {
        skills: [],
        supportedInterfaces: {},
        securityRequirements: [{ schemes: { a: 'x' } }],
        signatures: {},
      },
    ];
    for (const input of inputs) {
      const result = a2aCodec.parse(input);
      assert.ok(!result.issues.some((issue) => issue.code === 'a2a.internal'), JSON.stringify(result.issues));
    }
  });
});

describe('A2A: detection', () => {
  test('recognises cards of every version', () => {
    for (const card of [v1Sample, v03Sample, ...preV03Samples.map(corpus)]) {
      assert.equal(a2aCodec.detect(card), true);
    }
    assert.equal(a2aCodec.detect({ skills: [], capabilities: {} }), true);
    assert.equal(a2aCodec.detect({ skills: [], defaultInputModes: [] }), true);
  });

  test('leaves alone what is not a card', () => {
    const others: unknown[] = [
      null,
      [],
      'skills',
      { skills: [] },
      { skills: {}, url: 'https://x.example' },
      { '@context': 'https://example.org/agent-context.jsonld', skills: [], url: 'agent://x.example/' },
      { capabilities: [{ name: 'gen-iti' }], skills: [], url: 'agent://x.example/' },
      { awp_version: '0.2', domain: 'x.example', intent: 'x', actions: [], skills: [] },
    ];
    for (const other of others) assert.equal(a2aCodec.detect(other), false, JSON.stringify(other));
  });
});

describe('A2A: the card it writes', () => {
  const v03 = required['v0.3'];
  const v1 = required['v1.0'];
  const missing = (object: JsonObject, fields: readonly string[]) =>
    fields.filter((f) => !Object.hasOwn(object, f));

  function assertBothVersionsRequiredFields(card: JsonObject, label: string): void {
    assert.deepEqual(missing(card, v03.card), [], `${label}: v0.3 card fields`);
    assert.deepEqual(missing(card, v1.card), [], `${label}: v1.0 card fields`);
    for (const entry of objects(card['supportedInterfaces'])) {
      assert.deepEqual(missing(entry, v1.interface), [], `${label}: v1.0 interface fields`);
    }
    for (const entry of objects(card['additionalInterfaces'])) {
      assert.deepEqual(missing(entry, v03.interface), [], `${label}: v0.3 interface fields`);
    }
    for (const skill of objects(card['skills'])) {
      assert.deepEqual(missing(skill, [...v03.skill, ...v1.skill]), [], `${label}: skill fields`);
    }
    if (card['provider'] !== undefined) {
      const provider = card['provider'] as JsonObject;
      assert.deepEqual(missing(provider, [...v03.provider, ...v1.provider]), [], `${label}: provider fields`);
    }
    for (const [id, value] of Object.entries((card['securitySchemes'] ?? {}) as JsonObject)) {
      const entry = value as JsonObject;
      const type = entry['type'] as string;
      assert.ok(v03.securitySchemeByType[type], `${label}: scheme ${id} has a v0.3 type`);
      assert.deepEqual(missing(entry, v03.securitySchemeByType[type]!), [], `${label}: v0.3 scheme ${id}`);
      const members = Object.keys(v1.securitySchemeByMember).filter((member) => Object.hasOwn(entry, member));
      assert.equal(members.length, 1, `${label}: scheme ${id} has one v1.0 member`);
      const member = entry[members[0]!] as JsonObject;
      assert.deepEqual(
        missing(member, v1.securitySchemeByMember[members[0]!]!),
        [],
        `${label}: v1.0 scheme ${id}`,
      );
    }
  }

  const sources: Array<[string, Agent]> = [
    ...fixtures.cases.map(({ name, agent: fixture }): [string, Agent] => [name, fixture]),
    ['the v1.0 sample', parseOne(v1Sample)],
    ['the v0.3 sample', parseOne(v03Sample)],
  ];
  for (const [label, source] of sources) {
    test(`${label}: every field v0.3 and v1.0 require is present`, () => {
      const emitted = a2aCodec.emit([source], { baseUrl });
      assert.deepEqual(errorsOf(emitted.issues), []);
      const card = emitted.document as JsonObject;
      assertBothVersionsRequiredFields(card, label);
      const [primary] = objects(card['supportedInterfaces']);
      assert.equal(card['protocolVersion'], '0.3.0');
      assert.equal(card['url'], primary?.['url']);
      assert.equal(card['preferredTransport'], primary?.['protocolBinding']);
      assert.deepEqual(card['security'] !== undefined, card['securityRequirements'] !== undefined);
    });
  }

  test('a v0.3-only reader and a v1.0-only reader find the same agent in it', () => {
    const source = parseOne(v1Sample);
    source.auth = {
      schemes: [
        { id: 'key', type: 'apiKey', in: 'header', name: 'X-Geo-Key', description: 'Issued on request.' },
        { id: 'jwt', type: 'bearer', bearerFormat: 'JWT' },
        {
          id: 'corp',
          type: 'oauth2',
          authorizationUrl: 'https://id.example.net/authorize',
          tokenUrl: 'https://id.example.net/token',
          scopes: { 'routes:read': 'Read routes' },
        },
        { id: 'tls', type: 'mtls' },
      ],
      security: [{ key: [] }, { corp: ['routes:read'] }],
    };
    source.operations[0]!.security = [{ jwt: [] }];
    const card = a2aCodec.emit([source], {}).document as JsonObject;

    const v03Only = structuredClone(card);
    for (const key of ['supportedInterfaces', 'securityRequirements']) delete v03Only[key];
    delete (v03Only['capabilities'] as JsonObject)['extendedAgentCard'];
    for (const entry of Object.values(v03Only['securitySchemes'] as JsonObject) as JsonObject[]) {
      for (const member of Object.keys(v1.securitySchemeByMember)) delete entry[member];
    }
    for (const skill of objects(v03Only['skills'])) delete skill['securityRequirements'];

    const v1Only = structuredClone(card);
    for (const key of ['protocolVersion', 'url', 'preferredTransport', 'additionalInterfaces', 'security']) {
      delete v1Only[key];
    }
    delete v1Only['supportsAuthenticatedExtendedCard'];
    for (const entry of Object.values(v1Only['securitySchemes'] as JsonObject) as JsonObject[]) {
      for (const field of [
        'type',
        'in',
        'name',
        'scheme',
        'bearerFormat',
        'flows',
        'openIdConnectUrl',
        'description',
      ]) {
        delete entry[field];
      }
    }
    for (const skill of objects(v1Only['skills'])) delete skill['security'];

    const fromV03 = parseOne(v03Only);
    const fromV1 = parseOne(v1Only);
    const { provenance: _a, bindings: v03Bindings, ...v03Rest } = fromV03;
    const { provenance: _b, bindings: v1Bindings, ...v1Rest } = fromV1;
    assert.deepEqual(v03Rest, v1Rest);
    assert.deepEqual(
      v03Bindings.map((b) => (b.kind === 'a2a' ? [b.url, b.protocolBinding] : [])),
      v1Bindings.map((b) => (b.kind === 'a2a' ? [b.url, b.protocolBinding] : [])),
    );
    assert.deepEqual(v1Rest.auth, source.auth);
    assert.deepEqual(v1Rest.operations[0]?.security, [{ jwt: [] }]);
  });

  test('without an a2a binding, the card url is the agent url, else the base URL, else an error', () => {
    const plain = agent({ bindings: [], url: 'https://menus.example.org/agent' });
    assert.equal((a2aCodec.emit([plain]).document as JsonObject)['url'], 'https://menus.example.org/agent');

    const addressed = agent({ bindings: [], url: 'agent://menus.example.org/planner' });
    const viaBase = a2aCodec.emit([addressed], { baseUrl: 'https://host.example.org/' });
    assert.equal((viaBase.document as JsonObject)['url'], 'https://host.example.org/agents/menu-planner/a2a');
    assert.ok(viaBase.losses.some((loss) => loss.field === 'url'));

    const nowhere = a2aCodec.emit([agent({ bindings: [] })]);
    assert.deepEqual(issueSummary(nowhere.issues), [
      { code: 'a2a.emit.no-url', pointer: '/url', severity: 'error' },
    ]);
  });

  test('the id is reported lost only when the name does not slug to it', () => {
    assert.ok(!a2aCodec.emit([agent()]).losses.some((loss) => loss.field === 'id'));
    const renamed = a2aCodec.emit([agent({ id: 'planner-7' })]);
    assert.ok(renamed.losses.some((loss) => loss.field === 'id'));
  });

  test('input and output schemas are declared not carried', () => {
    const [summarizer] = fixtures.cases;
    const { losses } = roundTrip(summarizer!.agent, { baseUrl });
    assert.ok(losses.includes('operations[default].input'));
    assert.ok(losses.includes('operations[default].output'));
  });

  test('signatures are not re-emitted (they would not verify), and the report says so', () => {
    const { card, losses } = roundTrip(parseOne(v1Sample));
    assert.equal(card['signatures'], undefined);
    assert.deepEqual(losses, ['extensions.a2a']);
  });

  test('unknown card, capability and provider fields are written back', () => {
    const card: JsonObject & { capabilities: JsonObject & { extensions: JsonValue } } = {
      ...structuredClone(v03Sample),
      'x-region': 'eu',
      capabilities: {
        streaming: true,
        extensions: [{ uri: 'https://ext.example.org/geo/v1', required: false }],
      },
      provider: { organization: 'Geo Org', url: 'https://geo.example.org', country: 'NZ' },
    };
    delete card['signatures'];
    const read = parseOne(card);
    assert.deepEqual(read.extensions?.['a2a'], {
      'x-region': 'eu',
      capabilities: { extensions: card.capabilities.extensions },
      provider: { country: 'NZ' },
    });
    const { card: written, losses } = roundTrip(read);
    assert.deepEqual(losses, []);
    assert.equal(written['x-region'], 'eu');
    assert.deepEqual((written['capabilities'] as JsonObject)['extensions'], card.capabilities.extensions);
    assert.equal((written['provider'] as JsonObject)['country'], 'NZ');
  });

  test('OAuth flows beyond one simple flow, and HTTP schemes without a canonical type, survive a2a → a2a', () => {
    const card = structuredClone(v03Sample);
    delete card['signatures'];
    card['securitySchemes'] = {
      corp: {
        type: 'oauth2',
        oauth2MetadataUrl: 'https://id.example.org/.well-known/oauth-authorization-server',
        flows: {
          clientCredentials: { tokenUrl: 'https://id.example.org/token', scopes: { read: 'Read' } },
          authorizationCode: {
            authorizationUrl: 'https://id.example.org/authorize',
            tokenUrl: 'https://id.example.org/token',
            scopes: {},
          },
        },
      },
      digest: { type: 'http', scheme: 'Digest' },
    };
    card['security'] = [{ corp: ['read'] }, { digest: [] }];
    const read = parseOne(card);
    const corp = (card['securitySchemes'] as JsonObject)['corp'] as JsonObject;
    assert.deepEqual(read.auth?.schemes?.[0], {
      id: 'corp',
      type: 'oauth2',
      authorizationUrl: 'https://id.example.org/authorize',
      tokenUrl: 'https://id.example.org/token',
      extensions: {
        a2a: { flows: corp['flows']!, oauth2MetadataUrl: corp['oauth2MetadataUrl']! },
      },
    });
    assert.deepEqual(read.auth?.schemes?.[1], {
      id: 'digest',
      type: 'other',
      scheme: 'Digest',
      extensions: { a2a: { type: 'http' } },
    });
    assert.deepEqual(roundTrip(read).losses, []);
  });

  test('the loss report is exact for what A2A cannot say', () => {
    const cases: Array<[Partial<Agent>, string[]]> = [
      [{ auth: { schemes: [{ id: 'open', type: 'none' }] } }, ['auth.schemes']],
      [{ auth: { schemes: [{ id: 'key', type: 'apiKey' }] } }, ['auth.schemes']],
      [
        {
          auth: {
            schemes: [
              { id: 'sso', type: 'oauth2', tokenUrl: 'https://id.example.org/token', scopes: { a: 'A' } },
              {
                id: 'oidc',
                type: 'openIdConnect',
                openIdConnectUrl: 'https://id.example.org/.well-known/openid',
              },
            ],
          },
        },
        [],
      ],
      [{ publisher: { name: 'Menus Inc.' } }, ['publisher']],
      [{ publisher: { name: 'Menus Inc.', url: 'https://menus.example.org' } }, []],
      [{ surface: { flags: { streaming: true, pagination: 'cursor' } } }, ['surface.flags']],
      [{ surface: { flags: { streaming: true, extendedCard: false, stateTransitionHistory: true } } }, []],
      [{ inputModes: [] }, ['inputModes']],
      [{ version: '' }, ['version']],
      [
        {
          bindings: [
            {
              kind: 'a2a',
              url: 'https://menus.example.org/a2a',
              protocolBinding: 'GRPC',
              operations: ['plan'],
            },
          ],
        },
        ['bindings.a2a'],
      ],
      [
        { bindings: [{ kind: 'a2a', url: 'https://menus.example.org/a2a', protocolBinding: 'JSONRPC' }] },
        ['bindings.a2a'],
      ],
      [
        {
          bindings: [
            { kind: 'a2a', url: 'https://a.example.org', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
            {
              kind: 'a2a',
              url: 'https://a.example.org/g',
              protocolBinding: 'GRPC',
              protocolVersion: '1.0',
              tenant: 't1',
            },
            { kind: 'http', url: 'https://a.example.org/plan', method: 'POST' },
          ],
        },
        ['bindings.http'],
      ],
      [
        {
          operations: [
            {
              name: 'plan',
              title: 'plan',
              description: '',
              tags: [],
              examples: [{ text: 'Plan my week' }, { input: { days: 7 } }],
            },
          ],
        },
        [
          'operations[plan].title',
          'operations[plan].description',
          'operations[plan].tags',
          'operations[plan].examples',
        ],
      ],
      [
        {
          operations: [{ name: 'plan', examples: [{ text: 'Plan my week' }], inputModes: [], security: [] }],
        },
        [],
      ],
    ];
    for (const [overrides, expected] of cases) {
      const { losses } = roundTrip(agent(overrides));
      assert.deepEqual(losses, [...expected].sort(), JSON.stringify(overrides));
    }
  });

  test('a field named "__proto__" is data: kept in extensions.a2a on the card, a skill and an interface', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key.
    const card = JSON.parse(`{
      "name": "Menu Planner", "description": "Plans weekly menus.", "version": "1.0.0",
      "supportedInterfaces": [
        { "url": "https://menus.example.org/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0",
          "__proto__": { "interface": true } }
      ],
      "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
      "skills": [
        { "id": "plan", "name": "Plan", "description": "Plan a week.", "tags": [], "__proto__": { "skill": true } }
      ],
      "__proto__": { "card": true }
    }`) as JsonObject;
    const read = parseOne(card);
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    assert.equal(Object.getPrototypeOf(read.extensions?.['a2a']), Object.prototype);
    assert.deepEqual(own(read.extensions?.['a2a']), { card: true });
    assert.deepEqual(own(read.operations[0]?.extensions?.['a2a']), { skill: true });
    assert.deepEqual(own(read.bindings[0]?.extensions?.['a2a']), { interface: true });
    const { card: written, back, losses } = roundTrip(read);
    assert.deepEqual(losses, []);
    assert.equal(Object.getPrototypeOf(written), Object.prototype);
    assert.deepEqual(own(written), { card: true });
    assert.deepEqual(own(objects(written['skills'])[0]), { skill: true });
    assert.deepEqual(own(objects(written['supportedInterfaces'])[0]), { interface: true });
    const { provenance: _p1, ...before } = read;
    const { provenance: _p2, ...after } = back;
    assert.deepEqual(after, before);
  });
});

describe('A2A: fields of an interface that A2A does not define', () => {
  test("v1.0: kept in the binding's extensions.a2a, without a warning, and written back", () => {
    const card = structuredClone(v1Sample);
    // Signatures are not re-emitted (they would not verify over the rewritten card).
    delete card['signatures'];
    const [first] = objects(card['supportedInterfaces']);
    first!['x-region'] = 'eu-west';
    first!['limits'] = { rps: 10 };
    const result = a2aCodec.parse(card);
    assert.deepEqual(result.issues, []);
    const read = result.agents[0]!;
    assert.deepEqual(read.bindings[0]?.extensions, { a2a: { 'x-region': 'eu-west', limits: { rps: 10 } } });
    const { card: written, back, losses } = roundTrip(read);
    assert.deepEqual(losses, []);
    assert.deepEqual(objects(written['supportedInterfaces'])[0], first);
    assert.deepEqual(back.bindings, read.bindings);
  });

  test('v0.3: kept for additional interfaces, and for the main url when it is listed with fields of its own', () => {
    const card = structuredClone(v03Sample);
    delete card['signatures'];
    const url = card['url'] as string;
    const transport = card['preferredTransport'] as string;
    card['additionalInterfaces'] = [
      { url, transport, 'x-region': 'eu-west' },
      { url: 'https://georoute-agent.example.com/grpc', transport: 'GRPC', weight: 2 },
    ];
    const result = a2aCodec.parse(card);
    assert.deepEqual(result.issues, []);
    const version = card['protocolVersion'] as string;
    assert.deepEqual(result.agents[0]?.bindings, [
      {
        kind: 'a2a',
        url,
        protocolBinding: transport,
        protocolVersion: version,
        extensions: { a2a: { 'x-region': 'eu-west' } },
      },
      {
        kind: 'a2a',
        url: 'https://georoute-agent.example.com/grpc',
        protocolBinding: 'GRPC',
        protocolVersion: version,
        extensions: { a2a: { weight: 2 } },
      },
    ]);
    const { card: written, back, losses } = roundTrip(result.agents[0]!);
    assert.deepEqual(losses, []);
    assert.deepEqual(back.bindings, result.agents[0]?.bindings);
    // v0.3 clients find the fields in additionalInterfaces too.
    assert.deepEqual(objects(written['additionalInterfaces']), card['additionalInterfaces']);
  });

  test('extensions an interface cannot carry make the binding lost, and the report says so', () => {
    const binding = {
      kind: 'a2a' as const,
      url: 'https://menus.example.org/a2a',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    };
    const cases: Array<[Binding, string[]]> = [
      [{ ...binding, extensions: { a2a: { 'x-region': 'eu' } } }, []],
      [{ ...binding, extensions: { mcp: { headers: [] } } }, ['bindings.a2a']],
      [{ ...binding, extensions: { a2a: { 'x-region': 'eu' }, woa: { timeout_ms: 5 } } }, ['bindings.a2a']],
      [{ ...binding, extensions: { a2a: { tenant: 'spoofed', transport: 'GRPC' } } }, ['bindings.a2a']],
      // Not a v1.0 interface field: readers of the v1.0 list get it back.
      [{ ...binding, extensions: { a2a: { transport: 'GRPC' } } }, []],
      [{ ...binding, extensions: { a2a: {} } }, ['bindings.a2a']],
    ];
    for (const [source, expected] of cases) {
      const { losses, card } = roundTrip(agent({ bindings: [source] }));
      assert.deepEqual(losses, expected, JSON.stringify(source));
      const [entry] = objects(card['supportedInterfaces']);
      assert.equal(entry?.['tenant'], undefined, 'an extension never overrides an interface field');
    }
    // With several interfaces, the v0.3 list is written too, where "transport" is the interface's own field.
    const other = { ...binding, url: 'https://menus.example.org/grpc', protocolBinding: 'GRPC' };
    const { card, losses } = roundTrip(
      agent({
        bindings: [{ ...binding, extensions: { a2a: { transport: 'HTTP+JSON', weight: 1 } } }, other],
      }),
    );
    assert.deepEqual(losses, []);
    assert.deepEqual(objects(card['additionalInterfaces'])[0], {
      weight: 1,
      url: binding.url,
      transport: binding.protocolBinding,
    });
  });
});
