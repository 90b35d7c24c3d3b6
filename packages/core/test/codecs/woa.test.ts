/** The WoA codec: the draft's own examples, one invalid document per MUST, detection, and the emitted shape. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { woaCodec } from '../../src/codecs/woa/index.js';
import type { Agent, JsonObject } from '../../src/index.js';
import { lostFields } from '../../src/index.js';
import { errorsOf, extractJsonAfter, issueSummary, readSharedText, readVector } from '../helpers.js';

interface InvalidCase {
  name: string;
  document: unknown;
  expect: Array<{ code: string; pointer: string; severity: string }>;
}

/** The draft as text, without the pilcrows that end its paragraphs and code blocks. */
const draft = readSharedText('specs', '000_9aba0d35f88ba285.txt').replaceAll('¶', '');
const appendixA = JSON.parse(
  extractJsonAfter(draft, 'to a SOUTH policy endpoint. For example:'),
) as JsonObject;
const appendixB = JSON.parse(
  extractJsonAfter(draft, 'using the application/woa+json media type.'),
) as JsonObject;

function agent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'echo',
    name: 'Echo',
    description: 'Repeats the text it is given.',
    operations: [
      {
        name: 'default',
        input: { type: 'object', properties: { text: { type: 'string' } } },
        output: { type: 'object', properties: { text: { type: 'string' } } },
      },
    ],
    bindings: [
      { kind: 'woa-rest', base: 'https://echo.example.org', invokePath: '/invoke', transportName: 'rest' },
    ],
    ...overrides,
  };
}

/** Emits, checks the document reads back without errors, and returns both sides. */
function roundTrip(agents: Agent[], baseUrl?: string) {
  const emitted = woaCodec.emit(agents, baseUrl === undefined ? {} : { baseUrl });
  const parsed = woaCodec.parse(emitted.document);
  assert.deepEqual(errorsOf(parsed.issues), [], JSON.stringify(emitted.document));
  return { emitted, document: emitted.document as JsonObject, parsed };
}

function assertExactLosses(
  before: Agent,
  after: Agent | undefined,
  losses: Array<{ agent: string; field: string }>,
) {
  const reported = [...new Set(losses.filter((l) => l.agent === before.id).map((l) => l.field))].sort();
  assert.deepEqual(reported, lostFields(before, after).sort());
}

describe('WoA: the draft examples', () => {
  test('Appendix A (SOUTH authz, elided schemas) parses with no issues and keeps authz', () => {
    const result = woaCodec.parse(appendixA);
    assert.deepEqual(result.issues, []);
    const [summarizer] = result.agents;
    assert.equal(summarizer?.id, 'summarizer');
    assert.deepEqual(summarizer?.extensions?.['woa']?.['authz'], {
      scheme: 'south',
      policy_uri: 'https://authz.example.com/south/policies/summarizer',
      token_header: 'Authorization',
    });
    assert.deepEqual(
      summarizer?.operations.map((op) => op.name),
      ['default'],
    );
  });

  test('Appendix B (complete example) parses with no issues into the canonical agent', () => {
    const result = woaCodec.parse(appendixB, { sourceUrl: 'https://api.example.com/.well-known/woa.json' });
    assert.deepEqual(result.issues, []);
    assert.equal(result.valid, true);
    const [summarizer] = result.agents;
    assert.ok(summarizer);
    assert.equal(summarizer.name, 'Document Summarizer');
    assert.equal(summarizer.version, '1.0.0');
    assert.deepEqual(summarizer.capabilities, ['https://example.com/capability/summarization']);
    assert.equal(summarizer.operations.length, 1);
    const op = summarizer.operations[0]!;
    assert.equal(op.name, 'default');
    assert.equal(op.description, 'Default summarization operation.');
    assert.deepEqual((op.input as JsonObject)['required'], ['text']);
    assert.deepEqual((op.output as JsonObject)['required'], ['summary']);
    assert.deepEqual(summarizer.bindings, [
      {
        kind: 'woa-rest',
        base: 'https://api.example.com',
        invokePath: '/agents/{agent_id}/invoke',
        transportName: 'rest',
      },
    ]);
    assert.deepEqual(summarizer.provenance, {
      sourceFormat: 'woa',
      origin: 'native',
      sourceUrl: 'https://api.example.com/.well-known/woa.json',
    });
  });

  test('both examples are written back exactly as the draft prints them', () => {
    for (const example of [appendixA, appendixB]) {
      const { agents } = woaCodec.parse(example);
      const emitted = woaCodec.emit(agents);
      assert.deepEqual(emitted.document, example);
      assert.deepEqual(emitted.losses, []);
      assert.deepEqual(emitted.issues, []);
    }
  });
});

