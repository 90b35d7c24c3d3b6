/**
 * The MCP codec: the MCP Registry seed corpus (read from ../shared at run time), tools/list results, our combined
 * document, detection, one invalid document per rule (vectors/mcp-invalid.json), and the shape of what we emit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Agent,
  codecs,
  detectFormat,
  type JsonObject,
  lostFields,
  type McpBinding,
} from '../../src/index.js';
import { errorsOf, readSharedJson, readVector } from '../helpers.js';

const mcp = codecs.mcp;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const HINTS = new Set(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);

function mcpBindings(agent: Agent): McpBinding[] {
  return agent.bindings.filter((binding): binding is McpBinding => binding.kind === 'mcp');
}

type SeedRecord = JsonObject & {
  name: string;
  description: string;
  version: string;
  repository: JsonObject;
  packages: Array<JsonObject & { registryType: string; identifier: string; transport: { type: string } }>;
  remotes?: Array<{ type: string; url: string }>;
};
const seed = readSharedJson('corpora', 'mcp-registry', 'seed.json') as SeedRecord[];

describe('mcp: MCP Registry seed corpus', () => {
  test('the whole seed, as one array document, reads as 358 agents with no errors', () => {
    assert.equal(mcp.detect(seed), true);
    const result = mcp.parse(seed, { sourceUrl: 'https://registry.example.net/seed.json' });
    assert.deepEqual(errorsOf(result.issues), []);
    assert.equal(result.valid, true);
    assert.equal(result.agents.length, 358);
    for (const agent of result.agents) {
      assert.deepEqual(agent.provenance, {
        sourceFormat: 'mcp',
        origin: 'native',
        sourceUrl: 'https://registry.example.net/seed.json',
      });
    }
  });

  test('package registries and remotes are counted as published (149 npm, 121 pypi, 88 oci, 1 with remotes)', () => {
    const { agents } = mcp.parse(seed);
    const byRegistry: Record<string, number> = {};
    for (const binding of agents.flatMap(mcpBindings)) {
      if (binding.package !== undefined)
        byRegistry[binding.package.registryType] = (byRegistry[binding.package.registryType] ?? 0) + 1;
    }
    assert.deepEqual(byRegistry, { npm: 149, pypi: 121, oci: 88 });
    const withRemotes = agents.filter((agent) => mcpBindings(agent).some((b) => b.package === undefined));
    assert.equal(withRemotes.length, 1);
    const remotes = mcpBindings(withRemotes[0]!).filter((b) => b.package === undefined);
    const record = seed.find((r) => r.name === withRemotes[0]!.id)!;
    assert.deepEqual(
      remotes,
      record.remotes!.map((remote) => ({ kind: 'mcp', server: remote.url, transport: remote.type })),
    );
  });

  test('each record alone reads as the agent it describes', () => {
    seed.forEach((record, index) => {
      const label = `seed[${index}] ${record.name}`;
      assert.equal(mcp.detect(record), true, label);
      const result = mcp.parse(record);
      assert.deepEqual(errorsOf(result.issues), [], label);
      assert.equal(result.agents.length, 1, label);
      const agent = result.agents[0]!;
      assert.equal(agent.id, record.name, label);
      assert.equal(agent.name, record.name, label);
      assert.equal(agent.description, record.description, label);
      assert.equal(agent.version, record.version, label);
      assert.equal(agent.operations.length, 0, label);
      assert.deepEqual(agent.extensions?.['mcp']?.['repository'], record.repository, label);
      const packages = mcpBindings(agent).filter((b) => b.package !== undefined);
      assert.equal(packages.length, record.packages.length, label);
      record.packages.forEach((pkg, i) => {
        const binding = packages[i]!;
        assert.equal(binding.server, pkg.identifier, label);
        assert.equal(binding.transport, pkg.transport.type, label);
        const { transport: _transport, ...fields } = pkg;
        assert.deepEqual(binding.package, fields, label);
      });
    });
  });

  test('each record converts to our document and back unchanged', () => {
    for (const record of seed) {
      const agent = mcp.parse(record).agents[0]!;
      const emitted = mcp.emit([agent]);
      assert.deepEqual(emitted.losses, []);
      const { tools, ...document } = emitted.document as JsonObject;
      assert.deepEqual(tools, []);
      assert.deepEqual(document, record);
    }
  });

  test('a registry list response reads as one agent per entry, keeping each entry’s _meta', () => {
    const entries = seed.slice(0, 5).map((server, index) => ({
      server,
      _meta: {
        'io.modelcontextprotocol.registry/official': {
          status: index === 4 ? 'deprecated' : 'active',
          publishedAt: '2025-10-01T08:00:00Z',
          isLatest: true,
        },
      },
    }));
    const response = { servers: entries, metadata: { count: 5, nextCursor: 'page-2' } };
    assert.equal(mcp.detect(response), true);
    const result = mcp.parse(response);
    assert.deepEqual(errorsOf(result.issues), []);
    assert.deepEqual(
      result.agents.map((agent) => agent.id),
      seed.slice(0, 5).map((record) => record.name),
    );
    result.agents.forEach((agent, index) => {
      assert.deepEqual(agent.extensions?.['mcp']?.['registryEntry'], { _meta: entries[index]!._meta });
    });
  });
});

/** A tools/list result of an invented notes server. */
const toolsList: JsonObject = {
  tools: [
    {
      name: 'list_notes',
      title: 'List notes',
      description: 'List the titles of all saved notes.',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: { titles: { type: 'array', items: { type: 'string' } } },
        required: ['titles'],
      },
      annotations: { title: 'List notes', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'add_note',
      description: 'Save a new note.',
      inputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, body: { type: 'string' } },
        required: ['title', 'body'],
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    {
      name: 'delete_note',
      description: 'Remove a note for good.',
      inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      annotations: { destructiveHint: true, idempotentHint: true },
      _meta: { 'org.example/ui': { confirm: true } },
    },
    {
      name: 'note.count',
      inputSchema: { type: 'object' },
    },
  ],
  nextCursor: 'after-note-count',
};

