/** serveRegistry with `tls`: the registry over HTTPS on loopback, its URL saying so (AIDIP §9 requires HTTPS). */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { generate } from 'selfsigned';
import { createRegistry, serveRegistry } from '../../src/index.js';
import { silentLogger, tempDir } from '../support.js';

test('serves HTTPS with the certificate and key it is given', async () => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const dir = tempDir();
  const registry = await createRegistry({
    databasePath: join(dir.path, 'registry.db'),
    embeddings: 'none',
    logger: silentLogger,
    adminToken: 'test-admin-token',
  });
  const served = await serveRegistry(registry, { tls: { cert: pems.cert, key: pems.private } });
  const fetcher = createSecureFetcher({ ca: pems.cert, allowPrivateNetwork: true, cache: false });
  try {
    assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const { response } = await fetcher.fetch(`${served.url}/openapi.json`);
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { openapi: string }).openapi.startsWith('3.'), true);
  } finally {
    await fetcher.close();
    await served.close();
    await registry.close();
    dir.remove();
  }
});
