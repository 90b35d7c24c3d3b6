/**
 * The SSRF suite (test/vectors/ssrf.json): every hostile target, fetched directly or reached through a redirect from
 * an allowed origin, is refused with the expected reason, and the loopback "victim" server that every private
 * address and name in the file would reach sees no connection at all.
 *
 * The allowed origin: `public.test` resolves (through the test lookup) to 127.0.0.1, and the policy allows exactly
 * 127.0.0.1 on the two allowed servers' ports through `allowAddresses`, so it stands in for a public origin without
 * opening loopback as a whole. The victim listens on other ports, on 127.0.0.1 and ::1.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { get as httpsGet } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { classifyAddress } from '../src/fetch/address-policy.js';
import { FetchRefusedError, type RefusalReason } from '../src/fetch/errors.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import { resolveSocketTarget } from '../src/fetch/socket-target.js';
import type { FetchPolicy, SecureFetcher } from '../src/fetch/types.js';
import {
  type LoopbackServer,
  makeTlsMaterial,
  reply,
  startLoopback,
  type TlsMaterial,
  tableLookup,
} from './fetch-support.js';

interface TargetCase {
  name: string;
  target: string;
  reason: RefusalReason;
  policy?: 'default' | 'https-only';
}

interface RedirectCase {
  name: string;
  location: string;
  reason: RefusalReason;
  policy?: 'default' | 'https-only';
  via?: 'http' | 'https';
  status?: number;
  method?: string;
  hops?: number;
}

interface AddressCase {
  address: string;
  public: boolean;
  range?: string;
  embeds?: string;
}

interface Vectors {
  names: Record<string, string[]>;
  addresses: AddressCase[];
  targets: TargetCase[];
  redirects: RedirectCase[];
  rebinding: { name: string; answers: string[][]; path: string };
}

const vectors = JSON.parse(readFileSync(new URL('./vectors/ssrf.json', import.meta.url), 'utf8')) as Vectors;

const ALLOWED_BY: Partial<Record<RefusalReason, string>> = {
  'private-address': '--allow-private-network',
  'http-not-allowed': '--allow-http',
};

/** Redirects to `?to=` with `?status=` (default 302); anything else answers 200. */
function redirector(request: { url?: string | undefined }, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://x');
  const to = url.searchParams.get('to');
  if (url.pathname === '/redirect' && to !== null) {
    reply(response, Number(url.searchParams.get('status') ?? 302), { location: to });
  } else {
    reply(response, 200, { 'content-type': 'text/plain' }, `allowed origin: ${url.pathname}`);
  }
}

