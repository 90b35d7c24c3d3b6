/** Version negotiation (agent:// §7): `?version=`, `options.version`, `supportedVersions`. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { matchVersion, resolve } from '../src/resolve/index.js';
import { loopbackOptions, type Site, startSite } from './resolve-support.js';

describe('matchVersion', () => {
  const listed = ['3.1.4', '3.0.0', '2.1.2', '2.0.9', '1.0', 'v0.9.0'];
  const cases: Array<[string, string | undefined]> = [
    ['3.1.4', '3.1.4'],
    ['v3.0.0', '3.0.0'],
    ['0.9.0', 'v0.9.0'],
    ['2', '2.1.2'],
    ['2.0', '2.0.9'],
    ['3', '3.1.4'],
    ['1', '1.0'],
    ['4', undefined],
    ['2.2', undefined],
    ['latest', undefined],
    ['3.1.4.1', undefined],
  ];
  for (const [requested, expected] of cases) {
    test(`${requested} → ${expected ?? 'none'}`, () =>
      assert.equal(matchVersion(requested, listed), expected));
  }
});

describe('resolving a version', () => {
  let site: Site;
  before(async () => {
    site = await startSite();
    const descriptor = (version: string, extra: Record<string, unknown> = {}) => ({
      '@context': 'https://example.org/agent-context.jsonld',
      name: 'planner',
      version,
      capabilities: [{ name: 'gen-iti' }],
      'agentry:bindings': [{ kind: 'http', url: `${site.origin}/planner/${version}/invoke`, method: 'POST' }],
      ...extra,
    });
    site.routes.set('/planner/agent.json', {
      json: descriptor('3.1.4', {
        supportedVersions: {
          '3.0.0': '/v3/',
          '2.1.2': '/olderversion/v2.1.2/',
          '1.0': '/version-1/',
          '0.5': 'archive/planner-0.5.json',
        },
      }),
    });
    site.routes.set('/v3/agent.json', { json: descriptor('3.0.0') });
    site.routes.set('/olderversion/v2.1.2/agent.json', { json: descriptor('2.1.2') });
    site.routes.set('/planner/archive/planner-0.5.json', { json: descriptor('0.4') });
  });
  after(() => site.close());

  test('?version= picks the versioned descriptor from supportedVersions', async () => {
    site.requests.length = 0;
    const resolution = await resolve(`agent://${site.host}/planner/gen-iti?version=3.0.0`, loopbackOptions());
    assert.equal(resolution.version, '3.0.0');
    assert.equal(resolution.agent?.version, '3.0.0');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: `${site.origin}/planner/3.0.0/invoke`,
      method: 'POST',
    });
    assert.deepEqual(site.requests, ['/.well-known/agents.json', '/planner/agent.json', '/v3/agent.json']);
    assert.deepEqual(
      resolution.documents.at(-1) && [resolution.documents.at(-1)?.step, resolution.documents.at(-1)?.format],
      ['version', 'agent-json'],
    );
  });

  test('options.version wins over ?version=, and a partial version picks the highest it prefixes', async () => {
    const resolution = await resolve(`agent://${site.host}/planner?version=3.0.0`, {
      ...loopbackOptions(),
      version: '2',
    });
    assert.equal(resolution.version, '2.1.2');
    assert.equal(resolution.agent?.version, '2.1.2');
  });

  test('the current version needs no other document', async () => {
    site.requests.length = 0;
    const resolution = await resolve(`agent://${site.host}/planner`, {
      ...loopbackOptions(),
      version: '3.1.4',
    });
    assert.equal(resolution.version, '3.1.4');
    assert.deepEqual(site.requests, ['/.well-known/agents.json', '/planner/agent.json']);
  });

  test('a version the agent does not list is still sent (X-Agent-Version), with a warning', async () => {
    const resolution = await resolve(`agent://${site.host}/planner`, {
      ...loopbackOptions(),
      version: '9.0.0',
    });
    assert.equal(resolution.version, '9.0.0');
    assert.equal(resolution.agent?.version, '3.1.4');
    const warning = resolution.issues.find((issue) => issue.code === 'resolve.version.unlisted');
    assert.match(warning?.message ?? '', /3\.1\.4 \(current\), 3\.0\.0, 2\.1\.2, 1\.0, 0\.5/);
  });

  test('a location with no descriptor is called as that version’s endpoint', async () => {
    const resolution = await resolve(`agent://${site.host}/planner`, {
      ...loopbackOptions(),
      version: '1.0',
    });
    assert.equal(resolution.version, '1.0');
    assert.deepEqual(resolution.binding, { kind: 'http', url: `${site.origin}/version-1/`, method: 'POST' });
    assert.equal(resolution.methodByPayload, true);
    assert.ok(resolution.issues.some((issue) => issue.code === 'resolve.version.no-descriptor'));
  });

  test('a relative .json location resolves against the descriptor, and a version mismatch is reported', async () => {
    const resolution = await resolve(`agent://${site.host}/planner`, {
      ...loopbackOptions(),
      version: '0.5',
    });
    assert.equal(resolution.documents.at(-1)?.url, `${site.origin}/planner/archive/planner-0.5.json`);
    assert.equal(resolution.version, '0.5');
    assert.ok(resolution.issues.some((issue) => issue.code === 'resolve.version.mismatch'));
  });

  test('no version asked: none set', async () => {
    assert.equal((await resolve(`agent://${site.host}/planner`, loopbackOptions())).version, undefined);
  });

  test('a version asked of the fallback is still set', async () => {
    const resolution = await resolve(`agent://${site.host}/nobody?version=2.0.0`, loopbackOptions());
    assert.equal(resolution.source, 'fallback');
    assert.equal(resolution.version, '2.0.0');
  });
});
