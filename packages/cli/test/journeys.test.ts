/**
 * The registry as one product (#23): a user's journey through it, one step a test, with the real CLI and real
 * servers on loopback, each step building on the last. They start the registry with its demo agents, host an agent
 * of their own and register it, crawl the origin of another, import another Agentry registry, search with filters,
 * resolve, invoke through the registry, host with TLS, and mint an admin token when they have lost theirs.
 * Everything indexes lexically (--embeddings none): search quality is not what this walks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generate } from 'selfsigned';
import { agentryAsync, agentryServer, type Running, root } from './run-cli.js';

const LOOPBACK = ['--allow-http', '--allow-private-network'];

/** An agent a user writes in a module of their own (a word counter or a reverser), as `agentry host` serves it. */
function agentModule(id: string, description: string, tags: string[]): string {
  return `import { defineAgent } from '@agentry/host';

export const agent = defineAgent({
  id: ${JSON.stringify(id)},
  name: ${JSON.stringify(id)},
  description: ${JSON.stringify(description)},
  version: '1.0.0',
  tags: ${JSON.stringify(tags)},
  operations: {
    default: {
      description: ${JSON.stringify(description)},
      input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      output: { type: 'object' },
      safe: true,
      handler: (input) => ${id === 'word-counter' ? '({ words: input.text.split(/\\s+/).filter(Boolean).length })' : "({ text: [...input.text].reverse().join('') })"},
    },
  },
});
`;
}

let dir = '';
let registry: Running;
let registryUrl = '';
let admin = '';
/** Where `agentry host` serves the user's word counter. */
let counterUrl = '';
const running: Running[] = [];

/** Starts a long-running command for the journey; all are stopped (SIGINT) at the end. */
async function start(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const started = await agentryServer(args, env);
  running.push(started);
  return started;
}

async function api(path: string, token?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${registryUrl}${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: await response.json() };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentry-journeys-'));
  // The user's project: their agent modules, with the packages installed beside them.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, 'counter.js'),
    agentModule('word-counter', 'Counts the words of a text.', ['text', 'counting']),
  );
  writeFileSync(join(dir, 'reverser.js'), agentModule('reverser', 'Reverses a text.', ['text']));
});

after(async () => {
  for (const server of running.reverse()) assert.equal(await server.stop(), 0, server.stderr());
  rmSync(dir, { recursive: true, force: true });
});

