/**
 * Property tests of agent URIs: formatting then parsing gives back every decoded part; normalisation is idempotent
 * and yields a valid URI; and no string whatsoever makes the parser throw anything but an AgentUriError.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type AgentUri,
  AgentUriError,
  type AgentUriParts,
  formatAgentUri,
  normalizeAgentUri,
  parseAgentUri,
  tryParseAgentUri,
} from '../src/index.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const pathSegments = fc.array(text, { maxLength: 5 });
const query = fc.array(fc.tuple(text, text), { maxLength: 4 });
const fragment = fc.option(text, { nil: undefined });
const port = fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined });
const userinfo = fc.option(fc.stringMatching(/^([A-Za-z0-9._~!$&'()*+,;=:-]|%[0-9A-F]{2}){0,8}$/), {
  nil: undefined,
});

/** Parts with a network host (DNS, IPv4, IPv6) and any protocol that takes one. */
const networkParts: fc.Arbitrary<AgentUriParts> = fc.record(
  {
    protocol: fc.constantFrom('https', 'wss', 'matrix', 'grpc', 'x-1'),
    authority: fc.record(
      { userinfo, host: fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6()), port },
      { requiredKeys: ['host'] },
    ),
    pathSegments,
    query,
    fragment,
  },
  { requiredKeys: ['authority', 'pathSegments', 'query'] },
);

const didParts: fc.Arbitrary<AgentUriParts> = fc.record(
  {
    authority: fc.record({
      host: fc
        .tuple(
          fc.stringMatching(/^[a-z0-9]{1,8}$/),
          fc.array(fc.stringMatching(/^[A-Za-z0-9._-]{1,10}$/), { minLength: 1, maxLength: 4 }),
        )
        .map(([method, id]) => `did:${method}:${id.join(':')}`),
    }),
    pathSegments,
    query,
    fragment,
  },
  { requiredKeys: ['authority', 'pathSegments', 'query'] },
);

const localParts: fc.Arbitrary<AgentUriParts> = fc.record(
  {
    transport: fc.constant('local' as const),
    authority: fc.record({ host: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) }),
    pathSegments,
    query,
  },
  { requiredKeys: ['transport', 'authority', 'pathSegments', 'query'] },
);

const unixParts: fc.Arbitrary<AgentUriParts> = fc.record({
  transport: fc.constant('unix' as const),
  authority: fc.record({
    host: fc
      .array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 })
      .map((segments) => `/${segments.join('/')}`),
  }),
  pathSegments,
});

function hostOf(parts: AgentUriParts): string {
  return typeof parts.authority === 'string' ? parts.authority : parts.authority.host;
}

function assertRoundTrip(parts: AgentUriParts, expectedHost: string): AgentUri {
  const uri = parseAgentUri(formatAgentUri(parts));
  const authority = typeof parts.authority === 'string' ? undefined : parts.authority;
  assert.equal(uri.protocol, parts.protocol ?? parts.transport);
  assert.equal(uri.authority.host, expectedHost);
  assert.equal(uri.authority.port, authority?.port);
  assert.equal(uri.authority.userinfo, authority?.userinfo);
  assert.deepEqual(uri.pathSegments, parts.pathSegments ?? []);
  assert.deepEqual(uri.query, parts.query ?? []);
  assert.equal(uri.fragment, parts.fragment);
  return uri;
}

