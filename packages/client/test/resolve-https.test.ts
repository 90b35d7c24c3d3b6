/**
 * Resolution over HTTPS, the default: agent:// authorities and did:web read their documents with TLS, against a
 * loopback server with a throwaway certificate the fetcher is told to trust.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generate } from 'selfsigned';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { SecureFetcher } from '../src/fetch/types.js';
import { resolve } from '../src/resolve/index.js';

const WOA_DOCUMENT = readFileSync(
  join(import.meta.dirname, '../../../examples/documents/summarizer.woa.json'),
  'utf8',
);

describe('resolution over HTTPS', () => {
  let server: Server;
  let host: string;
  let fetcher: SecureFetcher;
  const requests: string[] = [];

  before(async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    server = createServer({ key: pems.private, cert: pems.cert }, (request, response) => {
      requests.push(request.url ?? '');
      const did = `did:web:${host.replace(':', '%3A')}`;
      if (request.url === '/.well-known/woa.json') {
        response.writeHead(200, { 'content-type': 'application/woa+json' }).end(WOA_DOCUMENT);
      } else if (request.url === '/.well-known/did.json') {
        response.writeHead(200, { 'content-type': 'application/did+json' }).end(
          JSON.stringify({
            id: did,
            service: [{ type: 'AgentDescription', serviceEndpoint: `https://${host}/.well-known/woa.json` }],
          }),
        );
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    fetcher = createSecureFetcher({ ca: pems.cert, allowPrivateNetwork: true, cache: false });
  });
  after(async () => {
    await fetcher.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  });

  test('agent:// documents are fetched over https by default', async () => {
    const resolution = await resolve(`agent://${host}/keywords`, { fetcher });
    assert.equal(resolution.agent?.id, 'keywords');
    assert.ok(resolution.documents.every((doc) => doc.url.startsWith(`https://${host}/`)));
  });

  test('did:web documents too', async () => {
    requests.length = 0;
    const resolution = await resolve(`agent://did:web:${host.replace(':', '%3A')}/summarizer`, { fetcher });
    assert.equal(resolution.source, 'did-web');
    assert.equal(resolution.agent?.id, 'summarizer');
    assert.deepEqual(requests, ['/.well-known/did.json', '/.well-known/woa.json']);
  });

  test('the fallback is an https URL', async () => {
    const resolution = await resolve(`agent://${host}/nobody/op?x=1`, { fetcher });
    assert.equal(resolution.source, 'fallback');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: `https://${host}/nobody/op?x=1`,
      method: 'POST',
    });
  });
});