describe('SSRF vectors', () => {
  let tls: TlsMaterial;
  let victim: LoopbackServer;
  let victim6: LoopbackServer | undefined;
  let allowed: LoopbackServer;
  let allowedTls: LoopbackServer;
  const fetchers: SecureFetcher[] = [];
  const lookup = tableLookup(vectors.names);

  const fill = (text: string): string =>
    text
      .replaceAll('{victim}', String(victim.port))
      .replaceAll('{allowedTls}', String(allowedTls.port))
      .replaceAll('{allowed}', String(allowed.port));

  const fetcherFor = (policy: 'default' | 'https-only' = 'default'): SecureFetcher => {
    const settings: FetchPolicy = {
      allowHttp: policy === 'default',
      lookup,
      ca: tls.ca,
      allowAddresses: [`127.0.0.1:${allowed.port}`, `127.0.0.1:${allowedTls.port}`],
      timeoutMs: 5000,
    };
    const fetcher = createSecureFetcher(settings);
    fetchers.push(fetcher);
    return fetcher;
  };

  const assertRefused = async (fetching: Promise<unknown>, reason: RefusalReason, label: string) => {
    await assert.rejects(fetching, (error: unknown) => {
      assert.ok(
        error instanceof FetchRefusedError,
        `${label}: expected FetchRefusedError, got ${String(error)}`,
      );
      assert.equal(error.reason, reason, `${label}: ${error.message}`);
      assert.equal(error.allowedBy, ALLOWED_BY[reason], label);
      assert.ok(error.message.length > 0);
      return true;
    });
  };

  before(async () => {
    tls = await makeTlsMaterial(['public.test'], ['127.0.0.1']);
    victim = await startLoopback((_request, response) => reply(response, 200, {}, 'the victim answered'));
    victim6 = await startLoopback((_request, response) => reply(response, 200, {}, 'the victim answered'), {
      host: '::1',
      port: victim.port,
    }).catch(() => undefined);
    allowed = await startLoopback(redirector);
    allowedTls = await startLoopback(redirector, { tls });
  });

  after(async () => {
    await Promise.all(fetchers.map((fetcher) => fetcher.close()));
    await Promise.all([victim.close(), victim6?.close(), allowed.close(), allowedTls.close()]);
  });

  it('holds at least 50 hostile targets', () => {
    assert.ok(vectors.targets.length + vectors.redirects.length >= 50);
  });

  it('classifies every address in the table', () => {
    for (const vector of vectors.addresses) {
      const verdict = classifyAddress(vector.address);
      assert.equal(verdict.public, vector.public, vector.address);
      if (!verdict.public) {
        assert.equal(verdict.range, vector.range, vector.address);
        assert.equal(verdict.embeds?.range, vector.embeds, vector.address);
      }
    }
  });

  it('reaches the allowed origins (the setup refuses only what it should)', async () => {
    const result = await fetcherFor().fetch(`http://public.test:${allowed.port}/ok`);
    assert.equal(result.response.status, 200);
    assert.equal(await result.response.text(), 'allowed origin: /ok');
    const secure = await fetcherFor('https-only').fetch(`https://public.test:${allowedTls.port}/ok`);
    assert.equal(secure.response.status, 200);
  });

  it('refuses every target fetched directly', async () => {
    const before = allowed.requests.length + allowedTls.requests.length;
    for (const vector of vectors.targets) {
      const fetcher = fetcherFor(vector.policy);
      await assertRefused(fetcher.fetch(fill(vector.target)), vector.reason, vector.name);
    }
    assert.equal(
      allowed.requests.length + allowedTls.requests.length,
      before,
      'no direct target reached an allowed origin',
    );
  });

  it('refuses every redirect to a hostile target', async () => {
    const seenBefore = { http: allowed.requests.length, https: allowedTls.requests.length };
    let expectedRequests = 0;
    for (const vector of vectors.redirects) {
      const origin =
        vector.via === 'https'
          ? `https://public.test:${allowedTls.port}`
          : `http://public.test:${allowed.port}`;
      const query = new URLSearchParams({ to: fill(vector.location), status: String(vector.status ?? 302) });
      const fetcher = fetcherFor(vector.policy);
      const init = vector.method === undefined ? {} : { method: vector.method, body: '{}' };
      await assertRefused(fetcher.fetch(`${origin}/redirect?${query}`, init), vector.reason, vector.name);
      expectedRequests += vector.hops ?? 1;
    }
    const seen = [...allowed.requests.slice(seenBefore.http), ...allowedTls.requests.slice(seenBefore.https)];
    assert.equal(seen.length, expectedRequests, 'only the redirecting requests reached the allowed origins');
    for (const request of seen) assert.ok(request.url.startsWith('/redirect?'), request.url);
  });

  it('looks a name up once per request and connects to the address it checked (no rebinding)', async () => {
    const { name, answers, path } = vectors.rebinding;
    // The victim of the rebinding listens on the private address of the second answer (another loopback address,
    // which Linux always has), at the allowed port.
    const rebindVictim = await startLoopback((_request, response) => reply(response, 200, {}, 'rebound!'), {
      host: answers[1]![0]!,
      port: allowed.port,
    });
    let calls = 0;
    const rebinding = async (hostname: string) => {
      if (hostname !== name) return lookup(hostname);
      const answer = answers[Math.min(calls++, answers.length - 1)]!;
      return answer.map((address) => ({
        address,
        family: address.includes(':') ? (6 as const) : (4 as const),
      }));
    };
    const fetcher = createSecureFetcher({
      allowHttp: true,
      lookup: rebinding,
      allowAddresses: [`127.0.0.1:${allowed.port}`],
      cache: false,
    });
    fetchers.push(fetcher);
    try {
      const url = `http://${name}:${allowed.port}${path}`;
      const first = await fetcher.fetch(url);
      assert.equal(await first.response.text(), `allowed origin: ${path}`);
      assert.equal(calls, 1, 'one lookup for one request');
      await assertRefused(
        fetcher.fetch(url),
        'private-address',
        'the second request sees the rebound answer',
      );
      assert.equal(calls, 2);
      assert.equal(rebindVictim.connections, 0, 'nothing reached the rebound address');
    } finally {
      await rebindVictim.close();
    }
  });

  it('holds socket transports (ws:, wss:) to the same rules, pinning the checked address', async () => {
    const policy = { lookup, allowAddresses: [`127.0.0.1:${allowedTls.port}`] };
    await assertRefused(
      resolveSocketTarget(`ws://public.test:${allowed.port}/`, policy),
      'http-not-allowed',
      'ws',
    );
    await assertRefused(
      resolveSocketTarget(`ws://loopback.test:${victim.port}/`, { ...policy, allowHttp: true }),
      'private-address',
      'ws to loopback',
    );
    await assertRefused(
      resolveSocketTarget(`wss://[::1]:${victim.port}/`, policy),
      'private-address',
      'wss literal',
    );
    await assertRefused(resolveSocketTarget('gopher://public.test/', policy), 'scheme', 'gopher');
    const target = await resolveSocketTarget(`wss://public.test:${allowedTls.port}/socket`, policy);
    assert.deepEqual(
      [target.hostname, target.port, target.address, target.family],
      ['public.test', allowedTls.port, '127.0.0.1', 4],
    );
    // The pinned lookup, used the way a socket transport would: TLS still verifies the certificate for the name.
    const body = await new Promise<string>((resolve, reject) => {
      const request = httpsGet(
        {
          host: 'public.test',
          port: target.port,
          path: '/socket',
          lookup: target.lookup,
          ca: tls.ca,
          agent: false,
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += String(chunk);
          });
          response.on('end', () => resolve(text));
        },
      );
      request.on('error', reject);
    });
    assert.equal(body, 'allowed origin: /socket');
  });

  it('let nothing reach the victim', () => {
    assert.equal(victim.connections, 0);
    assert.equal(victim.requests.length, 0);
    assert.equal(victim6?.connections ?? 0, 0);
  });
});

describe('SSRF victim control', () => {
  it('the victim setup would log a request that got through (with allowPrivateNetwork)', async () => {
    const control = await startLoopback((_request, response) => reply(response, 200, {}, 'reached'));
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true });
    try {
      const result = await fetcher.fetch(`http://2130706433:${control.port}/`);
      assert.equal(await result.response.text(), 'reached');
      assert.equal(control.connections, 1);
      assert.equal(control.requests.length, 1);
    } finally {
      await fetcher.close();
      await control.close();
    }
  });
});