describe('mcp: tools/list result', () => {
  test('reads as an unnamed server whose tools are operations', () => {
    assert.equal(mcp.detect(toolsList), true);
    assert.equal(detectFormat(toolsList), 'mcp');
    const result = mcp.parse(toolsList);
    assert.deepEqual(result.issues, []);
    const [agent] = result.agents;
    assert.ok(agent);
    assert.equal(agent.id, 'mcp-server');
    assert.equal(agent.name, 'mcp-server');
    assert.equal(agent.description, '');
    assert.deepEqual(agent.bindings, []);
    assert.deepEqual(agent.extensions, { mcp: { nextCursor: 'after-note-count' } });
    const [list, add, remove, count] = agent.operations;
    assert.deepEqual(list, {
      name: 'list_notes',
      title: 'List notes',
      description: 'List the titles of all saved notes.',
      input: { type: 'object', properties: {} },
      output: {
        type: 'object',
        properties: { titles: { type: 'array', items: { type: 'string' } } },
        required: ['titles'],
      },
      safe: true,
      extensions: { mcp: { annotations: { title: 'List notes', openWorldHint: false } } },
    });
    assert.deepEqual(
      { safe: add?.safe, idempotent: add?.idempotent, sensitivity: add?.sensitivity, ext: add?.extensions },
      { safe: false, idempotent: false, sensitivity: 'standard', ext: undefined },
    );
    assert.equal(remove?.sensitivity, 'destructive');
    assert.equal(remove?.idempotent, true);
    assert.equal(remove?.safe, undefined, 'an absent hint sets no canonical field');
    assert.deepEqual(remove?.extensions, { mcp: { _meta: { 'org.example/ui': { confirm: true } } } });
    assert.deepEqual(count, { name: 'note.count', input: { type: 'object' } });
  });

  test('a named tools/list result takes its id from the name', () => {
    const named = { ...toolsList, name: 'org.example/notes' };
    const [agent] = mcp.parse(named).agents;
    assert.equal(agent?.id, 'org.example/notes');
  });

  test('writes back the same tools', () => {
    const agent = mcp.parse(toolsList).agents[0]!;
    const emitted = mcp.emit([agent]).document as JsonObject;
    assert.deepEqual(emitted['tools'], toolsList['tools']);
    assert.equal(emitted['nextCursor'], 'after-note-count');
  });
});

