/**
 * Redirects are followed by hand: each hop re-checked (see the SSRF suite for hostile targets), counted against
 * maxRedirects, watched for loops, with fetch's rules for methods, bodies and credentials.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { FetchRefusedError } from '../src/fetch/errors.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { FetchPolicy, SecureFetcher } from '../src/fetch/types.js';
import { type LoopbackServer, reply, startLoopback } from './fetch-support.js';

interface Echo {
  method: string;
  path: string;
  body: string;
  authorization: string | null;
  contentType: string | null;
}

describe('redirects', () => {
  let server: LoopbackServer;
  let other: LoopbackServer;
  const fetchers: SecureFetcher[] = [];

  const fetcher = (policy: FetchPolicy = {}): SecureFetcher => {
    const created = createSecureFetcher({
      allowHttp: true,
      allowPrivateNetwork: true,
      cache: false,
      ...policy,
    });
    fetchers.push(created);
    return created;
  };

  const echo = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let body = '';
    for await (const chunk of request) body += String(chunk);
    const answer: Echo = {
      method: request.method ?? '',
      path: request.url ?? '',
      body,
      authorization: request.headers.authorization ?? null,
      contentType: request.headers['content-type'] ?? null,
    };
    reply(response, 200, { 'content-type': 'application/json' }, JSON.stringify(answer));
  };

  before(async () => {
    other = await startLoopback((request, response) => void echo(request, response));
    server = await startLoopback((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const steps = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (steps !== null) {
        const left = Number(steps[1]);
        if (left === 0) return void echo(request, response);
        return reply(response, 302, { location: `/chain/${left - 1}` });
      }
      switch (url.pathname) {
        case '/status':
          return reply(response, Number(url.searchParams.get('code')), {
            location: url.searchParams.get('to') ?? '/echo',
          });
        case '/a':
          return reply(response, 302, { location: '/b' });
        case '/b':
          return reply(response, 302, { location: `${server.origin}/a` });
        case '/self':
          return reply(response, 301, { location: '/self#again' });
        case '/to-other':
          return reply(response, 307, { location: `${other.origin}/echo` });
        case '/no-location':
          return reply(response, 302, {}, 'no location');
        case '/bad-location':
          return reply(response, 302, { location: 'http://[::1' });
        case '/relative':
          return reply(response, 302, { location: '../echo?from=relative' });
        default:
          return void echo(request, response);
      }
    });
  });

  after(async () => {
    await Promise.all(fetchers.map((each) => each.close()));
    await Promise.all([server.close(), other.close()]);
  });

  it('follows each redirect status and reports the chain', async () => {
    for (const code of [301, 302, 303, 307, 308]) {
      const result = await fetcher().fetch(`${server.origin}/status?code=${code}`);
      assert.equal(result.response.status, 200, String(code));
      assert.equal(result.url, `${server.origin}/echo`);
      assert.deepEqual(result.redirects, [`${server.origin}/echo`]);
      assert.equal(result.response.redirected, true);
      assert.equal(result.response.url, `${server.origin}/echo`);
    }
  });

  it('resolves a relative Location against the current URL', async () => {
    const result = await fetcher().fetch(`${server.origin}/relative`);
    const echoed = (await result.response.json()) as Echo;
    assert.equal(echoed.path, '/echo?from=relative');
  });

  it('follows up to maxRedirects and refuses one more', async () => {
    const result = await fetcher({ maxRedirects: 3 }).fetch(`${server.origin}/chain/3`);
    assert.equal(result.redirects.length, 3);
    await assert.rejects(fetcher({ maxRedirects: 3 }).fetch(`${server.origin}/chain/4`), (error: unknown) => {
      assert.ok(error instanceof FetchRefusedError);
      assert.equal(error.reason, 'too-many-redirects');
      assert.match(error.message, /maxRedirects/);
      return true;
    });
    const defaults = await fetcher().fetch(`${server.origin}/chain/5`);
    assert.equal(defaults.redirects.length, 5);
    await assert.rejects(fetcher().fetch(`${server.origin}/chain/6`), { reason: 'too-many-redirects' });
  });

  it('follows no redirect at all with maxRedirects 0', async () => {
    await assert.rejects(fetcher({ maxRedirects: 0 }).fetch(`${server.origin}/chain/1`), {
      reason: 'too-many-redirects',
    });
  });

  it('detects a loop before running out of redirects', async () => {
    const before = server.requests.length;
    await assert.rejects(fetcher({ maxRedirects: 20 }).fetch(`${server.origin}/a`), (error: unknown) => {
      assert.ok(error instanceof FetchRefusedError);
      assert.equal(error.reason, 'redirect-loop');
      return true;
    });
    assert.equal(server.requests.length - before, 2, 'the loop is seen without requesting /a again');
    await assert.rejects(fetcher({ maxRedirects: 20 }).fetch(`${server.origin}/self`), {
      reason: 'redirect-loop',
    });
  });

  it('turns POST into GET without a body on 303, 302 and 301', async () => {
    for (const code of [301, 302, 303]) {
      const result = await fetcher().fetch(`${server.origin}/status?code=${code}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"x":1}',
      });
      const echoed = (await result.response.json()) as Echo;
      assert.equal(echoed.method, 'GET', String(code));
      assert.equal(echoed.body, '');
      assert.equal(echoed.contentType, null);
    }
  });

  it('keeps method and body on 307 and 308', async () => {
    for (const code of [307, 308]) {
      const result = await fetcher().fetch(`${server.origin}/status?code=${code}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode('{"x":2}'),
      });
      const echoed = (await result.response.json()) as Echo;
      assert.equal(echoed.method, 'PUT');
      assert.equal(echoed.body, '{"x":2}');
      assert.equal(echoed.contentType, 'application/json');
    }
  });

  it('keeps credentials on the same origin and drops them on another', async () => {
    const headers = { Authorization: 'Bearer secret' };
    const same = await fetcher().fetch(`${server.origin}/status?code=302`, { headers });
    assert.equal(((await same.response.json()) as Echo).authorization, 'Bearer secret');
    const cross = await fetcher().fetch(`${server.origin}/to-other`, { headers });
    assert.equal(((await cross.response.json()) as Echo).authorization, null);
  });

  it('hands back a redirect without Location as it is', async () => {
    const result = await fetcher().fetch(`${server.origin}/no-location`);
    assert.equal(result.response.status, 302);
    assert.equal(await result.response.text(), 'no location');
    assert.deepEqual(result.redirects, []);
  });

  it('refuses a Location that is not a URL', async () => {
    await assert.rejects(fetcher().fetch(`${server.origin}/bad-location`), { reason: 'invalid-url' });
  });
});