describe('WoA: invalid documents (vectors/woa-invalid.json)', () => {
  const { cases } = readVector<{ cases: InvalidCase[] }>('woa-invalid.json');
  for (const item of cases) {
    test(item.name, () => {
      const result = woaCodec.parse(item.document);
      assert.deepEqual(issueSummary(result.issues), item.expect);
      assert.equal(result.valid, !item.expect.some((issue) => issue.severity === 'error'));
      for (const issue of result.issues) {
        assert.ok(issue.spec?.startsWith('WoA §'), `${issue.code} names its section`);
        assert.ok(issue.message.length > 20);
      }
    });
  }

  test('errors do not stop the reading: the other agents are still returned', () => {
    const document = structuredClone(appendixB) as { agents: JsonObject[] };
    document.agents.push({ id: 'bad id', name: 'Broken', transports: ['rest'] });
    document.agents.push({ ...document.agents[0]!, id: 'second' });
    const result = woaCodec.parse(document);
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.agents.map((a) => a.id),
      ['summarizer', 'bad id', 'second'],
    );
  });

  test('never throws, whatever it is given', () => {
    const junk: unknown[] = [
      null,
      42,
      'woa',
      [],
      { woa_version: '1', agents: [null, 1, [], { id: 5 }], transports: { rest: null, mcp: [] } },
      {
        woa_version: '1',
        agents: [{ id: 'a', operations: [null, { name: 7, inputs: true }] }],
        transports: {},
      },
      {
        woa_version: '1',
        agents: [{ id: 'a', inputs: null, outputs: [], transports: 'rest' }],
        transports: 1,
      },
    ];
    for (const document of junk) {
      const result = woaCodec.parse(document);
      assert.equal(result.valid, false);
      assert.ok(!result.issues.some((issue) => issue.code === 'woa.internal'), JSON.stringify(result.issues));
    }
  });
});