/** Our combined document: a registry record together with its tools. Invented values. */
const combined: JsonObject = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
  name: 'org.example/weather',
  title: 'Example Weather',
  description: 'Forecasts and current conditions for any city.',
  version: '2.0.1',
  websiteUrl: 'https://weather.example.org/docs',
  repository: { url: 'https://git.example.org/weather-mcp', source: 'gitea' },
  remotes: [
    {
      type: 'streamable-http',
      url: 'https://weather.example.org/mcp',
      headers: [{ name: 'X-Weather-Key', description: 'Your API key', isRequired: true, isSecret: true }],
    },
    { type: 'sse', url: 'https://{region}.weather.example.org/sse' },
  ],
  packages: [
    {
      registryType: 'pypi',
      registryBaseUrl: 'https://pypi.org',
      identifier: 'example-weather-mcp',
      version: '2.0.1',
      runtimeHint: 'uvx',
      transport: { type: 'streamable-http', url: 'http://localhost:{port}/mcp' },
      packageArguments: [{ type: 'named', name: '--port', valueHint: 'port', default: '8040' }],
      environmentVariables: [{ name: 'WEATHER_KEY', isSecret: true }],
    },
    {
      registryType: 'oci',
      identifier: 'example/weather-mcp',
      version: '2.0.1',
      transport: { type: 'stdio' },
    },
  ],
  tools: [
    {
      name: 'forecast',
      title: 'Forecast',
      description: 'Daily forecast for a city.',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 10 } },
        required: ['city'],
      },
      outputSchema: {
        type: 'object',
        properties: { days: { type: 'array', items: { type: 'object' } } },
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
  ],
};

describe('mcp: combined document', () => {
  test('reads as one agent with bindings and operations', () => {
    assert.equal(mcp.detect(combined), true);
    const result = mcp.parse(combined);
    assert.deepEqual(result.issues, []);
    const agent = result.agents[0]!;
    assert.equal(agent.id, 'org.example/weather');
    assert.equal(agent.name, 'Example Weather');
    assert.equal(agent.version, '2.0.1');
    assert.equal(agent.documentationUrl, 'https://weather.example.org/docs');
    assert.deepEqual(agent.bindings, [
      {
        kind: 'mcp',
        server: 'https://weather.example.org/mcp',
        transport: 'streamable-http',
        extensions: {
          mcp: {
            headers: [
              { name: 'X-Weather-Key', description: 'Your API key', isRequired: true, isSecret: true },
            ],
          },
        },
      },
      { kind: 'mcp', server: 'https://{region}.weather.example.org/sse', transport: 'sse' },
      {
        kind: 'mcp',
        server: 'example-weather-mcp',
        transport: 'streamable-http',
        package: {
          registryType: 'pypi',
          identifier: 'example-weather-mcp',
          version: '2.0.1',
          registryBaseUrl: 'https://pypi.org',
          runtimeHint: 'uvx',
          environmentVariables: [{ name: 'WEATHER_KEY', isSecret: true }],
          packageArguments: [{ type: 'named', name: '--port', valueHint: 'port', default: '8040' }],
        },
        extensions: { mcp: { transport: { url: 'http://localhost:{port}/mcp' } } },
      },
      {
        kind: 'mcp',
        server: 'example/weather-mcp',
        transport: 'stdio',
        package: { registryType: 'oci', identifier: 'example/weather-mcp', version: '2.0.1' },
      },
    ]);
    assert.deepEqual(agent.extensions?.['mcp'], {
      $schema: combined['$schema']!,
      repository: combined['repository']!,
    });
    assert.deepEqual(agent.operations[0]?.extensions, { mcp: { annotations: { openWorldHint: true } } });
  });

  test('is written back field for field', () => {
    const emitted = mcp.emit(mcp.parse(combined).agents);
    assert.deepEqual(emitted.losses, []);
    assert.deepEqual(emitted.issues, []);
    assert.deepEqual(emitted.document, combined);
  });

  test('a field named "__proto__" is data: kept in extensions.mcp on the server, a tool, a remote and a package', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key.
    const document = JSON.parse(`{
      "name": "org.example/weather", "description": "Forecasts.", "version": "2.0.1",
      "__proto__": { "server": true },
      "remotes": [{ "type": "sse", "url": "https://weather.example.org/sse", "__proto__": { "remote": true } }],
      "packages": [{
        "registryType": "npm", "identifier": "@example/weather",
        "transport": { "type": "stdio", "__proto__": { "transport": true } }, "__proto__": { "package": true }
      }],
      "tools": [{
        "name": "forecast", "inputSchema": { "type": "object" }, "__proto__": { "tool": true },
        "annotations": { "openWorldHint": true, "__proto__": { "annotation": true } }
      }]
    }`) as JsonObject;
    const result = mcp.parse(document);
    assert.deepEqual(errorsOf(result.issues), []);
    const agent = result.agents[0]!;
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    assert.equal(Object.getPrototypeOf(agent.extensions?.['mcp']), Object.prototype);
    assert.deepEqual(own(agent.extensions?.['mcp']), { server: true });
    const operation = agent.operations[0]?.extensions?.['mcp'];
    assert.deepEqual(own(operation), { tool: true });
    assert.deepEqual(own(operation?.['annotations']), { annotation: true });
    assert.deepEqual(own(agent.bindings[0]?.extensions?.['mcp']), { remote: true });
    const packageExtras = agent.bindings[1]?.extensions?.['mcp'];
    assert.deepEqual(own(packageExtras), { package: true });
    assert.deepEqual(own(packageExtras?.['transport']), { transport: true });
    const emitted = mcp.emit(result.agents);
    assert.deepEqual(emitted.losses, []);
    const written = emitted.document as JsonObject;
    assert.equal(Object.getPrototypeOf(written), Object.prototype);
    assert.deepEqual(own(written), { server: true });
    assert.deepEqual(own((written['tools'] as JsonObject[])[0]), { tool: true });
    assert.deepEqual(own((written['remotes'] as JsonObject[])[0]), { remote: true });
    assert.deepEqual(own((written['packages'] as JsonObject[])[0]), { package: true });
    assert.deepEqual(written, document);
  });
});

