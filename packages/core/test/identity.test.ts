/**
 * identityKeys: which descriptions are one agent. One agent read from every format core writes shares its keys;
 * agents that differ in id, origin or declared URI do not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Agent,
  codecs,
  type FormatName,
  identityKeys,
  readDocument,
  sameIdentity,
} from '../src/index.js';

const summarizer: Agent = {
  id: 'summarizer',
  name: 'Document Summarizer',
  description: 'Summarizes English text.',
  operations: [{ name: 'default', input: { type: 'object' } }],
  // One endpoint each format can carry, all on one origin.
  bindings: [
    { kind: 'woa-rest', base: 'https://agents.example.com', invokePath: '/agents/{agent_id}/invoke' },
    { kind: 'http', url: 'https://agents.example.com/agents/summarizer/run', method: 'POST' },
    { kind: 'a2a', url: 'https://agents.example.com/agents/summarizer/a2a', protocolBinding: 'JSONRPC' },
    { kind: 'wss', url: 'wss://agents.example.com:443/agents/summarizer/ws' },
  ],
};

describe('identityKeys', () => {
  test("an agent's id and name at each origin its endpoints are on (wss is its https origin)", () => {
    assert.deepEqual(identityKeys(summarizer), {
      strong: ['id https://agents.example.com summarizer'],
      weak: ['name https://agents.example.com document summarizer'],
    });
  });

  test('a declared agent:// URI is a key of its own, beside the origins', () => {
    const keys = identityKeys({ ...summarizer, url: 'agent://Agents.Example.com/summarizer/default?x=1' });
    assert.deepEqual(keys.strong, [
      'agent://agents.example.com/summarizer',
      'id https://agents.example.com summarizer',
    ]);
  });

  test('a packaged MCP server is known by its package; an agent without endpoints has no keys', () => {
    const packaged: Agent = {
      ...summarizer,
      bindings: [
        {
          kind: 'mcp',
          server: 'weather',
          transport: 'stdio',
          package: { registryType: 'npm', identifier: '@acme/weather' },
        },
      ],
    };
    assert.deepEqual(identityKeys(packaged), { strong: ['package npm @acme/weather'], weak: [] });
    assert.deepEqual(identityKeys({ ...summarizer, bindings: [] }), { strong: [], weak: [] });
  });

  for (const format of ['woa', 'a2a', 'agent-json', 'aidip'] as const satisfies readonly FormatName[]) {
    test(`the agent read back from ${format} is the same agent`, () => {
      const { document } = codecs[format].emit([summarizer]);
      const read = readDocument(Array.isArray(document) ? document[0]! : document, { format });
      const agent = read.agents[0];
      assert.ok(agent, JSON.stringify(read.issues));
      assert.ok(
        sameIdentity(identityKeys(agent), identityKeys(summarizer)),
        JSON.stringify(identityKeys(agent)),
      );
    });
  }

  test('another id or another origin is another agent', () => {
    const keys = identityKeys(summarizer);
    assert.equal(
      sameIdentity(keys, identityKeys({ ...summarizer, id: 'keywords', name: 'Keywords' })),
      false,
    );
    const elsewhere: Agent = {
      ...summarizer,
      bindings: [{ kind: 'http', url: 'https://other.example.org/invoke', method: 'POST' }],
    };
    assert.equal(sameIdentity(keys, identityKeys(elsewhere)), false);
  });
});