describe('WoA: valid variations', () => {
  test('a private reverse-DNS transport becomes an "other" binding', () => {
    const document = structuredClone(appendixB) as { agents: JsonObject[]; transports: JsonObject };
    document.transports['org.example.stream'] = { url: 'wss://api.example.com/stream' };
    document.agents[0]!['transports'] = ['rest', 'org.example.stream'];
    const result = woaCodec.parse(document);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.agents[0]?.bindings[1], {
      kind: 'other',
      protocol: 'org.example.stream',
      config: { url: 'wss://api.example.com/stream' },
    });
  });

  test('an mcp transport becomes an mcp binding', () => {
    const document = structuredClone(appendixB) as { agents: JsonObject[]; transports: JsonObject };
    document.transports['mcp'] = {
      server: 'https://api.example.com/mcp',
      tool_namespace: 'docs',
      tool_field: 'agent',
    };
    document.agents[0]!['transports'] = ['mcp'];
    const result = woaCodec.parse(document);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.agents[0]?.bindings, [
      {
        kind: 'mcp',
        server: 'https://api.example.com/mcp',
        toolNamespace: 'docs',
        toolField: 'agent',
        transportName: 'mcp',
      },
    ]);
  });

  test('operation overrides replace the agent schemas; other operations inherit them', () => {
    const document = structuredClone(appendixB) as { agents: JsonObject[] };
    const override = { type: 'object', properties: { url: { type: 'string', format: 'uri' } } };
    document.agents[0]!['operations'] = [
      { name: 'text', description: 'Summarise text.' },
      { name: 'page', description: 'Summarise a web page.', inputs: override },
    ];
    const [summarizer] = woaCodec.parse(document).agents;
    const [text, page] = summarizer!.operations;
    assert.deepEqual(text?.input, document.agents[0]!['inputs']);
    assert.deepEqual(page?.input, override);
    assert.deepEqual(page?.output, document.agents[0]!['outputs']);
  });

  test('unknown fields at every level are kept and written back', () => {
    const document = structuredClone(appendixA) as { agents: JsonObject[]; transports: JsonObject };
    (document as JsonObject)['authz'] = {
      scheme: 'south',
      policy_uri: 'https://authz.example.com/south/all',
    };
    (document.transports['rest'] as JsonObject)['timeout_ms'] = 30000;
    document.agents[0]!['operations'] = [{ name: 'default', description: 'Summarise.', 'x-cost': 'low' }];
    const result = woaCodec.parse(document);
    assert.deepEqual(result.issues, []);
    const summarizer = result.agents[0]!;
    assert.deepEqual(summarizer.extensions?.['woa']?.['@document'], {
      authz: { scheme: 'south', policy_uri: 'https://authz.example.com/south/all' },
    });
    assert.equal(summarizer.extensions?.['woa']?.['@transports'], undefined);
    assert.deepEqual(summarizer.bindings[0]?.extensions, { woa: { timeout_ms: 30000 } });
    assert.deepEqual(summarizer.operations[0]?.extensions, { woa: { 'x-cost': 'low' } });
    assert.deepEqual(woaCodec.emit(result.agents).document, document);
  });

  test('a field named "__proto__" is data: kept in extensions.woa at every level and written back', () => {
    // JSON.parse is how such keys arrive: it makes "__proto__" an own property, as any other key.
    const document = JSON.parse(`{
      "woa_version": "1",
      "__proto__": { "document": true },
      "agents": [{
        "id": "echo", "name": "Echo", "description": "Repeats.",
        "inputs": { "type": "object" }, "outputs": { "type": "object" },
        "transports": ["rest"],
        "operations": [{ "name": "say", "description": "Say it.", "__proto__": { "operation": true } }],
        "__proto__": { "agent": true }
      }],
      "transports": {
        "rest": { "base": "https://echo.example.org", "invoke_path": "/invoke", "__proto__": { "transport": true } }
      }
    }`) as JsonObject;
    const result = woaCodec.parse(document);
    assert.deepEqual(result.issues, []);
    const echo = result.agents[0]!;
    const own = (value: unknown) => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
    assert.equal(Object.getPrototypeOf(echo.extensions?.['woa']), Object.prototype);
    assert.deepEqual(own(echo.extensions?.['woa']), { agent: true });
    assert.deepEqual(own(echo.extensions?.['woa']?.['@document']), { document: true });
    assert.deepEqual(own(echo.operations[0]?.extensions?.['woa']), { operation: true });
    assert.deepEqual(own(echo.bindings[0]?.extensions?.['woa']), { transport: true });
    const emitted = woaCodec.emit(result.agents);
    assert.deepEqual(emitted.losses, []);
    const written = emitted.document as JsonObject;
    assert.deepEqual(own(written), { document: true });
    assert.equal(Object.getPrototypeOf(written), Object.prototype);
    assert.deepEqual(own((written['agents'] as JsonObject[])[0]), { agent: true });
    assert.deepEqual(own(((written['agents'] as JsonObject[])[0]!['operations'] as JsonObject[])[0]), {
      operation: true,
    });
    assert.deepEqual(own((written['transports'] as JsonObject)['rest']), { transport: true });
    assert.deepEqual(written, document);
  });
});

describe('WoA: detection', () => {
  test('by the woa_version key', () => {
    assert.equal(woaCodec.detect(appendixB), true);
    assert.equal(woaCodec.detect({ woa_version: '2' }), true);
  });
  test('not other shapes', () => {
    for (const document of [
      null,
      'woa_version',
      [appendixB],
      { awp_version: '0.2', domain: 'example.com' },
      { agents: [], transports: {} },
      { name: 'x', operations: [] },
    ]) {
      assert.equal(woaCodec.detect(document), false, JSON.stringify(document));
    }
  });
});