describe('mcp: detection', () => {
  const record = seed[0]!;
  const positives: Array<[string, unknown]> = [
    ['a tools/list result', { tools: [] }],
    ['a server.json record', record],
    [
      'a record known by its $schema',
      { $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json' },
    ],
    ['a record with only remotes', { name: 'org.example/x', remotes: [] }],
    ['an array of records', [record, seed[1]]],
    [
      'an array of combined documents',
      [
        { name: 'a', tools: [] },
        { name: 'b', tools: [] },
      ],
    ],
    ['a registry list response', { servers: [{ server: record, _meta: {} }], metadata: { count: 1 } }],
    ['an older registry list of bare records', { servers: [record] }],
    ['an empty registry page', { servers: [], metadata: { count: 0 } }],
  ];
  const negatives: Array<[string, unknown]> = [
    ['null', null],
    ['a string', 'tools'],
    ['an empty object', {}],
    ['an empty array', []],
    ['a name alone', { name: 'org.example/x', description: 'd' }],
    ['tools that are not an array', { tools: { a: {} } }],
    ['an OpenAPI servers list', { openapi: '3.1.0', servers: [{ url: 'https://api.example.org' }] }],
    ['an empty servers list without metadata', { servers: [] }],
    ['an A2A card', { name: 'Agent', protocolVersion: '0.3.0', skills: [], url: 'https://a.example.org' }],
    ['a WoA document', { woa_version: '1.0', agents: [] }],
    ['an array mixing records and other things', [record, { id: 'x' }]],
    ['a packages list without a string name', { name: 7, packages: [] }],
  ];
  for (const [label, document] of positives) {
    test(`detects ${label}`, () => assert.equal(mcp.detect(document), true));
  }
  for (const [label, document] of negatives) {
    test(`does not detect ${label}`, () => assert.equal(mcp.detect(document), false));
  }
});

interface InvalidCase {
  name: string;
  document: unknown;
  expect: Array<{ code: string; pointer: string; severity: 'error' | 'warning' }>;
}
const invalid = readVector<{ cases: InvalidCase[] }>('mcp-invalid.json');

describe('mcp: invalid documents', () => {
  for (const { name, document, expect } of invalid.cases) {
    test(name, () => {
      const result = mcp.parse(document);
      const found = result.issues.map(({ code, pointer, severity }) => ({ code, pointer, severity }));
      for (const expected of expect) {
        assert.ok(
          found.some(
            (issue) =>
              issue.code === expected.code &&
              issue.pointer === expected.pointer &&
              issue.severity === expected.severity,
          ),
          `expected ${JSON.stringify(expected)} among ${JSON.stringify(found)}`,
        );
      }
      const expectedErrors = expect.filter((issue) => issue.severity === 'error');
      assert.deepEqual(
        found.filter((issue) => issue.severity === 'error'),
        expectedErrors,
        'no other errors',
      );
      assert.equal(result.valid, expectedErrors.length === 0);
      for (const issue of result.issues) {
        assert.ok(issue.message.length > 0);
        assert.match(issue.spec ?? '', /^MCP /);
      }
    });
  }
});

interface RoundTripCase {
  name: string;
  agent: Agent;
}
const fixtures = readVector<{ baseUrl: string; cases: RoundTripCase[] }>('round-trip-agents.json');

describe('mcp: emitted documents', () => {
  for (const { name, agent } of fixtures.cases) {
    test(`${name}: tools have object input schemas and valid annotations`, () => {
      const emitted = mcp.emit([agent], { baseUrl: fixtures.baseUrl });
      assert.deepEqual(emitted.issues, []);
      const document = emitted.document as JsonObject;
      assert.equal(mcp.detect(document), true);
      assert.equal(document['name'], agent.id);
      assert.equal(document['description'], agent.description);
      const tools = document['tools'] as JsonObject[];
      assert.equal(tools.length, agent.operations.length);
      for (const tool of tools) {
        assert.match(String(tool['name']), TOOL_NAME);
        assert.equal((tool['inputSchema'] as JsonObject)['type'], 'object');
        if (tool['outputSchema'] !== undefined)
          assert.equal((tool['outputSchema'] as JsonObject)['type'], 'object');
        const annotations = tool['annotations'] as JsonObject | undefined;
        for (const [key, value] of Object.entries(annotations ?? {})) {
          if (key === 'title') assert.equal(typeof value, 'string');
          else {
            assert.ok(HINTS.has(key), `unknown annotation ${key}`);
            assert.equal(typeof value, 'boolean');
          }
        }
      }
      assert.deepEqual(errorsOf(mcp.parse(document).issues), []);
    });
  }

  test('effect fields become hints only where known, and irreversible is reported', () => {
    const flights = fixtures.cases.find((c) => c.agent.id === 'flights.example.com')!.agent;
    const emitted = mcp.emit([flights]);
    const tools = (emitted.document as JsonObject)['tools'] as JsonObject[];
    const annotations = Object.fromEntries(tools.map((tool) => [tool['name'], tool['annotations']]));
    assert.deepEqual(annotations, {
      search_flights: { readOnlyHint: true },
      book_flight: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      cancel_booking: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    });
    assert.ok(emitted.losses.some((loss) => loss.field === 'operations[cancel_booking].sensitivity'));
    const back = mcp.parse(emitted.document).agents[0]!;
    assert.equal(back.operations.find((op) => op.name === 'cancel_booking')?.sensitivity, 'destructive');
  });

  test('operations MCP cannot say as they are are reshaped, and the reshaping is reported', () => {
    const agent: Agent = {
      id: 'org.example/odd',
      name: 'org.example/odd',
      description: 'Operations in shapes MCP does not take.',
      operations: [
        { name: 'echo', input: { type: 'string' }, output: { type: 'array' } },
        { name: 'find papers!', input: { type: 'object' } },
        { name: 'noinput' },
      ],
      bindings: [],
    };
    const emitted = mcp.emit([agent]);
    const tools = (emitted.document as JsonObject)['tools'] as JsonObject[];
    assert.deepEqual(tools, [
      { name: 'echo', inputSchema: { type: 'object' } },
      { name: 'find_papers_', inputSchema: { type: 'object' } },
      { name: 'noinput', inputSchema: { type: 'object' } },
    ]);
    assert.deepEqual(emitted.losses.map((loss) => loss.field).sort(), [
      'operations[echo].input',
      'operations[echo].output',
      'operations[find papers!]',
    ]);
  });

  test('sanitised names stay unique', () => {
    const agent: Agent = {
      id: 'org.example/clash',
      name: 'clash',
      description: '',
      operations: [{ name: 'a b' }, { name: 'a_b' }, { name: 'a?b' }],
      bindings: [],
    };
    const tools = (mcp.emit([agent]).document as JsonObject)['tools'] as JsonObject[];
    assert.deepEqual(
      tools.map((tool) => tool['name']),
      ['a_b', 'a_b_2', 'a_b_3'],
    );
    assert.deepEqual(errorsOf(mcp.parse(mcp.emit([agent]).document).issues), []);
  });

  test('MCP bindings become remotes and packages; what a record cannot say is reported', () => {
    const agent: Agent = {
      id: 'org.example/mixed',
      name: 'Mixed',
      description: 'Bindings of every kind.',
      operations: [],
      bindings: [
        { kind: 'mcp', server: 'https://mixed.example.org/mcp', transport: 'streamable-http' },
        {
          kind: 'mcp',
          server: '@example/mixed',
          transport: 'stdio',
          package: { registryType: 'npm', identifier: '@example/mixed', version: '0.4.0' },
        },
        { kind: 'mcp', server: 'mixed-internal', transportName: 'tools' },
        { kind: 'http', url: 'https://mixed.example.org/run', method: 'POST' },
      ],
    };
    const emitted = mcp.emit([agent]);
    const document = emitted.document as JsonObject;
    assert.deepEqual(document['remotes'], [
      { type: 'streamable-http', url: 'https://mixed.example.org/mcp' },
    ]);
    assert.deepEqual(document['packages'], [
      { registryType: 'npm', identifier: '@example/mixed', version: '0.4.0', transport: { type: 'stdio' } },
    ]);
    assert.deepEqual(emitted.losses.map((loss) => loss.field).sort(), ['bindings.http', 'bindings.mcp']);
  });

  test("a binding's extensions.mcp are written into its remote or package; what cannot be is reported exactly", () => {
    const remote: McpBinding = {
      kind: 'mcp',
      server: 'https://mixed.example.org/mcp',
      transport: 'streamable-http',
      extensions: { mcp: { headers: [{ name: 'X-Key', isSecret: true }] } },
    };
    const pkg: McpBinding = {
      kind: 'mcp',
      server: '@example/mixed',
      transport: 'streamable-http',
      package: { registryType: 'npm', identifier: '@example/mixed', version: '0.4.0' },
      extensions: { mcp: { fileSha256: 'ab12', transport: { url: 'http://localhost:8040/mcp' } } },
    };
    const base: Agent = {
      id: 'org.example/mixed',
      name: 'Mixed',
      description: 'Bindings with fields of their own.',
      operations: [],
      bindings: [remote, pkg],
    };
    const exact = mcp.emit([base]);
    assert.deepEqual(exact.losses, []);
    const document = exact.document as JsonObject;
    assert.deepEqual(document['remotes'], [
      {
        type: 'streamable-http',
        url: 'https://mixed.example.org/mcp',
        headers: [{ name: 'X-Key', isSecret: true }],
      },
    ]);
    assert.deepEqual(document['packages'], [
      {
        registryType: 'npm',
        identifier: '@example/mixed',
        version: '0.4.0',
        fileSha256: 'ab12',
        transport: { type: 'streamable-http', url: 'http://localhost:8040/mcp' },
      },
    ]);
    assert.deepEqual(mcp.parse(document).agents[0]?.bindings, base.bindings);

    const { transport: _typed, ...untyped } = pkg;
    const cases: Array<[McpBinding, string[]]> = [
      [{ ...remote, extensions: { woa: { timeout_ms: 5 } } }, ['bindings.mcp']],
      [{ ...remote, extensions: { mcp: { url: 'https://spoofed.example.org/mcp' } } }, ['bindings.mcp']],
      [
        { ...pkg, extensions: { mcp: { identifier: 'spoofed', transport: { type: 'sse' } } } },
        ['bindings.mcp'],
      ],
      [{ ...untyped, extensions: { mcp: { transport: { url: 'http://x.example' } } } }, ['bindings.mcp']],
      [{ ...remote, extensions: { mcp: {} } }, ['bindings.mcp']],
      [{ ...remote, extensions: { mcp: { headers: [] }, a2a: { tenant: 't' } } }, ['bindings.mcp']],
    ];
    for (const [binding, expected] of cases) {
      const source: Agent = { ...base, bindings: [binding] };
      const emitted = mcp.emit([source]);
      const back = mcp.parse(emitted.document).agents[0];
      const reported = [...new Set(emitted.losses.map((loss) => loss.field))].sort();
      assert.deepEqual(reported, expected, JSON.stringify(binding));
      assert.deepEqual(reported, lostFields(source, back).sort(), 'the loss report is exact');
    }
  });

  test('an agent without operations still reads back as MCP', () => {
    const agent: Agent = {
      id: 'org.example/empty',
      name: 'Empty',
      description: 'Nothing yet.',
      operations: [],
      bindings: [],
    };
    const document = mcp.emit([agent]).document;
    assert.deepEqual((document as JsonObject)['tools'], []);
    assert.equal(detectFormat(document), 'mcp');
  });

  test('several agents are written as an array of documents that reads back as several agents', () => {
    const agents = fixtures.cases.map((c) => c.agent);
    const emitted = mcp.emit(agents, { baseUrl: fixtures.baseUrl });
    assert.ok(Array.isArray(emitted.document));
    assert.equal(mcp.detect(emitted.document), true);
    const back = mcp.parse(emitted.document);
    assert.deepEqual(errorsOf(back.issues), []);
    assert.deepEqual(
      back.agents.map((agent) => agent.id),
      agents.map((agent) => agent.id),
    );
  });
});
