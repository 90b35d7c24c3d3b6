/**
 * TLS: certificates are validated for the name in the URL even though the connection goes to a pinned address;
 * `policy.ca` adds a trusted CA; an untrusted, mismatched or self-signed certificate ends in a NetworkError.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rootCertificates } from 'node:tls';
import { generate } from 'selfsigned';
import { NetworkError } from '../src/fetch/errors.js';
import { effectivePolicy } from '../src/fetch/policy.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { FetchPolicy, SecureFetcher } from '../src/fetch/types.js';
import {
  type LoopbackServer,
  makeTlsMaterial,
  reply,
  startLoopback,
  type TlsMaterial,
  tableLookup,
} from './fetch-support.js';

describe('TLS', () => {
  let tls: TlsMaterial;
  let server: LoopbackServer;
  let selfSignedServer: LoopbackServer;
  const fetchers: SecureFetcher[] = [];
  const lookup = tableLookup({ 'agent.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });

  const fetcher = (policy: FetchPolicy): SecureFetcher => {
    const created = createSecureFetcher({ lookup, allowPrivateNetwork: true, cache: false, ...policy });
    fetchers.push(created);
    return created;
  };

  before(async () => {
    tls = await makeTlsMaterial(['agent.test'], ['127.0.0.1']);
    server = await startLoopback(
      (request, response) =>
        reply(response, 200, { 'content-type': 'text/plain' }, `host ${request.headers.host ?? ''}`),
      { tls },
    );
    const selfSigned = await generate([{ name: 'commonName', value: 'agent.test' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    selfSignedServer = await startLoopback((_request, response) => reply(response, 200, {}, 'self-signed'), {
      tls: { ca: selfSigned.cert, key: selfSigned.private, cert: selfSigned.cert },
    });
  });

  after(async () => {
    await Promise.all(fetchers.map((each) => each.close()));
    await Promise.all([server.close(), selfSignedServer.close()]);
  });

  it('validates the certificate for the name, with the test CA added through policy.ca', async () => {
    const result = await fetcher({ ca: tls.ca }).fetch(`https://agent.test:${server.port}/doc`);
    assert.equal(result.response.status, 200);
    assert.equal(await result.response.text(), `host agent.test:${server.port}`);
    assert.equal(result.url, `https://agent.test:${server.port}/doc`);
  });

  it('validates an IP address URL against the certificate IP names', async () => {
    const result = await fetcher({ ca: tls.ca }).fetch(`https://127.0.0.1:${server.port}/`);
    assert.equal(result.response.status, 200);
  });

  it('accepts policy.ca as a list', async () => {
    const extra = await makeTlsMaterial(['unrelated.test']);
    const result = await fetcher({ ca: [extra.ca, tls.ca] }).fetch(`https://agent.test:${server.port}/`);
    assert.equal(result.response.status, 200);
  });

  it('refuses a certificate from a CA it does not trust, with a NetworkError', async () => {
    const before = server.requests.length;
    await assert.rejects(fetcher({}).fetch(`https://agent.test:${server.port}/`), (error: unknown) => {
      assert.ok(error instanceof NetworkError, String(error));
      assert.match(error.message, /TLS certificate of agent\.test/);
      return true;
    });
    assert.equal(server.requests.length, before, 'no request was sent over the untrusted connection');
  });

  it('refuses a certificate for another name, though the address is the same', async () => {
    await assert.rejects(
      fetcher({ ca: tls.ca }).fetch(`https://other.test:${server.port}/`),
      (error: unknown) => {
        assert.ok(error instanceof NetworkError);
        assert.match(error.message, /other\.test/);
        return true;
      },
    );
  });

  it('refuses a self-signed certificate', async () => {
    await assert.rejects(fetcher({}).fetch(`https://agent.test:${selfSignedServer.port}/`), NetworkError);
  });

  it('says a server that answers https:// in plain HTTP is a plain HTTP server, not a bad certificate', async () => {
    const plain = await startLoopback((_request, response) => reply(response, 200, {}, 'plain'));
    try {
      const url = `https://127.0.0.1:${plain.port}/agent.json?x=1`;
      await assert.rejects(fetcher({}).fetch(url), (error: unknown) => {
        assert.ok(error instanceof NetworkError, String(error));
        assert.match(
          error.message,
          new RegExp(
            `answered in plain HTTP, not TLS; use http://127\\.0\\.0\\.1:${plain.port}/agent\\.json\\?x=1`,
          ),
        );
        assert.doesNotMatch(error.message, /certificate/i);
        return true;
      });
    } finally {
      await plain.close();
    }
  });

  it('adds extra CAs to the bundled roots rather than replacing them', () => {
    // Node's `ca` option replaces the bundled roots, so the policy passes both.
    const trusted = effectivePolicy({ ca: tls.ca }).ca ?? [];
    assert.ok(trusted.includes(tls.ca));
    for (const root of rootCertificates) assert.ok(trusted.includes(root));
    assert.equal(
      effectivePolicy({}).ca,
      undefined,
      'no ca option at all: the bundled roots are used as they are',
    );
  });
});