describe('WoA: emitting', () => {
  test("an operation without schemas does not inherit the first operation's when read back", () => {
    const twoOps = agent({
      operations: [
        { name: 'default', input: { type: 'object', properties: { text: { type: 'string' } } } },
        { name: 'ping', description: 'Takes nothing.' },
      ],
    });
    const { document, parsed } = roundTrip([twoOps]);
    const written = ((document['agents'] as JsonObject[])[0]!['operations'] as JsonObject[])[1]!;
    assert.deepEqual(written['inputs'], {});
    const ping = parsed.agents[0]!.operations.find((op) => op.name === 'ping')!;
    assert.equal(ping.input, undefined);
    assert.equal(ping.output, undefined);
  });

  test('a multi-agent document with every required field', () => {
    const second = agent({ id: 'shout', name: 'Shout' });
    const { document, parsed } = roundTrip([agent(), second]);
    assert.equal(document['woa_version'], '1');
    assert.deepEqual(document['transports'], {
      rest: { base: 'https://echo.example.org', invoke_path: '/invoke' },
    });
    const agents = document['agents'] as JsonObject[];
    assert.equal(agents.length, 2);
    for (const written of agents) {
      for (const key of ['id', 'name', 'description', 'inputs', 'outputs', 'transports']) {
        assert.ok(key in written, `${key} is written`);
      }
      assert.deepEqual(written['transports'], ['rest']);
    }
    assert.deepEqual(
      parsed.agents.map((a) => a.id),
      ['echo', 'shout'],
    );
  });

  test('a lone "default" operation without description is implied, not listed', () => {
    const { document } = roundTrip([agent()]);
    const written = (document['agents'] as JsonObject[])[0]!;
    assert.equal('operations' in written, false);
  });

  test('operations carry descriptions (title or name standing in) and overrides only when they differ', () => {
    const shared = { type: 'object', properties: { text: { type: 'string' } } };
    const other = { type: 'object', properties: { words: { type: 'integer' } } };
    const source = agent({
      operations: [
        { name: 'say', description: 'Say it back.', input: shared, output: shared },
        { name: 'whisper', title: 'Whisper it', input: shared, output: shared },
        { name: 'count', input: other, output: shared },
      ],
    });
    const { document, parsed, emitted } = roundTrip([source]);
    const written = (document['agents'] as JsonObject[])[0]!;
    assert.deepEqual(written['inputs'], shared);
    assert.deepEqual(written['operations'], [
      { name: 'say', description: 'Say it back.' },
      { name: 'whisper', description: 'Whisper it' },
      { name: 'count', description: 'count', inputs: other },
    ]);
    assertExactLosses(source, parsed.agents[0], emitted.losses);
    assert.deepEqual(
      emitted.losses.map((l) => l.field),
      ['operations[whisper].title'],
    );
  });

  test('an agent without a WoA binding is served by the host at the base URL', () => {
    const source = agent({
      bindings: [{ kind: 'http', url: 'https://echo.example.org/echo', method: 'POST' }],
    });
    const { document, parsed, emitted } = roundTrip([source], 'https://agents.example.net/');
    assert.deepEqual(document['transports'], {
      rest: { base: 'https://agents.example.net', invoke_path: '/agents/{agent_id}/invoke' },
    });
    assert.deepEqual(emitted.issues, []);
    assertExactLosses(source, parsed.agents[0], emitted.losses);
  });

  test('without a base URL, an agent with no WoA binding is an error that says what to pass', () => {
    const emitted = woaCodec.emit([agent({ bindings: [] })]);
    const [issue] = errorsOf(emitted.issues);
    assert.equal(issue?.code, 'woa.emit.no-transport');
    assert.equal(issue?.pointer, '/agents/0/transports');
    assert.match(issue?.message ?? '', /base URL/);
  });

  test('ids outside the ABNF are rewritten, with a warning and an exact loss', () => {
    const source = agent({ id: 'echo.example.org' });
    const { document, parsed, emitted } = roundTrip([source]);
    assert.equal((document['agents'] as JsonObject[])[0]!['id'], 'echo-example-org');
    assert.deepEqual(
      emitted.issues.map((i) => [i.severity, i.code]),
      [['warning', 'woa.emit.agent-id']],
    );
    assertExactLosses(source, parsed.agents[0], emitted.losses);
    assert.deepEqual(
      emitted.losses.map((l) => l.field),
      ['id'],
    );
  });

  test('mcp bindings get the fields WoA requires; what WoA cannot say is reported', () => {
    const exact = agent({
      bindings: [
        {
          kind: 'mcp',
          server: 'https://echo.example.org/mcp',
          toolNamespace: 'echo',
          toolField: 'agent',
          transportName: 'mcp',
        },
      ],
    });
    const first = roundTrip([exact]);
    assert.deepEqual(first.emitted.losses, []);
    assert.deepEqual(first.parsed.agents[0]?.bindings, exact.bindings);

    const stdio = agent({
      bindings: [
        {
          kind: 'mcp',
          server: 'io.example/echo',
          transport: 'stdio',
          package: { registryType: 'npm', identifier: '@example/echo' },
        },
      ],
    });
    const second = roundTrip([stdio]);
    assert.deepEqual(second.document['transports'], {
      mcp: { server: 'io.example/echo', tool_namespace: '', tool_field: 'operation' },
    });
    assertExactLosses(stdio, second.parsed.agents[0], second.emitted.losses);
    assert.deepEqual(
      second.emitted.losses.map((l) => l.field),
      ['bindings.mcp'],
    );
  });

  test('identical transports are shared; a different one under a taken name is left out and reported', () => {
    const a = agent({ id: 'a' });
    const b = agent({ id: 'b' });
    const c = agent({
      id: 'c',
      bindings: [
        { kind: 'woa-rest', base: 'https://other.example.org', invokePath: '/invoke', transportName: 'rest' },
        { kind: 'other', protocol: 'org.example.stream', config: { url: 'wss://other.example.org/s' } },
      ],
    });
    const { document, parsed, emitted } = roundTrip([a, b, c]);
    assert.deepEqual(document['transports'], {
      rest: { base: 'https://echo.example.org', invoke_path: '/invoke' },
      'org.example.stream': { url: 'wss://other.example.org/s' },
    });
    assert.deepEqual(
      (document['agents'] as JsonObject[]).map((x) => x['transports']),
      [['rest'], ['rest'], ['org.example.stream']],
    );
    for (const source of [a, b, c]) {
      assertExactLosses(
        source,
        parsed.agents.find((x) => x.id === source.id),
        emitted.losses,
      );
    }
    assert.deepEqual(
      emitted.losses.map((l) => `${l.agent}:${l.field}`),
      ['c:bindings.woa-rest'],
    );
  });

  test('transports WoA cannot name or reach are left out with a reason', () => {
    const source = agent({
      bindings: [
        { kind: 'woa-rest', base: 'http://echo.example.org', invokePath: '/invoke' },
        { kind: 'other', protocol: 'matrix', config: { room: '#echo:example.org' } },
        { kind: 'woa-rest', base: 'https://echo.example.org', invokePath: '/invoke' },
      ],
    });
    const { parsed, emitted } = roundTrip([source]);
    assertExactLosses(source, parsed.agents[0], emitted.losses);
    assert.deepEqual(emitted.losses.map((l) => l.field).sort(), ['bindings.other', 'bindings.woa-rest']);
    assert.equal(emitted.issues.filter((i) => i.code === 'woa.emit.binding-dropped').length, 2);
  });

  test('schemas become JSON Schema 2020-12 objects, and the change is reported', () => {
    const source = agent({
      operations: [
        {
          name: 'default',
          description: 'Echo.',
          input: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
          output: true,
        },
      ],
    });
    const { document, parsed, emitted } = roundTrip([source]);
    const written = (document['agents'] as JsonObject[])[0]!;
    assert.deepEqual(written['inputs'], { type: 'object' });
    assert.deepEqual(written['outputs'], {});
    assertExactLosses(source, parsed.agents[0], emitted.losses);
    assert.deepEqual(emitted.losses.map((l) => l.field).sort(), [
      'operations[default].input',
      'operations[default].output',
    ]);
  });

  test("a binding's extensions.woa are its transport configuration's unknown fields, written back", () => {
    const source = agent({
      bindings: [
        {
          kind: 'woa-rest',
          base: 'https://echo.example.org',
          invokePath: '/invoke',
          transportName: 'rest',
          extensions: { woa: { timeout_ms: 30000, retry: { max: 2 } } },
        },
        {
          kind: 'mcp',
          server: 'https://echo.example.org/mcp',
          toolNamespace: 'echo',
          toolField: 'agent',
          transportName: 'mcp',
          extensions: { woa: { session: 'sticky' } },
        },
      ],
    });
    const { document, parsed, emitted } = roundTrip([source]);
    assert.deepEqual(document['transports'], {
      rest: {
        base: 'https://echo.example.org',
        invoke_path: '/invoke',
        timeout_ms: 30000,
        retry: { max: 2 },
      },
      mcp: {
        server: 'https://echo.example.org/mcp',
        tool_namespace: 'echo',
        tool_field: 'agent',
        session: 'sticky',
      },
    });
    assert.deepEqual(emitted.losses, []);
    assert.deepEqual(parsed.agents[0]?.bindings, source.bindings);
    assert.equal(parsed.agents[0]?.extensions, undefined);
  });

  test('binding extensions WoA cannot write (another format, a WoA field name, another configuration) are reported', () => {
    const rest = (extensions: Record<string, JsonObject>) =>
      agent({
        bindings: [
          {
            kind: 'woa-rest',
            base: 'https://echo.example.org',
            invokePath: '/invoke',
            transportName: 'rest',
            extensions,
          },
        ],
      });
    const foreign = rest({ a2a: { region: 'eu' } });
    const clash = rest({ woa: { base: 'https://spoofed.example.org', timeout_ms: 5 } });
    const first = rest({ woa: { timeout_ms: 10 } });
    const second = { ...rest({ woa: { timeout_ms: 20 } }), id: 'second' };
    for (const agents of [[foreign], [clash], [first, second]]) {
      const { document, parsed, emitted } = roundTrip(agents);
      for (const source of agents) {
        assertExactLosses(
          source,
          parsed.agents.find((x) => x.id === source.id),
          emitted.losses,
        );
      }
      // The binding still serves the agent: only its extra fields are not what they were.
      assert.equal((document['transports'] as JsonObject)['rest'] !== undefined, true);
    }
    assert.deepEqual(
      woaCodec.emit([foreign]).losses.map((l) => l.field),
      ['bindings.woa-rest'],
    );
    assert.deepEqual(
      woaCodec.emit([clash]).losses.map((l) => l.field),
      ['bindings.woa-rest'],
    );
    const shared = woaCodec.emit([first, second]);
    assert.deepEqual(
      shared.losses.map((l) => `${l.agent}:${l.field}`),
      ['second:bindings.woa-rest'],
    );
    assert.deepEqual((shared.document as JsonObject)['transports'], {
      rest: { base: 'https://echo.example.org', invoke_path: '/invoke', timeout_ms: 10 },
    });
  });

  test('extension fields named like WoA fields cannot override them, and that is reported', () => {
    const source = agent({ extensions: { woa: { name: 'Spoofed', authz: { scheme: 'south' } } } });
    const { document, parsed, emitted } = roundTrip([source]);
    const written = (document['agents'] as JsonObject[])[0]!;
    assert.equal(written['name'], 'Echo');
    assert.deepEqual(written['authz'], { scheme: 'south' });
    assertExactLosses(source, parsed.agents[0], emitted.losses);
    assert.deepEqual(
      emitted.losses.map((l) => l.field),
      ['extensions.woa'],
    );
  });
});