describe('agent URI properties', () => {
  test('parse(format(parts)) gives back the parts: network hosts', () => {
    fc.assert(
      fc.property(networkParts, (parts) => {
        assertRoundTrip(parts, hostOf(parts).toLowerCase());
      }),
      { numRuns: runs },
    );
  });

  test('parse(format(parts)) gives back the parts: DID authorities', () => {
    fc.assert(
      fc.property(didParts, (parts) => {
        const uri = assertRoundTrip(parts, hostOf(parts));
        assert.equal(`did:${uri.authority.did?.method}:${uri.authority.did?.id}`, hostOf(parts));
      }),
      { numRuns: runs },
    );
  });

  test('parse(format(parts)) gives back the parts: local agent names', () => {
    fc.assert(
      fc.property(localParts, (parts) => {
        assertRoundTrip(parts, hostOf(parts).toLowerCase());
      }),
      { numRuns: runs },
    );
  });

  test('parse(format(parts)) gives back the parts: unix socket paths', () => {
    fc.assert(
      fc.property(unixParts, (parts) => {
        const uri = assertRoundTrip(parts, hostOf(parts));
        assert.equal(uri.unixSocket?.socketPath, hostOf(parts));
      }),
      { numRuns: runs },
    );
  });

  /** Strings built from the pieces agent URIs are made of, so that many are valid and the rest fail deep inside. */
  const uriPiece = fc.constantFrom(
    'a',
    'Z',
    '0',
    '9',
    '-',
    '.',
    '..',
    '_',
    '~',
    '/',
    '//',
    '?',
    '#',
    '&',
    '=',
    '+',
    ':',
    '@',
    '[',
    ']',
    '::1',
    '%',
    '%2e',
    '%2F',
    '%41',
    '%C3%A9',
    '%FF',
    '%7E',
    'did:',
    'web:',
    'x.sock',
    'é',
    ' ',
    '\\',
    '!',
    '*',
    "'",
  );
  const uriLike = fc
    .tuple(
      fc.constantFrom(
        'agent://',
        'AGENT://',
        'agent+https://',
        'agent+WSS://',
        'agent+local://',
        'agent+unix://',
        'agent+x-y://',
        'agent:',
        'agent+',
      ),
      fc.array(uriPiece, { maxLength: 24 }).map((pieces) => pieces.join('')),
    )
    .map(([scheme, rest]) => scheme + rest);

  /** Mostly valid URIs in odd spellings: mixed case, percent-encodings, dot segments, empty ports. */
  const pathPiece = fc.constantFrom(
    'a',
    'B',
    '.',
    '..',
    '/',
    '%2e',
    '%2E',
    '%2f',
    '%41',
    '%7e',
    '%C3%A9',
    '~',
    ':',
    '@',
    '+',
    '=',
    '&',
  );
  const pieces = (max: number) => fc.array(pathPiece, { maxLength: max }).map((list) => list.join(''));
  const oddlySpelled = fc
    .tuple(
      fc.constantFrom('agent', 'AGENT', 'Agent+HTTPS', 'agent+wss', 'agent+Matrix', 'agent+x-1'),
      fc.constantFrom(
        'example.com',
        'EXAMPLE.Com',
        'ex%61mple.com',
        'ex%4Dmple.com',
        '[::1]',
        '[2001:DB8::A]',
        '127.0.0.1',
        'did:web:Ex.com%3a1',
        'u%7e@h.example',
        'localhost',
      ),
      fc.constantFrom('', ':', ':8080', ':0080'),
      fc
        .array(
          pieces(4).map((segment) => `/${segment}`),
          { maxLength: 5 },
        )
        .map((list) => list.join('')),
      fc.option(pieces(8), { nil: undefined }),
      fc.option(pieces(6), { nil: undefined }),
    )
    .map(
      ([scheme, host, port, path, query, fragment]) =>
        `${scheme}://${host}${port}${path}${query === undefined ? '' : `?${query}`}${fragment === undefined ? '' : `#${fragment}`}`,
    );
  const unixOrLocal = fc
    .tuple(
      fc.constantFrom(
        'agent+unix://',
        'agent+UNIX://%2FRun%2f',
        'agent+local://My%41gent',
        'agent+LOCAL://x',
      ),
      pieces(10),
    )
    .map(([prefix, rest]) =>
      prefix.startsWith('agent+unix://') && !prefix.includes('%')
        ? `${prefix}/${rest}.sock/${rest}`
        : `${prefix}${rest.startsWith('/') ? rest : `/${rest}`}`,
    );
  const wellFormed = fc.oneof(oddlySpelled, unixOrLocal);

  test('the generator of odd spellings yields valid URIs', () => {
    const sample = fc.sample(wellFormed, 500);
    assert.ok(sample.filter((input) => tryParseAgentUri(input).ok).length > 400);
  });

  test('normalisation is idempotent and yields an equivalent valid URI', () => {
    fc.assert(
      fc.property(fc.oneof(wellFormed, uriLike), (input) => {
        const parsed = tryParseAgentUri(input);
        if (!parsed.ok) return;
        const once = normalizeAgentUri(input);
        assert.equal(normalizeAgentUri(once), once, `${input} → ${once}`);
        const normal = parseAgentUri(once);
        assert.equal(normal.protocol, parsed.uri.protocol);
        assert.deepEqual(normal.query, parsed.uri.query);
        assert.equal(normal.fragment, parsed.uri.fragment);
      }),
      { numRuns: runs * 10 },
    );
  });

  test('format(parse(x)) re-parses to the same decoded parts', () => {
    fc.assert(
      fc.property(fc.oneof(wellFormed, uriLike), (input) => {
        const parsed = tryParseAgentUri(input);
        if (!parsed.ok) return;
        const again = parseAgentUri(formatAgentUri(parsed.uri));
        assert.deepEqual(again.pathSegments, parsed.uri.pathSegments);
        assert.deepEqual(again.query, parsed.uri.query);
        assert.equal(again.authority.host, parsed.uri.authority.host);
        assert.deepEqual(again.unixSocket?.socketPath, parsed.uri.unixSocket?.socketPath);
      }),
      { numRuns: runs * 10 },
    );
  });

  test('no string makes the parser throw anything but an AgentUriError', () => {
    const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), uriLike);
    fc.assert(
      fc.property(anyText, (input) => {
        try {
          parseAgentUri(input);
        } catch (error) {
          assert.ok(error instanceof AgentUriError, `${input}: ${String(error)}`);
          assert.ok(
            error.offset >= 0 && error.offset <= input.length,
            `offset ${error.offset} within ${input}`,
          );
          assert.ok(error.message.length > 0);
        }
        const result = tryParseAgentUri(input);
        assert.equal(typeof result.ok, 'boolean');
      }),
      { numRuns: runs * 10 },
    );
  });
});
