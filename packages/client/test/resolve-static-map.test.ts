/** Static resolution maps (agent:// §5.1): the option, the file, precedence, and what they can point to. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadStaticMap, resolve, StaticMapError } from '../src/resolve/index.js';
import { exampleJson, loopbackOptions, type Site, startSite, tempDir } from './resolve-support.js';

const WOA_DOCUMENT = exampleJson('summarizer.woa.json');

describe('static resolution maps', () => {
  let registry: Site;
  let agentHost: Site;
  const temp = tempDir();
  before(async () => {
    registry = await startSite({
      '/maps/summarizer.woa.json': { json: WOA_DOCUMENT },
      '/maps/flights.json': { json: exampleJson('flights.agent.json') },
    });
    agentHost = await startSite();
  });
  after(async () => {
    await registry.close();
    await agentHost.close();
    temp.remove();
  });

  test('a map entry for the URI is used before any document of the authority', async () => {
    agentHost.requests.length = 0;
    const resolution = await resolve(`agent://${agentHost.host}/keywords`, {
      ...loopbackOptions(),
      staticMap: { [`agent://${agentHost.host}/keywords`]: `${registry.origin}/maps/summarizer.woa.json` },
    });
    assert.deepEqual(agentHost.requests, [], "the agent's own host is not asked");
    assert.equal(resolution.agent?.id, 'keywords');
    assert.equal(resolution.source, 'static-map');
    assert.deepEqual(
      resolution.documents.map((doc) => [doc.step, doc.format]),
      [['static-map', 'woa']],
    );
  });

  test('keys are compared normalised, and the most specific wins', async () => {
    const staticMap = {
      [agentHost.host]: `${registry.origin}/maps/flights.json`,
      [`AGENT://${agentHost.host}/Keywords/`]: `${registry.origin}/maps/summarizer.woa.json`,
    };
    const named = await resolve(`agent://${agentHost.host.toUpperCase()}/Keywords/extract?x=1#f`, {
      ...loopbackOptions(),
      staticMap,
    });
    assert.equal(named.agent?.id, 'keywords');
    const other = await resolve(`agent://${agentHost.host}/search_flights`, {
      ...loopbackOptions(),
      staticMap,
    });
    assert.equal(other.agent?.id, 'flights.example.com', 'the authority entry covers every path');
    assert.equal(other.operation, 'search_flights');
  });

  test('an origin key serves origin targets', async () => {
    const resolution = await resolve(agentHost.origin, {
      ...loopbackOptions(),
      staticMap: { [agentHost.origin]: `${registry.origin}/maps/flights.json` },
    });
    assert.equal(resolution.agent?.id, 'flights.example.com');
    assert.equal(resolution.source, 'static-map');
  });

  test('a value may be an explicit agent+<transport> URI', async () => {
    const resolution = await resolve('agent://did:example:123/chat', {
      staticMap: { 'did:example:123': 'agent+https://agents.example.net/chat' },
    });
    assert.equal(resolution.source, 'static-map');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: 'https://agents.example.net/chat',
      method: 'POST',
    });
    assert.equal(resolution.methodByPayload, true);
    assert.deepEqual(resolution.documents, []);
  });

  test('an entry that cannot be used is an error issue, and resolution goes on', async () => {
    agentHost.routes.set('/.well-known/woa.json', { json: WOA_DOCUMENT });
    const resolution = await resolve(`agent://${agentHost.host}/summarizer`, {
      ...loopbackOptions(),
      staticMap: { [agentHost.host]: 'ftp://files.example.com/agent.json' },
    });
    agentHost.routes.clear();
    const issue = resolution.issues.find((candidate) => candidate.code === 'resolve.static-map.value');
    assert.equal(issue?.severity, 'error');
    assert.equal(resolution.agent?.id, 'summarizer');
    assert.equal(resolution.source, 'documents');
  });

  test('a map file is read and checked', async () => {
    const file = join(temp.dir, 'agents-map.json');
    writeFileSync(
      file,
      JSON.stringify({
        $comment: 'Where our agents live.',
        [`agent://${agentHost.host}/keywords`]: `${registry.origin}/maps/summarizer.woa.json`,
        'did:web:example.org': 'agent+wss://example.org/ws',
        'https://example.net': 'https://example.net/.well-known/agent-card.json',
      }),
    );
    const staticMap = await loadStaticMap(file);
    assert.equal(Object.keys(staticMap).length, 3);
    const resolution = await resolve(`agent://${agentHost.host}/keywords`, {
      ...loopbackOptions(),
      staticMap,
    });
    assert.equal(resolution.agent?.id, 'keywords');
  });

  const badFiles: Array<[string, string, RegExp, string?]> = [
    ['not-json.json', '{ "agent://a.example": ', /is not JSON/],
    ['array.json', '[]', /must be a JSON object/],
    ['bad-key.json', '{ "agent://a b": "https://x.example/a.json" }', /key "agent:\/\/a b"/, 'agent://a b'],
    ['bad-value.json', '{ "a.example": 42 }', /not a string/, 'a.example'],
    ['agent-value.json', '{ "a.example": "agent://b.example/x" }', /agent\+<transport>/, 'a.example'],
    ['ftp-value.json', '{ "a.example": "ftp://b.example/x" }', /neither an http\(s\) URL/, 'a.example'],
  ];
  for (const [name, text, pattern, key] of badFiles) {
    test(`a bad map file is refused with a StaticMapError: ${name}`, async () => {
      const file = join(temp.dir, name);
      writeFileSync(file, text);
      await assert.rejects(loadStaticMap(file), (error: unknown) => {
        assert.ok(error instanceof StaticMapError);
        assert.match(error.message, pattern);
        assert.equal(error.file, file);
        assert.equal(error.key, key);
        return true;
      });
    });
  }

  test('a missing map file is a StaticMapError naming it', async () => {
    const file = join(temp.dir, 'missing.json');
    await assert.rejects(
      loadStaticMap(file),
      (error: unknown) => error instanceof StaticMapError && error.message.includes(file),
    );
  });
});
