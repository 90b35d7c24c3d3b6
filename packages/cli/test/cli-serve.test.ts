/**
 * The long-running commands as a user runs them: `agentry host` serving an example module, and `agentry serve`
 * with `register` and `search` against it — real processes, a real SQLite file, loopback only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher, invoke } from '@agentry/client';
import { agentryAsync, agentryServer, type Running, root } from './run-cli.js';

const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true });
const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-serve-'));

after(async () => {
  await fetcher.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('agentry host', () => {
  let host: Running;
  before(async () => {
    host = await agentryServer(['host', join(root, 'examples/summarizer/agent.ts'), '--port', '0', '--json']);
  });
  after(async () => {
    assert.equal(await host.stop(), 0, 'Ctrl-C ends it cleanly');
  });

  test("serves the module's agents, callable through the documents it publishes", async () => {
    assert.deepEqual(host.ready['agents'], ['summarizer']);
    const result = await invoke(
      `${host.ready['baseUrl']}/.well-known/woa.json`,
      { text: 'One. Two. Three.', max_words: 10 },
      { fetcher },
    );
    assert.deepEqual(result.output, { summary: 'One. Two. Three.' });
  });

  test('a module that exports no agents is a usage error that says what to export', async () => {
    const run = await agentryAsync(['host', join(root, 'packages/cli/test/run-cli.ts'), '--port', '0']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /exports no agents: export the result of defineAgent/);
  });
});

describe('agentry serve, register and search', () => {
  let registry: Running;
  let url: string;
  let token: string;
  before(async () => {
    registry = await agentryServer(
      ['serve', '--port', '0', '--db', join(dir, 'registry.db'), '--embeddings', 'none', '--demo', '--json'],
      { AGENTRY_ADMIN_TOKEN: '' },
    );
    url = String(registry.ready['url']);
    token = String(registry.ready['adminToken']);
  });
  after(async () => {
    assert.equal(await registry.stop(), 0);
  });

  test('prints the admin token once, on the first start, and registers the demo agents', () => {
    assert.match(token, /^agentry_/);
    assert.deepEqual(registry.ready['search'], { mode: 'lexical' });
    const demo = registry.ready['demo'] as Array<{ id: string }>;
    assert.deepEqual(demo.map((agent) => agent.id).sort(), ['flights', 'summarizer', 'translator']);
  });

  test('the registry calls a demo agent through its gateway', async () => {
    const response = await fetch(`${url}/agents/summarizer/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        input: {
          text: 'Registries find agents. They also call those agents for you whenever you ask.',
          max_words: 10,
        },
      }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { summary: 'Registries find agents.' });
  });

  test('register needs a token, then registers; search finds the agent', async () => {
    const document = join(root, 'examples/documents/flights.agent.json');
    const refused = await agentryAsync(['register', document, '--registry', url], { AGENTRY_TOKEN: '' });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /401[\s\S]*--token/);

    const registered = await agentryAsync([
      'register',
      document,
      '--registry',
      url,
      '--token',
      token,
      '--json',
    ]);
    assert.equal(registered.status, 0, registered.stderr);
    const id = (JSON.parse(registered.stdout) as { id: string }).id;

    const found = await agentryAsync(['search', 'check in for my flight', '--registry', url, '--json']);
    assert.equal(found.status, 0, found.stderr);
    const hits = JSON.parse(found.stdout) as Array<{ id: string; why: string[] }>;
    assert.ok(
      hits.some((hit) => hit.id === id),
      found.stdout,
    );
    assert.ok(hits[0]!.why.length > 0);
  });

  test('registers a description read from a URL, which the secure fetcher allows only as told', async () => {
    const served = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Not the WoA example: its "summarizer" is the demo agent's id, which another publisher holds (409).
      response.end(readFileSync(join(root, 'examples/documents/flights.agent.json')));
    });
    await new Promise<void>((listening) => served.listen(0, '127.0.0.1', listening));
    const { port } = served.address() as { port: number };
    const source = `http://127.0.0.1:${port}/agent.json`;
    try {
      const refused = await agentryAsync(['register', source, '--registry', url, '--token', token]);
      assert.equal(refused.status, 2, refused.stderr);
      assert.match(refused.stderr, /http/i);
      const registered = await agentryAsync(
        ['register', source, '--registry', url, '--token', token, '--all', '--json'],
        { AGENTRY_ALLOW_HTTP: '1', AGENTRY_ALLOW_PRIVATE_NETWORK: '1' },
      );
      assert.equal(registered.status, 0, registered.stderr);
      const answer = JSON.parse(registered.stdout) as { results?: Array<{ id: string }> };
      assert.ok((answer.results ?? []).length >= 1, registered.stdout);
    } finally {
      await new Promise((closed) => served.close(closed));
    }
  });

  test('a document the registry refuses lists each problem with its pointer, exit 1', async () => {
    const run = await agentryAsync([
      'register',
      join(root, 'examples/documents/broken.woa.json'),
      '--registry',
      url,
      '--token',
      token,
      '--agent',
      'text tools',
    ]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /\/transports\/rest\/base: "base" must use the https scheme/);
  });

  test('a document in no format the registry reads is explained once, exit 1', async () => {
    const unknown = join(dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ name: 5 }));
    const run = await agentryAsync(['register', unknown, '--registry', url, '--token', token]);
    assert.equal(run.status, 1);
    assert.equal(run.stderr.split('Not a recognised agent description').length - 1, 1, run.stderr);
    assert.match(run.stderr, /Use --format/);
  });

  test('search exits 1 when nothing matches, and 2 when the registry is not there', async () => {
    const none = await agentryAsync([
      'search',
      'zzqx nothing like this',
      '--registry',
      url,
      '--tags',
      'no-such-tag',
    ]);
    assert.equal(none.status, 1);
    assert.match(none.stdout, /No agents found/);
    const away = await agentryAsync(['search', 'anything', '--registry', 'http://127.0.0.1:9']);
    assert.equal(away.status, 2);
    assert.match(away.stderr, /Cannot reach the registry/);
  });
});

describe('agentry serve says how it searches', () => {
  test('with USE-lite, on the engine it will run (the native kernels are built here), or the one named', async () => {
    for (const [env, engine] of [
      [{}, undefined],
      [{ AGENTRY_USE_LITE_ENGINE: 'tfjs' }, 'tfjs'],
    ] as const) {
      const server = await agentryServer(
        ['serve', '--port', '0', '--db', join(dir, `engine-${engine}.db`), '--json'],
        {
          AGENTRY_ADMIN_TOKEN: 'admin-token-0123456789abcdefghij',
          ...env,
        },
      );
      try {
        const search = server.ready['search'] as Record<string, string>;
        assert.equal(search['mode'], 'hybrid');
        assert.equal(search['embeddings'], 'use-lite');
        if (engine === undefined) assert.match(search['engine'] ?? '', /^(int8-bf16|int8|float32)$/);
        else assert.equal(search['engine'], engine);
      } finally {
        const status = await server.stop();
        assert.equal(status, 0, `${engine}: ${server.stderr()}`);
      }
    }
  });

  test('an unknown engine is refused before the registry starts', async () => {
    const refused = await agentryAsync(['serve', '--port', '0', '--db', join(dir, 'engine-bad.db')], {
      AGENTRY_USE_LITE_ENGINE: 'gpu',
    });
    assert.equal(refused.status, 2);
    assert.equal(
      refused.stderr,
      'agentry: AGENTRY_USE_LITE_ENGINE must be auto, int8-bf16, int8, float32, tfjs (it is gpu)\n',
    );
  });
});

describe('agentry serve settings', () => {
  test('a configured admin token is used and never printed; the port comes from --port, else PORT', async () => {
    const admin = 'configured-admin-token-0123456789abcdef';
    const port = await freePort();
    const first = await agentryServer(
      ['serve', '--db', join(dir, 'settings.db'), '--embeddings', 'none', '--json'],
      { AGENTRY_ADMIN_TOKEN: admin, PORT: String(port) },
    );
    try {
      assert.equal(new URL(String(first.ready['url'])).port, String(port));
      assert.equal(first.ready['adminToken'], undefined);
      const audit = await fetch(`${first.ready['url']}/admin/audit`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      assert.equal(audit.status, 200);
    } finally {
      assert.equal(await first.stop(), 0);
    }
    assert.ok(!first.stderr().includes(admin));

    const second = await agentryServer(
      ['serve', '--port', '0', '--db', join(dir, 'settings.db'), '--embeddings', 'none', '--json'],
      { AGENTRY_ADMIN_TOKEN: admin, PORT: String(port) },
    );
    try {
      assert.notEqual(new URL(String(second.ready['url'])).port, String(port));
      assert.equal(second.ready['adminToken'], undefined);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });
});

/** A port nothing listens on now (the kernel's pick, released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  await new Promise((closed) => server.close(closed));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}
