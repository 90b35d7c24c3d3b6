/**
 * The Node adapter's fast path must behave exactly like the web-standard objects it stands in for: the plain-path
 * shortcut like the URL parser, the lazy headers like a real `Headers`; and a caller that goes away still aborts
 * the handler's signal.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { incomingHeaders } from '../src/adapters/incoming-headers.js';
import { plainPath } from '../src/adapters/node-request.js';
import { defineAgent } from '../src/index.js';
import { startHost } from './support.js';

const runs = Number(process.env['FC_RUNS'] ?? 2000);

const pathCharacters = fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@/%?#[] \u00e9\\".split(''));
const targets = fc.oneof(
  fc.string({ unit: pathCharacters, maxLength: 40 }).map((rest) => `/${rest}`),
  fc.constantFrom(
    '/',
    '//x',
    '/./a',
    '/a/../b',
    '/a/.',
    '/a/..',
    '/agents/x/invoke',
    '/%2e%2e/a',
    '/a?b=c',
    '/a#frag',
  ),
);

describe('plainPath', () => {
  test('whenever it takes the shortcut, the path is what the URL parser would make of it', () => {
    fc.assert(
      fc.property(targets, (target) => {
        const plain = plainPath(target);
        if (plain !== undefined) assert.equal(plain, new URL(target, 'http://host.example').pathname);
      }),
      { numRuns: runs },
    );
  });

  test('takes the shortcut for ordinary paths, and not for ones the parser would change', () => {
    assert.equal(plainPath('/agents/summarizer/invoke'), '/agents/summarizer/invoke');
    for (const target of ['/a/../b', '/./a', '//evil.example/x', '/a?b', '/caf\u00e9', '/a b']) {
      assert.equal(plainPath(target), undefined, target);
    }
  });
});

describe('incomingHeaders', () => {
  const names = fc.constantFrom(
    'Content-Type',
    'content-type',
    'Accept',
    'X-API-Key',
    'x-api-key',
    'Cookie',
    'Set-Cookie',
    'X-Many',
  );
  const values = fc.string({ unit: fc.constantFrom(...'ab; =,"\t'.split('')), maxLength: 12 });
  const rawLines = fc.array(fc.tuple(names, values), { maxLength: 8 }).map((pairs) => pairs.flat());

  test('get and has answer as a real Headers built from the same lines would', () => {
    fc.assert(
      fc.property(rawLines, names, (raw, asked) => {
        const real = new Headers();
        for (let i = 0; i + 1 < raw.length; i += 2) real.append(raw[i]!, raw[i + 1]!);
        const lazy = incomingHeaders(raw);
        assert.equal(lazy.get(asked), real.get(asked));
        assert.equal(lazy.has(asked), real.has(asked));
        assert.deepEqual([...lazy.entries()], [...real.entries()]);
      }),
      { numRuns: runs },
    );
  });

  test('changes are kept once made', () => {
    const headers = incomingHeaders(['Accept', 'application/json']);
    headers.set('X-Extra', '1');
    headers.delete('accept');
    assert.equal(headers.get('x-extra'), '1');
    assert.equal(headers.get('accept'), null);
  });
});

describe('serveNode', () => {
  test("a caller that goes away mid-call aborts the handler's signal", async () => {
    let aborted: (reason: unknown) => void = () => {};
    const abortedReason = new Promise((resolve) => {
      aborted = resolve;
    });
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = defineAgent({
      id: 'slow',
      name: 'Slow',
      description: 'Waits until the caller goes away.',
      version: '1.0.0',
      operations: {
        wait: {
          description: 'Waits.',
          handler: (_input, context) =>
            new Promise((resolve) => {
              context.signal.addEventListener('abort', () => {
                aborted(context.signal.reason);
                resolve(null);
              });
              started();
            }),
        },
      },
    });
    const running = await startHost({ agents: [slow] });
    try {
      const url = new URL(`${running.url}/agents/slow/operations/wait`);
      const call = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
      call.on('error', () => {});
      call.end('{}');
      await handlerStarted;
      call.destroy();
      const reason = await abortedReason;
      assert.match(String((reason as Error)?.message ?? reason), /closed the connection/);
    } finally {
      await running.close();
    }
  });
});
