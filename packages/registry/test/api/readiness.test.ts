/**
 * Liveness and readiness on a real loopback server: `/readyz` is 200 while the database answers, 503 with a reason
 * once the registry is shutting down or its database is gone; the probe is in the OpenAPI document, and neither it
 * nor `/healthz` is rate limited.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asObject, startRegistry } from '../support.js';

describe('GET /readyz', () => {
  test('is 200 on a healthy registry, and documented under system', async () => {
    const r = await startRegistry();
    try {
      const ready = await r.request('/readyz');
      assert.equal(ready.status, 200);
      const body = asObject(ready.json);
      assert.equal(body['status'], 'ready');
      assert.equal(body['database'], 'ok');
      assert.equal(typeof body['version'], 'string');
      assert.equal(ready.headers.get('cache-control'), 'no-store');

      const document = asObject((await r.request('/openapi.json')).json);
      const operation = asObject(asObject(asObject(document['paths'])['/readyz'])['get']);
      assert.deepEqual(operation['tags'], ['system']);
      assert.ok(asObject(operation['responses'])['503'] !== undefined);

      const wrongMethod = await r.request('/readyz', { method: 'POST', body: {} });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
    } finally {
      await r.close();
    }
  });

  test('is 503 "shutting down" once the registry is shutting down, while liveness still answers', async () => {
    const r = await startRegistry();
    try {
      r.registry.shutDown();
      const ready = await r.request('/readyz');
      assert.equal(ready.status, 503);
      const problem = asObject(ready.json);
      assert.equal(problem['reason'], 'shutting-down');
      assert.match(String(problem['detail']), /shutting down/);
      assert.equal((await r.request('/healthz')).status, 200);
      // The rest of the API serves on until the registry closes: requests in flight finish.
      assert.equal((await r.request('/agents')).status, 200);
    } finally {
      await r.close();
    }
  });

  test('is 503 "database unreachable" once the database is closed underneath', async () => {
    const r = await startRegistry();
    try {
      assert.equal((await r.request('/readyz')).status, 200);
      await r.registry.store.close();
      const ready = await r.request('/readyz');
      assert.equal(ready.status, 503);
      const problem = asObject(ready.json);
      assert.equal(problem['reason'], 'database-unreachable');
      assert.match(String(problem['detail']), /database/);
      assert.equal((await r.request('/healthz')).status, 503);
    } finally {
      await r.close();
    }
  });

  test('the probes are not rate limited: a load balancer polls them from one address', async () => {
    const r = await startRegistry({ rateLimits: { default: { requests: 2, windowSeconds: 60 } } });
    try {
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await r.request('/readyz')).status, 200);
        const health = await r.request('/healthz');
        assert.equal(health.status, 200, health.text);
        assert.equal(health.headers.get('cache-control'), 'no-store');
        assert.equal((await r.request('/healthz', { method: 'HEAD' })).status, 200);
        assert.equal((await r.request('/readyz', { method: 'HEAD' })).status, 200);
      }
      // Other routes keep their limit.
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await r.request('/agents')).status);
      assert.deepEqual(statuses, [200, 200, 429]);
    } finally {
      await r.close();
    }
  });
});
