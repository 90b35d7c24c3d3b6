/**
 * The agents.json map codec (agent:// §5.1): the draft's example map, one problem map per rule, detection, and the
 * map it writes (descriptor URLs where Agentry hosts serve them).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agentsJsonCodec } from '../../src/codecs/agents-json/index.js';
import type { Agent, JsonObject, ParseOptions } from '../../src/index.js';
import { lostFields } from '../../src/index.js';
import { errorsOf, extractJsonAfter, issueSummary, readSharedText, readVector } from '../helpers.js';

interface InvalidCase {
  name: string;
  document: unknown;
  options?: ParseOptions;
  expect: Array<{ code: string; pointer: string; severity: string }>;
}

const draft = readSharedText('specs', '001_0c1058934a778260.txt');
const example = JSON.parse(
  extractJsonAfter(draft, '*Example*:', draft.indexOf('5.1.  Ecosystem Registries')),
) as JsonObject;

function agent(id: string, overrides: Partial<Agent> = {}): Agent {
  return { id, name: id, description: '', operations: [], bindings: [], ...overrides };
}

describe('agents.json: the §5.1 example map', () => {
  test('parses with no issues into one stub agent per entry', () => {
    assert.equal(agentsJsonCodec.detect(example), true);
    const sourceUrl = 'https://example.com/.well-known/agents.json';
    const result = agentsJsonCodec.parse(example, { sourceUrl });
    assert.deepEqual(result.issues, []);
    assert.deepEqual(
      result.agents,
      Object.entries(example['agents'] as JsonObject).map(([name, url]) => ({
        id: name,
        name,
        description: '',
        operations: [],
        bindings: [],
        provenance: { sourceFormat: 'agents-json', origin: 'native', sourceUrl },
        url,
      })),
    );
  });
});

describe('agents.json: problem maps (vectors/agents-json-invalid.json)', () => {
  const { cases } = readVector<{ cases: InvalidCase[] }>('agents-json-invalid.json');
  for (const item of cases) {
    test(item.name, () => {
      const result = agentsJsonCodec.parse(item.document, item.options ?? {});
      assert.deepEqual(issueSummary(result.issues), item.expect);
      assert.equal(result.valid, !item.expect.some((issue) => issue.severity === 'error'));
      for (const issue of result.issues) {
        assert.ok(issue.spec?.startsWith('agent:// §5.1'), `${issue.code} names its section`);
        assert.ok(issue.message.length > 20);
      }
    });
  }

  test('relative entries resolve against the map URL; bad entries do not stop the others', () => {
    const result = agentsJsonCodec.parse(
      {
        agents: {
          weather: 'weather/agent.json',
          broken: 7,
          tides: 'https://sea.example.org/tides/agent.json',
        },
      },
      { sourceUrl: 'https://hub.example.org/.well-known/agents.json' },
    );
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.agents.map((a) => [a.id, a.url]),
      [
        ['weather', 'https://hub.example.org/.well-known/weather/agent.json'],
        ['tides', 'https://sea.example.org/tides/agent.json'],
      ],
    );
  });

  test('object entries and fields beside "agents" are kept in the extension, not dropped', () => {
    const result = agentsJsonCodec.parse({
      agents: { weather: { url: 'https://hub.example.org/w/agent.json', name: 'Weather', region: 'EU' } },
      updated: '2025-06-01',
    });
    assert.deepEqual(result.agents[0], {
      id: 'weather',
      name: 'Weather',
      description: '',
      url: 'https://hub.example.org/w/agent.json',
      operations: [],
      bindings: [],
      provenance: { sourceFormat: 'agents-json', origin: 'native' },
      extensions: { 'agents-json': { entry: { region: 'EU' }, document: { updated: '2025-06-01' } } },
    });
  });

  test('a field or agent named "__proto__" is data: kept, and named in the map it writes', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key. A map has no
    // operations; its entries and the fields beside "agents" are the agent-level places unknown fields can be.
    const document = JSON.parse(`{
      "agents": {
        "__proto__": "https://hub.example.org/proto/agent.json",
        "weather": { "url": "https://hub.example.org/w/agent.json", "__proto__": { "entry": true } }
      },
      "__proto__": { "map": true }
    }`) as JsonObject;
    const result = agentsJsonCodec.parse(document);
    assert.deepEqual(errorsOf(result.issues), []);
    const [proto, weather] = result.agents;
    assert.equal(proto?.id, '__proto__');
    assert.equal(proto?.url, 'https://hub.example.org/proto/agent.json');
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    const extension = weather?.extensions?.['agents-json'];
    assert.equal(Object.getPrototypeOf(extension), Object.prototype);
    assert.deepEqual(own(extension?.['entry']), { entry: true });
    assert.deepEqual(own(extension?.['document']), { map: true });

    // Entries are written as descriptor URLs: the map has no place for their other fields, and says so.
    const emitted = agentsJsonCodec.emit(result.agents);
    const written = emitted.document as JsonObject;
    assert.equal(Object.getPrototypeOf(written['agents']), Object.prototype);
    assert.equal(own(written['agents']), 'https://hub.example.org/proto/agent.json');
    assert.deepEqual(
      emitted.losses.map((loss) => `${loss.agent}:${loss.field}`),
      ['__proto__:extensions.agents-json', 'weather:extensions.agents-json'],
    );
    assert.deepEqual(
      agentsJsonCodec.parse(written).agents.map((agent) => agent.id),
      ['__proto__', 'weather'],
    );
  });

  test('never throws, whatever it is given', () => {
    for (const input of [
      null,
      1,
      'agents',
      { agents: null },
      { agents: { a: null, b: [], c: { url: 3 } } },
    ]) {
      const result = agentsJsonCodec.parse(input);
      assert.ok(
        !result.issues.some((issue) => issue.code === 'agents-json.internal'),
        JSON.stringify(result.issues),
      );
    }
  });
});

describe('agents.json: detection', () => {
  test('recognises a map of names to URLs (object entries with a url tolerated)', () => {
    for (const document of [
      example,
      { agents: {} },
      { agents: { weather: { url: 'https://hub.example.org/w/agent.json' } } },
    ]) {
      assert.equal(agentsJsonCodec.detect(document), true, JSON.stringify(document));
    }
  });

  test('leaves alone WoA documents, agent lists and other shapes', () => {
    const others: unknown[] = [
      null,
      [],
      { agents: [] },
      { agents: 'https://hub.example.org' },
      { agents: { weather: 3 } },
      { agents: { weather: { name: 'no url' } } },
      { woa_version: '1', agents: {} },
    ];
    for (const other of others) assert.equal(agentsJsonCodec.detect(other), false, JSON.stringify(other));
  });
});

describe('agents.json: the map it writes', () => {
  test('points each agent to {baseUrl}/agents/{id}/agent.json and reads back', () => {
    const agents = [agent('weather'), agent('tides', { url: 'agent://sea.example.org/tides' })];
    const emitted = agentsJsonCodec.emit(agents, { baseUrl: 'https://hub.example.org/' });
    assert.deepEqual(emitted.issues, []);
    assert.deepEqual(emitted.document, {
      agents: {
        weather: 'https://hub.example.org/agents/weather/agent.json',
        tides: 'https://hub.example.org/agents/tides/agent.json',
      },
    });
    assert.deepEqual(
      emitted.losses.map((loss) => [loss.agent, loss.field]),
      [['tides', 'url']],
    );
    const parsed = agentsJsonCodec.parse(emitted.document);
    assert.deepEqual(errorsOf(parsed.issues), []);
    assert.deepEqual(
      parsed.agents.map((a) => a.id),
      ['weather', 'tides'],
    );
  });

  test("without a base URL it uses the agent's https url, and says how to fix it otherwise", () => {
    const ok = agentsJsonCodec.emit([agent('weather', { url: 'https://w.example.org/agent.json' })]);
    assert.deepEqual(ok.document, { agents: { weather: 'https://w.example.org/agent.json' } });
    assert.deepEqual(ok.losses, []);

    const insecure = agentsJsonCodec.emit([agent('weather', { url: 'http://w.example.org/agent.json' })]);
    assert.deepEqual(issueSummary(insecure.issues), [
      { code: 'agents-json.emit.no-url', pointer: '/agents/weather', severity: 'error' },
    ]);
    assert.match(insecure.issues[0]!.message, /base URL/);
  });

  test('two agents with one id are an error', () => {
    const emitted = agentsJsonCodec.emit([agent('weather'), agent('weather')], {
      baseUrl: 'https://hub.example.org',
    });
    assert.deepEqual(issueSummary(emitted.issues), [
      { code: 'agents-json.emit.duplicate-id', pointer: '/agents/weather', severity: 'error' },
    ]);
  });

  test('the loss report is exact: only values a map cannot hold are named', () => {
    const source = agent('weather', {
      name: 'Weather Desk',
      description: 'Forecasts.',
      version: '2.0.0',
      url: 'agent://hub.example.org/weather',
      operations: [{ name: 'forecast', description: 'Forecast a city.', input: { type: 'object' } }],
      bindings: [{ kind: 'wss', url: 'wss://hub.example.org/weather' }],
      extensions: { 'agents-json': { entry: { region: 'EU' } } },
    });
    const emitted = agentsJsonCodec.emit([source], { baseUrl: 'https://hub.example.org' });
    const back = agentsJsonCodec.parse(emitted.document).agents[0];
    const reported = [...new Set(emitted.losses.map((loss) => loss.field))].sort();
    assert.deepEqual(reported, lostFields(source, back).sort());
    assert.deepEqual(reported, [
      'bindings.wss',
      'description',
      'extensions.agents-json',
      'name',
      'operations[forecast]',
      'url',
      'version',
    ]);
  });
});
