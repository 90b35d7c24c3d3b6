/**
 * The metadata of an agent the registry advertises through its gateway describes the gateway's credentials (#23.2):
 * the registry token in `Authorization` and the agent's own credential in the header the gateway passes on, by the
 * kind of credential the agent takes. An agent with an endpoint of its own keeps its own `authentication`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getCodec } from '@agentry/core';
import { startRegistry, type TestRegistry } from '../support.js';

interface Credential {
  for: string;
  type: string;
  in: string;
  name: string;
  required?: boolean;
}

interface Authentication {
  type?: string;
  instructions?: string;
  credentials?: Credential[];
  agent_authentication?: unknown;
}

let server: TestRegistry;

before(async () => {
  server = await startRegistry();
});
after(() => server.close());

/** Registers an AIDIP agent (with no endpoint unless given) and reads its metadata back. */
async function metadataOf(
  name: string,
  extra: Record<string, unknown>,
): Promise<{ endpoint: string; authentication?: Authentication }> {
  const document = {
    name,
    description: `${name}: an agent used in tests.`,
    operations: [
      { name: 'run', description: 'Runs.', inputs: { type: 'object' }, outputs: { type: 'object' } },
    ],
    ...extra,
  };
  const created = await server.request('/agents', { method: 'POST', token: server.admin, body: document });
  assert.equal(created.status, 201, created.text);
  const { id } = created.json as { id: string };
  const answer = await server.request(`/agents/${encodeURIComponent(id)}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.json as { endpoint: string; authentication?: Authentication };
}

function headersOf(authentication: Authentication | undefined): string[] {
  return (authentication?.credentials ?? []).map(
    (credential) =>
      `${credential.for} ${credential.name}${credential.required === false ? ' (optional)' : ''}`,
  );
}

describe('the gateway endpoint’s authentication', () => {
  test('an agent taking an API key: the registry token and X-Agent-Api-Key, both required', async () => {
    const metadata = await metadataOf('Keyed', {
      authentication: { type: 'api_key', instructions: 'Ask us.' },
    });
    assert.match(metadata.endpoint, /\/agents\/[^/]+\/invoke$/);
    assert.equal(metadata.authentication?.type, 'oauth2_bearer');
    assert.deepEqual(headersOf(metadata.authentication), ['registry Authorization', 'agent X-Agent-Api-Key']);
    assert.deepEqual(metadata.authentication?.agent_authentication, {
      type: 'api_key',
      instructions: 'Ask us.',
    });
    // A generic AIDIP client reading the metadata sends both, each in its header.
    const [agent] = getCodec('aidip').parse(metadata).agents;
    assert.deepEqual(agent?.auth?.security, [{ registry: [], agent: [] }]);
    assert.deepEqual(
      agent?.auth?.schemes?.map((scheme) => [scheme.type, scheme.name]),
      [
        ['bearer', undefined],
        ['apiKey', 'X-Agent-Api-Key'],
      ],
    );
  });

  test('an agent taking a bearer token: its Authorization value goes in X-Agent-Authorization', async () => {
    const metadata = await metadataOf('Bearer', { authentication: { type: 'oauth2_bearer' } });
    assert.deepEqual(headersOf(metadata.authentication), [
      'registry Authorization',
      'agent-authorization X-Agent-Authorization',
    ]);
  });

  test('an agent taking no credential: the registry token only', async () => {
    const metadata = await metadataOf('Open', { authentication: { type: 'none' } });
    assert.deepEqual(headersOf(metadata.authentication), ['registry Authorization']);
    assert.match(metadata.authentication?.instructions ?? '', /takes no credential/);
  });

  test("an agent that says nothing of its auth: the agent's headers are offered, not required", async () => {
    const metadata = await metadataOf('Silent', {});
    assert.deepEqual(headersOf(metadata.authentication), [
      'registry Authorization',
      'agent X-Agent-Api-Key (optional)',
      'agent-authorization X-Agent-Authorization (optional)',
    ]);
    assert.equal(metadata.authentication?.agent_authentication, undefined);
  });

  test('an agent with its own endpoint keeps its own authentication', async () => {
    const metadata = await metadataOf('Direct', {
      endpoint: 'https://direct.example.com/invoke',
      authentication: { type: 'api_key' },
    });
    assert.equal(metadata.endpoint, 'https://direct.example.com/invoke');
    assert.deepEqual(metadata.authentication, { type: 'api_key' });
  });
});
