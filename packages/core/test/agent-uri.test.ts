/**
 * agent:// URIs: the vectors of vectors/agent-uri.json (valid with expected parts, invalid with the part and
 * offset the error must name), the draft's own examples read from its text, and formatting.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AgentUri,
  AgentUriError,
  type AgentUriPart,
  formatAgentUri,
  isAgentUri,
  normalizeAgentUri,
  parseAgentUri,
  tryParseAgentUri,
} from '../src/index.js';
import { readSharedText, readVector } from './helpers.js';

interface ValidCase {
  name: string;
  input: string;
  expect?: Record<string, unknown>;
  normalized?: string;
}
interface InvalidCase {
  name: string;
  input: string;
  part: AgentUriPart;
  offset: number;
}
const vectors = readVector<{ valid: ValidCase[]; invalid: InvalidCase[] }>('agent-uri.json');

/** Every key of `expected` matches `actual` (objects recursively, arrays exactly); `null` means absent. */
function assertSubset(actual: unknown, expected: unknown, path: string): void {
  if (expected === null) {
    assert.equal(actual, undefined, `${path} should be absent`);
    return;
  }
  if (typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(typeof actual === 'object' && actual !== null, `${path} should be an object`);
    for (const [key, value] of Object.entries(expected)) {
      assertSubset((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    }
    return;
  }
  assert.deepStrictEqual(actual, expected, path);
}

/** The decoded meaning of a URI: what formatting must preserve. */
function meaning(uri: AgentUri): unknown {
  const { raw: _raw, ...authority } = uri.authority;
  return {
    protocol: uri.protocol,
    authority: { ...authority, userinfo: authority.userinfo },
    pathSegments: uri.pathSegments,
    query: uri.query,
    fragment: uri.fragment,
    unixSocket: uri.unixSocket?.socketPath,
  };
}

describe('agent URI vectors: valid', () => {
  test('there are at least 80 vectors in all', () => {
    assert.ok(vectors.valid.length + vectors.invalid.length >= 80);
  });
  for (const vector of vectors.valid) {
    test(vector.name, () => {
      const uri = parseAgentUri(vector.input);
      if (vector.expect !== undefined) assertSubset(uri, vector.expect, 'uri');
      assert.equal(normalizeAgentUri(vector.input), vector.normalized ?? vector.input, 'normalized form');
      const again = normalizeAgentUri(normalizeAgentUri(vector.input));
      assert.equal(again, normalizeAgentUri(vector.input), 'normalisation is idempotent');
      const formatted = formatAgentUri(uri);
      assert.deepStrictEqual(meaning(parseAgentUri(formatted)), meaning(uri), `formatted as ${formatted}`);
      assert.equal(isAgentUri(vector.input), true);
    });
  }
});

describe('agent URI vectors: invalid', () => {
  for (const vector of vectors.invalid) {
    test(`${vector.name} → ${vector.part} error at ${vector.offset}`, () => {
      const result = tryParseAgentUri(vector.input);
      assert.equal(result.ok, false, 'must not parse');
      if (result.ok) return;
      const { error } = result;
      assert.ok(error instanceof AgentUriError);
      assert.equal(error.name, 'AgentUriError');
      assert.equal(error.part, vector.part, error.message);
      assert.equal(error.offset, vector.offset, error.message);
      assert.equal(error.input, vector.input);
      assert.match(error.message, /offset \d+/, 'the message says where');
      assert.throws(() => parseAgentUri(vector.input), AgentUriError);
      assert.equal(isAgentUri(vector.input), false);
    });
  }
});

describe("the draft's examples", () => {
  const spec = readSharedText('specs', '001_0c1058934a778260.txt');

  /** The bulleted examples of §4, read from the draft's text. */
  function section4Examples(): string[] {
    const start = spec.indexOf('Examples:', spec.indexOf('4.  URI Scheme Specification\n\n'));
    const end = spec.indexOf('4.1.  Components', start);
    return [...spec.slice(start, end).matchAll(/^\s*\*\s+(agent\S+)\s*$/gm)].map((match) => match[1]!);
  }

  test('§4 lists five examples and every one parses', () => {
    const examples = section4Examples();
    assert.equal(examples.length, 5, examples.join(', '));
    for (const example of examples) assert.equal(isAgentUri(example), true, example);
  });

  test('§4 examples parse to the parts the draft describes', () => {
    const [paris, claude, chatgpt, local, did] = section4Examples().map((example) => parseAgentUri(example));
    assert.deepEqual(paris?.pathSegments, ['planning', 'gen-iti']);
    assert.deepEqual(paris?.query, [['city', 'Paris']]);
    assert.equal(claude?.authority.host, 'planner.example.com');
    assert.equal(chatgpt?.transport, 'https');
    assert.equal(local?.transport, 'local');
    assert.equal(local?.authority.host, 'examplelocalagent');
    assert.equal(did?.authority.hostKind, 'did');
    assert.deepEqual(did?.authority.did, { method: 'web', id: 'example.com:agent:researcher' });
    assert.deepEqual(did?.pathSegments, ['get-article']);
  });

  test('every concrete agent URI in the draft parses (templates with <...> and [...] excluded)', () => {
    const found = new Set<string>();
    for (const match of spec.matchAll(/agent(?:\+[a-z]+)?:\/\/[^\s"'<>()[\]]*/g)) {
      const next = spec[match.index + match[0].length];
      // Figure 6 draws an arrow right after a URI ("...?text=Bonjour-->").
      const uri = match[0].replace(/[.,]$/, '').replace(next === '>' ? /-+$/ : /$^/, '');
      if (uri.endsWith('://') || next === '[' || next === '<') continue; // templates: agent://[authority], agent+<protocol>
      found.add(uri);
    }
    assert.ok(found.size >= 8, [...found].join(', '));
    for (const uri of found) assert.equal(isAgentUri(uri), true, uri);
  });
});

describe('formatAgentUri', () => {
  test('encodes decoded parts', () => {
    const text = formatAgentUri({
      authority: { host: 'example.com', port: 8443 },
      pathSegments: ['plan trip', 'a/b'],
      query: [
        ['city', 'São Paulo'],
        ['expr', '1+1=2&3'],
        ['tag', 'a'],
        ['tag', 'b'],
      ],
      fragment: 'day 2',
    });
    assert.equal(
      text,
      'agent://example.com:8443/plan%20trip/a%2Fb?city=S%C3%A3o%20Paulo&expr=1%2B1%3D2%263&tag=a&tag=b#day%202',
    );
    const uri = parseAgentUri(text);
    assert.deepEqual(uri.query[1], ['expr', '1+1=2&3']);
  });

  test('writes IPv6 hosts in brackets, DIDs, local names and unix socket paths', () => {
    assert.equal(formatAgentUri({ authority: { host: '::1', port: 80 } }), 'agent://[::1]:80');
    assert.equal(
      formatAgentUri({ authority: { host: 'did:web:example.com:a' }, pathSegments: ['x'] }),
      'agent://did:web:example.com:a/x',
    );
    assert.equal(
      formatAgentUri({ transport: 'local', authority: { host: 'my agent' } }),
      'agent+local://my%20agent',
    );
    assert.equal(
      formatAgentUri({ protocol: 'unix', authority: { host: '/run/a.sock' }, path: '/x' }),
      'agent+unix://%2Frun%2Fa.sock/x',
    );
    assert.equal(
      formatAgentUri({ protocol: 'unix', authority: '', path: '/run/a.sock/x' }),
      'agent+unix:///run/a.sock/x',
    );
  });

  test('takes an authority as text and encoded path and query as written', () => {
    assert.equal(
      formatAgentUri({ protocol: 'wss', authority: 'u@h.example:1', path: '/a%20b', queryString: 'x=1+2' }),
      'agent+wss://u@h.example:1/a%20b?x=1+2',
    );
    assert.equal(formatAgentUri({ authority: 'h.example', queryString: '' }), 'agent://h.example?');
  });

  test('parts that cannot make a URI throw an error naming the part', () => {
    const cases: Array<[Parameters<typeof formatAgentUri>[0], AgentUriPart]> = [
      [{ authority: { host: 'bad host' } }, 'host'],
      [{ authority: { host: 'example.com', port: 70000 } }, 'port'],
      [{ authority: { host: 'example.com', port: 1.5 } }, 'port'],
      [{ authority: { host: '' } }, 'authority'],
      [{ protocol: 'a.b', authority: 'x' }, 'protocol'],
      [{ authority: 'x', path: 'relative' }, 'path'],
      [{ authority: 'x', path: '/a b' }, 'path'],
      [{ authority: 'x', queryString: 'a b' }, 'query'],
      [{ authority: { userinfo: 'a@b', host: 'x' } }, 'userinfo'],
    ];
    for (const [parts, part] of cases) {
      assert.throws(
        () => formatAgentUri(parts),
        (error: unknown) => error instanceof AgentUriError && error.part === part,
        JSON.stringify(parts),
      );
    }
  });
});

describe('normalizeAgentUri', () => {
  test('takes parsed parts as well as text', () => {
    assert.equal(normalizeAgentUri(parseAgentUri('AGENT://EXAMPLE.com/a/../b')), 'agent://example.com/b');
  });

  test('equivalent spellings normalise to one', () => {
    const spellings = [
      'agent://example.com/a/b',
      'AGENT://Example.Com/a/b',
      'agent://example.com:/a/b',
      'agent://ex%61mple.com/%61/b',
      'agent://example.com/a/./c/../b',
    ];
    assert.equal(new Set(spellings.map((uri) => normalizeAgentUri(uri))).size, 1);
  });

  test('throws AgentUriError for invalid text', () => {
    assert.throws(() => normalizeAgentUri('agent://a b'), AgentUriError);
  });
});
