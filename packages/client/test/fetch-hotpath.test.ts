/**
 * The request hot path keeps every rule while doing less per request: address verdicts are remembered per address
 * (never what a name resolves to), connections are reused, the Host field is always the URL's, answers are collected
 * by a dispatch handler (informational answers, redirects with long bodies, odd field-name case), long deadlines run
 * on a shared clock, and a buffered response's `Headers` read the field pairs in place, behaving as `new Headers`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BufferedResponse } from '../src/fetch/buffered-response.js';
import { FetchRefusedError, FetchTimeoutError } from '../src/fetch/errors.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { FetchPolicy, SecureFetcher } from '../src/fetch/types.js';
import { type LoopbackServer, reply, startLoopback } from './fetch-support.js';

describe('request hot path', () => {
  let server: LoopbackServer;
  const fetchers: SecureFetcher[] = [];
  const hanging = new Set<{ destroy(): void }>();

  const fetcher = (policy: FetchPolicy = {}): SecureFetcher => {
    const created = createSecureFetcher({ allowHttp: true, cache: false, ...policy });
    fetchers.push(created);
    return created;
  };

  before(async () => {
    server = await startLoopback((request, response) => {
      const path = request.url ?? '/';
      if (path === '/echo-host') {
        reply(response, 200, { 'content-type': 'text/plain' }, request.headers.host ?? '');
      } else if (path === '/early-hints') {
        response.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        reply(response, 200, { 'content-type': 'text/plain' }, 'after the hints');
      } else if (path === '/redirect-with-long-body') {
        response.writeHead(302, { location: '/target', 'content-length': String(512 * 1024) });
        response.end('r'.repeat(512 * 1024));
      } else if (path === '/target') {
        reply(response, 200, {}, 'target reached');
      } else if (path === '/mixed-case') {
        response.setHeader('X-Mixed-Case', 'Value As Sent');
        response.setHeader('Set-Cookie', ['a=1', 'b=2']);
        reply(response, 200, { 'Content-Type': 'application/json' }, '{"ok":true}');
      } else if (path === '/no-answer') {
        hanging.add(response);
      } else {
        reply(response, 200, { 'content-type': 'text/plain' }, `${request.method} ${path}`);
      }
    });
  });

  after(async () => {
    await Promise.all(fetchers.map((each) => each.close()));
    for (const response of hanging) response.destroy();
    await server.close();
  });

  it('checks every answer of every lookup: an allowed verdict for one address never covers another', async () => {
    const answers = ['127.0.0.1', '127.0.0.2', '127.0.0.1', '127.0.0.2'];
    let calls = 0;
    const lookup = async () => [{ address: answers[calls++]!, family: 4 as const }];
    const guarded = fetcher({ lookup, allowAddresses: [`127.0.0.1:${server.port}`] });
    const url = `http://service.test:${server.port}/checked`;
    const before = server.requests.length;
    for (const [i, address] of answers.entries()) {
      if (address === '127.0.0.1') {
        assert.equal(await (await guarded.fetch(url)).response.text(), 'GET /checked');
      } else {
        await assert.rejects(guarded.fetch(url), (error: unknown) => {
          assert.ok(error instanceof FetchRefusedError, String(error));
          assert.equal(error.reason, 'private-address');
          assert.match(error.message, /127\.0\.0\.2/);
          return true;
        });
      }
      assert.equal(calls, i + 1, 'one lookup per request');
    }
    assert.equal(server.requests.length - before, 2);
  });

  it('checks the port too: the allowed address on another port is refused, however often it was allowed', async () => {
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const guarded = fetcher({ lookup, allowAddresses: [`127.0.0.1:${server.port}`] });
    for (let i = 0; i < 3; i++)
      await (await guarded.fetch(`http://service.test:${server.port}/`)).response.text();
    const otherPort = server.port === 65535 ? server.port - 1 : server.port + 1;
    await assert.rejects(guarded.fetch(`http://service.test:${otherPort}/`), (error: unknown) => {
      assert.ok(error instanceof FetchRefusedError);
      assert.equal(error.reason, 'private-address');
      return true;
    });
  });

  it('reuses its connections: sequential requests open no new ones once the pool is warm', async () => {
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const reusing = fetcher({ lookup, allowAddresses: [`127.0.0.1:${server.port}`] });
    const send = async (i: number): Promise<void> => {
      const method = i % 2 === 0 ? 'GET' : 'POST';
      const init = method === 'POST' ? { method, body: `{"n":${i}}` } : { method };
      const result = await reusing.fetch(`http://service.test:${server.port}/n/${i}`, init);
      assert.equal(await result.response.text(), `${method} /n/${i}`);
    };
    const before = server.connections;
    // undici's pool may open a second connection for the second request while the first is being released.
    for (let i = 0; i < 4; i++) await send(i);
    const warm = server.connections;
    assert.ok(warm - before <= 2, `${warm - before} connections for 4 requests`);
    for (let i = 4; i < 40; i++) await send(i);
    assert.equal(server.connections, warm);
  });

  it('always sends the Host of the URL, whatever Host the caller set', async () => {
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const result = await fetcher({ lookup, allowAddresses: [`127.0.0.1:${server.port}`] }).fetch(
      `http://service.test:${server.port}/echo-host`,
      { headers: { Host: 'other.test', HOST: 'another.test' } },
    );
    assert.equal(await result.response.text(), `service.test:${server.port}`);
  });

  it('reads the final answer after informational ones', async () => {
    const result = await fetcher({ allowPrivateNetwork: true }).fetch(`${server.origin}/early-hints`);
    assert.equal(result.response.status, 200);
    assert.equal(result.response.headers.get('link'), null);
    assert.equal(await result.response.text(), 'after the hints');
  });

  it('follows a redirect whose body is too long to drain', async () => {
    const result = await fetcher({ allowPrivateNetwork: true }).fetch(
      `${server.origin}/redirect-with-long-body`,
    );
    assert.equal(await result.response.text(), 'target reached');
    assert.deepEqual(result.redirects, [`${server.origin}/target`]);
  });

  it('gives field names in lower case and values as sent, repeated fields as Headers does', async () => {
    const { response } = await fetcher({ allowPrivateNetwork: true }).fetch(`${server.origin}/mixed-case`);
    assert.equal(response.headers.get('x-mixed-case'), 'Value As Sent');
    assert.equal(response.headers.get('X-MIXED-CASE'), 'Value As Sent');
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual(await response.json(), { ok: true });
  });

  it('answers HEAD without reading a body', async () => {
    const result = await fetcher({ allowPrivateNetwork: true }).fetch(`${server.origin}/head`, {
      method: 'HEAD',
    });
    assert.equal(result.response.status, 200);
    assert.equal(await result.response.text(), '');
  });

  it('times out a request of a second or more (the shared clock)', async () => {
    await assert.rejects(
      fetcher({ allowPrivateNetwork: true, timeoutMs: 1000 }).fetch(`${server.origin}/no-answer`),
      (error: unknown) => {
        assert.ok(error instanceof FetchTimeoutError, String(error));
        assert.match(error.message, /1000 ms/);
        return true;
      },
    );
  });

  it('passes on the caller abort reason while waiting on the shared clock', async () => {
    const controller = new AbortController();
    const fetching = fetcher({ allowPrivateNetwork: true, timeoutMs: 60_000 }).fetch(
      `${server.origin}/no-answer`,
      { signal: controller.signal },
    );
    setImmediate(() => controller.abort(new Error('caller gave up')));
    await assert.rejects(fetching, /caller gave up/);
  });
});

describe('BufferedResponse headers', () => {
  const token = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/);
  const names = fc.oneof(
    token,
    token.map((name) => name.toLowerCase()),
    fc.constantFrom('content-type', 'set-cookie', 'cookie', 'vary', 'Set-Cookie', 'COOKIE'),
  );
  const values = fc.oneof(
    fc.stringMatching(/^[\t\x20-\x7e\x80-\xff]{0,16}$/),
    fc.constantFrom('', ' padded ', '\tx', 'a, b', 'k=v; k2=v2'),
  );
  const pairs = fc.array(fc.tuple(names, values), { maxLength: 8 });

  /** Everything a reader can observe of a Headers, or the error it throws. */
  const observe = (headers: Headers, probes: readonly string[]): unknown => {
    const seen: unknown[] = [];
    const attempt = (what: () => unknown): void => {
      try {
        seen.push(what());
      } catch (error) {
        seen.push(`throws ${(error as Error).name}`);
      }
    };
    for (const name of probes) {
      attempt(() => headers.get(name));
      attempt(() => headers.has(name));
    }
    attempt(() => {
      const each: unknown[] = [];
      headers.forEach((value, name, self) => {
        each.push([name, value, self === headers]);
      });
      return each;
    });
    attempt(() => [...headers]);
    attempt(() => headers.getSetCookie());
    return seen;
  };

  it('behave as new Headers(pairs), read first and after a change', () => {
    fc.assert(
      fc.property(pairs, fc.array(names, { maxLength: 4 }), (list, others) => {
        const init = list as Array<[string, string]>;
        // The names present, in other case, cut short, and others.
        const present = list.map(([name]) => name);
        const probes = [
          ...others,
          ...present,
          ...present.map((name) => name.toUpperCase()),
          ...present.map((name) => name.slice(0, -1)).filter((name) => name !== ''),
        ];
        const fresh = (): Headers => new BufferedResponse(null, { status: 200, headers: init }).headers;
        let expected: Headers;
        try {
          expected = new Headers(init);
        } catch (error) {
          assert.throws(fresh, (error as Error).constructor as new () => Error);
          return;
        }
        const actual = fresh();
        assert.ok(actual instanceof Headers);
        assert.deepEqual(observe(actual, probes), observe(expected, probes));
        // Copied unread, as `new Response(body, { headers })` copies them.
        assert.deepEqual(observe(new Headers(fresh()), probes), observe(new Headers(expected), probes));
        // Changed after reading, and unread.
        const change = (headers: Headers): Headers => {
          headers.append('x-added', 'later');
          headers.delete(probes[0] ?? 'vary');
          return headers;
        };
        const changed = observe(change(new Headers(init)), [...probes, 'x-added']);
        assert.deepEqual(observe(change(actual), [...probes, 'x-added']), changed);
        assert.deepEqual(observe(change(fresh()), [...probes, 'x-added']), changed);
      }),
      { numRuns: 500 },
    );
  });

  it('combine repeated fields and call back as Headers does', () => {
    const init: Array<[string, string]> = [
      ['vary', 'accept'],
      ['cookie', 'a=1'],
      ['x-b', '2'],
      ['cookie', 'b=2'],
      ['vary', 'origin'],
      ['a-first', '1'],
    ];
    const actual = new BufferedResponse(null, { headers: init }).headers;
    const expected = new Headers(init);
    for (const name of ['cookie', 'vary', 'x-b', 'Cookie'])
      assert.equal(actual.get(name), expected.get(name));
    const calls = (headers: Headers): unknown[] => {
      const seen: unknown[] = [];
      const self = { marker: true };
      headers.forEach(function (this: unknown, value, name, owner) {
        seen.push([name, value, this === self, owner === headers]);
      }, self);
      return seen;
    };
    assert.deepEqual(calls(actual), calls(expected));
    assert.deepEqual(calls(actual)[0], ['a-first', '1', true, true]);
  });

  it('refuse what Headers refuses', () => {
    const headers = new BufferedResponse(null, { headers: [['content-type', 'text/plain']] }).headers;
    assert.throws(() => headers.get('bad name'), TypeError);
    assert.throws(() => headers.has('bad name'), TypeError);
    assert.throws(() => (headers.get as (...args: unknown[]) => unknown)(), TypeError);
    assert.throws(() => headers.forEach(undefined as unknown as () => void), TypeError);
    assert.equal(headers.get('content-type'), 'text/plain');
  });

  it('are copied whole into a new Response and shown whole', async () => {
    const original = new BufferedResponse(new TextEncoder().encode('hi'), {
      status: 201,
      headers: [
        ['content-type', 'text/plain'],
        ['x-one', '1'],
      ],
    });
    const copy = new Response('x', { headers: original.headers });
    assert.equal(copy.headers.get('x-one'), '1');
    const clone = original.clone();
    assert.equal(clone.headers.get('content-type'), 'text/plain');
    assert.equal(await clone.text(), 'hi');
    const { inspect } = await import('node:util');
    assert.match(inspect(original.headers), /x-one/);
  });
});
