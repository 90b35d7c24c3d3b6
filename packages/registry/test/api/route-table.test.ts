/**
 * The route table (src/api/route-table.ts) is the one declaration of the registry's HTTP contract: the 405 answers
 * it makes are those of the regular expressions that listed every path before it, the access it names is checked
 * before any handler runs, and the document it makes tags every operation and is the caller's own copy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonObject } from '@agentry/core';
import { ROUTES } from '../../src/api/route-table.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { asObject, startRegistry, type TestRegistry } from '../support.js';

describe('the OpenAPI document made from the route table', () => {
  test('tags every operation with a tag it lists', () => {
    const document = openApiDocument({ baseUrl: 'https://r.example', version: '0' });
    const tags = new Set((document['tags'] as JsonObject[]).map((tag) => tag['name']));
    for (const item of Object.values(document['paths'] as JsonObject)) {
      for (const operation of Object.values(item as JsonObject)) {
        if (Array.isArray(operation)) continue;
        const [tag] = (operation as JsonObject)['tags'] as string[];
        assert.ok(tags.has(tag), `${(operation as JsonObject)['operationId']}: tag ${tag}`);
      }
    }
  });

  test('is a copy: changing one does not change the next', () => {
    const first = openApiDocument({ baseUrl: 'https://r.example', version: '0' });
    (first['paths'] as JsonObject)['/agents'] = {};
    ((first['components'] as JsonObject)['schemas'] as JsonObject)['Problem'] = {};
    const second = openApiDocument({ baseUrl: 'https://r.example', version: '0' });
    assert.notDeepEqual((second['paths'] as JsonObject)['/agents'], {});
    assert.notDeepEqual(((second['components'] as JsonObject)['schemas'] as JsonObject)['Problem'], {});
  });
});

describe('the app made from the route table', () => {
  let r: TestRegistry;
  before(async () => {
    r = await startRegistry();
  });
  after(() => r.close());

  test('answers 405 with the Allow of every path the regular expressions listed before', async () => {
    for (const [path, allow] of [
      ['/', 'GET, HEAD'],
      ['/ui/app.js', 'GET, HEAD'],
      ['/app', 'GET, HEAD'],
      ['/app/agents/x', 'GET, HEAD'],
      ['/facets', 'GET, HEAD'],
      ['/agents', 'GET, POST, HEAD'],
      ['/agents/search', 'POST'],
      ['/agents/x', 'GET, PUT, DELETE, HEAD'],
      ['/agents/x/feedback', 'POST'],
      ['/agents/x/invoke', 'POST'],
      ['/agents/x/history', 'GET, HEAD'],
      ['/resolve', 'POST'],
      ['/openapi.json', 'GET, HEAD'],
      ['/healthz', 'GET, HEAD'],
      ['/metrics', 'GET, HEAD'],
      ['/admin/tokens', 'GET, POST, HEAD'],
      ['/admin/tokens/x', 'DELETE'],
      ['/admin/audit', 'GET, HEAD'],
      ['/hosts', 'GET, POST, HEAD'],
      ['/hosts/x', 'GET, DELETE, HEAD'],
      ['/imports', 'GET, HEAD'],
      ['/.well-known/ai-catalog.json', 'GET, HEAD'],
    ] as const) {
      const answer = await r.request(path, { method: 'PATCH', token: r.admin });
      assert.equal(answer.status, 405, `PATCH ${path}: ${answer.text}`);
      assert.equal(answer.headers.get('allow'), allow, path);
      assert.equal(asObject(answer.json)['code'], 'MethodNotAllowed');
    }
    for (const path of ['/agentsx', '/agents/x/y/z', '/app2', '/ui/a/b', '/.well-known/ai-catalogXjson']) {
      const answer = await r.request(path, { method: 'PATCH', token: r.admin });
      assert.equal(answer.status, 404, `PATCH ${path}`);
    }
  });

  test('checks the access of each route before its handler', async () => {
    const client = await r.token('client');
    for (const route of Object.values(ROUTES)) {
      if (route.access.who === 'anyone' || route.access.who === 'owner') continue;
      const path = route.path.replace(/:\w+/g, 'nobody');
      // An empty body and an unknown id: a handler that ran would answer 400 or 404.
      const init = {
        method: route.method,
        ...(route.method === 'POST' || route.method === 'PUT' ? { raw: '' } : {}),
      };
      const anonymous = await r.request(path, init);
      assert.equal(anonymous.status, 401, `${route.method} ${path}: ${anonymous.text}`);
      const refused = await r.request(path, { ...init, token: client.token });
      // Any token will do for `token`; a client's is not enough for the others.
      if (route.access.who === 'token') assert.notEqual(refused.status, 401, `${route.method} ${path}`);
      else assert.equal(refused.status, 403, `${route.method} ${path}: ${refused.text}`);
    }
  });
});
