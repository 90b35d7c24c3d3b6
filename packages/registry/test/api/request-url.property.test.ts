/** The short ways to a request URL's origin and query parameters say what a full parse says. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hasQueryParameter, originOf, searchOf } from '../../src/api/request-url.js';

const urls = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom('http', 'https', 'HTTP'),
      fc.constantFrom(
        '127.0.0.1',
        'localhost',
        'Example.COM',
        'registry.example.com',
        '[::1]',
        'xn--bcher-kva.ch',
      ),
      fc.constantFrom('', ':80', ':443', ':8080', ':7420'),
      fc.constantFrom('', '/', '/agents', '/agents/x%2Fy'),
      fc.constantFrom('', '?q=1', '?%71=rain', '?tags=a&q', '?a=1#q=2', '#frag'),
    )
    .map((parts) => parts[0] + '://' + parts.slice(1).join('')),
);

describe('request URLs read without a full parse', () => {
  it('originOf is new URL(url).origin', () => {
    fc.assert(
      fc.property(urls, (url) => {
        assert.equal(originOf(url), new URL(url).origin);
      }),
      { numRuns: 500 },
    );
  });

  it('hasQueryParameter reads names as URLSearchParams decodes them, and ignores the fragment', () => {
    fc.assert(
      fc.property(urls, fc.constantFrom('q', 'tags', 'a'), (url, name) => {
        assert.equal(hasQueryParameter(url, name), new URL(url).searchParams.has(name));
      }),
      { numRuns: 500 },
    );
    assert.equal(hasQueryParameter('http://h/agents?%71=rain', 'q'), true);
  });

  it('searchOf is the query as sent, with its question mark', () => {
    assert.equal(searchOf('http://h/agents'), '');
    assert.equal(searchOf('http://h/agents?tags=a&x=%20#f'), '?tags=a&x=%20');
    fc.assert(
      fc.property(urls, (url) => {
        const search = searchOf(url);
        assert.equal(new URLSearchParams(search).toString(), new URL(url).searchParams.toString());
      }),
      { numRuns: 500 },
    );
  });
});