describe('a user walks through the registry', () => {
  test('starts it: agentry serve --demo on a new file says where it listens and its admin token', async () => {
    registry = await start(
      [
        'serve',
        '--demo',
        '--port',
        '0',
        '--db',
        join(dir, 'registry.db'),
        '--embeddings',
        'none',
        '--json',
        ...LOOPBACK,
      ],
      { AGENTRY_ADMIN_TOKEN: '' },
    );
    registryUrl = String(registry.ready['url']);
    admin = String(registry.ready['adminToken']);
    assert.match(registryUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(admin, /^agentry_/);
    assert.deepEqual((registry.ready['demo'] as Array<{ id: string }>).map((agent) => agent.id).sort(), [
      'flights',
      'summarizer',
      'translator',
    ]);
    assert.equal((await fetch(`${registryUrl}/healthz`)).status, 200);
  });

  test('hosts an agent of their own with agentry host and registers it with --token', async () => {
    const host = await start(['host', join(dir, 'counter.js'), '--port', '0', '--json']);
    counterUrl = String(host.ready['url']);
    const run = await agentryAsync([
      'register',
      `${counterUrl}/.well-known/woa.json`,
      '--registry',
      registryUrl,
      '--token',
      admin,
      ...LOOPBACK,
    ]);
    assert.equal(run.status, 0, run.stderr);
    const entry = await api('/agents/word-counter');
    assert.equal(entry.status, 200);
    assert.match(JSON.stringify(entry.body), /Counts the words of a text\./);
  });

  test("crawls another origin into the running registry's file (agentry crawl --db)", async () => {
    const host = await start(['host', join(dir, 'reverser.js'), '--port', '0', '--json']);
    const run = await agentryAsync(
      ['crawl', String(host.ready['url']), '--db', join(dir, 'registry.db'), ...LOOPBACK],
      { AGENTRY_EMBEDDINGS: 'none' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /1 ok, 0 failed/);
    // A crawled agent's id names the origin it was found on.
    const listed = (await api('/agents')).body as Array<{ id: string }>;
    assert.ok(
      listed.some((agent) => /^127-0-0-1-\d+-reverser$/.test(agent.id)),
      JSON.stringify(listed.map((agent) => agent.id)),
    );
  });

  test('imports another Agentry registry (agentry import --kind agentry)', async () => {
    const other = await start(
      ['serve', '--port', '0', '--db', join(dir, 'other.db'), '--embeddings', 'none', '--json'],
      { AGENTRY_ADMIN_TOKEN: '' },
    );
    const registered = await agentryAsync([
      'register',
      join(root, 'examples/documents/flights.agent.json'),
      '--registry',
      String(other.ready['url']),
      '--token',
      String(other.ready['adminToken']),
    ]);
    assert.equal(registered.status, 0, registered.stderr);
    const run = await agentryAsync(
      [
        'import',
        String(other.ready['url']),
        '--kind',
        'agentry',
        '--db',
        join(dir, 'registry.db'),
        ...LOOPBACK,
      ],
      { AGENTRY_EMBEDDINGS: 'none' },
    );
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /agents: 1 imported/);
    const listed = (await api('/agents')).body as Array<{ description: string }>;
    assert.ok(listed.some((agent) => agent.description === 'Search and book flights between airports.'));
  });

  test('searches: their agent by what it does, and the demo agents with a --tags filter', async () => {
    const run = await agentryAsync(['search', 'words of a text', '--json'], {
      AGENTRY_REGISTRY: registryUrl,
    });
    assert.equal(run.status, 0, run.stderr);
    const hits = JSON.parse(run.stdout) as Array<{ id: string }>;
    assert.equal(hits[0]?.id, 'word-counter');
    // Their own agent carries no tags a registry can read over plain HTTP (its WoA document, A2A card and AWP
    // manifest have no member for them), so the filter is shown on the demo agents, which are registered with theirs.
    const nlp = await agentryAsync([
      'search',
      'translate',
      '--tags',
      'nlp',
      '--registry',
      registryUrl,
      '--json',
    ]);
    assert.equal(nlp.status, 0, nlp.stderr);
    const found = JSON.parse(nlp.stdout) as Array<{ id: string; tags?: string[] }>;
    assert.equal(found[0]?.id, 'translator');
    for (const hit of found) assert.ok(hit.tags?.includes('nlp'), JSON.stringify(hit));
  });

  test('resolves the agent:// URI of their agent to the agent and the binding to call', async () => {
    const run = await agentryAsync([
      'resolve',
      `agent://${new URL(counterUrl).host}/word-counter`,
      '--scheme',
      'http',
      ...LOOPBACK,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /1 agent found\n {2}agent {5}word-counter/);
    assert.match(run.stdout, /binding {3}WoA REST envelope → POST http:\/\/127\.0\.0\.1:\d+\//);
  });

  test('invokes it through the registry: agentry invoke <registry>/agents/<id>', async () => {
    const run = await agentryAsync([
      'invoke',
      `${registryUrl}/agents/word-counter`,
      '-i',
      '{"text": "one web of agents"}',
      '--bearer',
      admin,
      ...LOOPBACK,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { words: 4 });
  });

  test('hosts with TLS (--tls-cert/--tls-key): a client trusting the certificate calls it over https', async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    writeFileSync(join(dir, 'cert.pem'), pems.cert);
    writeFileSync(join(dir, 'key.pem'), pems.private);
    const host = await start([
      'host',
      join(dir, 'counter.js'),
      '--port',
      '0',
      '--json',
      '--tls-cert',
      join(dir, 'cert.pem'),
      '--tls-key',
      join(dir, 'key.pem'),
    ]);
    const url = String(host.ready['url']);
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const document = await new Promise<string>((done, failed) => {
      request(`${url}/.well-known/woa.json`, { ca: pems.cert }, (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => done(text));
      })
        .on('error', failed)
        .end();
    });
    assert.match(document, /"base": "https:\/\/127\.0\.0\.1:\d+"/);
    // The CLI trusts it as Node does any extra CA.
    const run = await agentryAsync(
      ['invoke', `${url}/.well-known/woa.json`, '-i', '{"text": "over TLS"}', '--allow-private-network'],
      { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { words: 2 });
  });

  test('loses the admin token: agentry token --db … --role admin mints one that works, the old one stops', async () => {
    const run = await agentryAsync(['token', '--db', join(dir, 'registry.db'), '--role', 'admin', '--json']);
    assert.equal(run.status, 0, run.stderr);
    const minted = JSON.parse(run.stdout) as { token: string; role: string };
    assert.equal(minted.role, 'admin');
    assert.equal((await api('/admin/audit', minted.token)).status, 200);
    assert.equal((await api('/admin/audit', admin)).status, 401);
    // The new token does what the old one did: register.
    const registered = await agentryAsync([
      'register',
      join(root, 'examples/documents/summarizer.woa.json'),
      '--agent',
      'keywords',
      '--registry',
      registryUrl,
      '--token',
      minted.token,
    ]);
    assert.equal(registered.status, 0, registered.stderr);
  });
});
