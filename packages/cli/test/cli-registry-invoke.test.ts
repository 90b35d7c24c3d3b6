/**
 * An agent called through a registry, as a user does it (#23): `agentry host` serves the translator example (an
 * API key required) in its own process, `agentry register` puts its description on a real registry listening on
 * loopback, and `agentry invoke <registry>/agents/<id> --bearer <registry token> --api-key <agent key>` reads the
 * AIDIP metadata there and calls the endpoint it advertises, the registry's gateway, with each credential in the
 * header the metadata names. The errors a user sees on the way name the CLI's flags, not the library's options.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { createRegistry, type Registry, serveRegistry } from '@agentry/registry';
import pino from 'pino';
import { agentryAsync, agentryServer, type Running, root } from './run-cli.js';

const ADMIN = 'registry-invoke-admin-token-0123456789';
const AGENT_KEY = 'registry-invoke-agent-key';
const LOOPBACK = ['--allow-http', '--allow-private-network'];
const INPUT = JSON.stringify({ text: 'hello', source_language: 'en', target_language: 'zh' });

let host: Running;
let hostUrl: string;
let registry: Registry;
let registryUrl: string;
let closeRegistry: () => Promise<void>;
let documents: Server;
let documentsUrl: string;
let dir: string;

before(async () => {
  host = await agentryServer(['host', join(root, 'examples/translator/agent.ts'), '--port', '0', '--json'], {
    TRANSLATOR_API_KEY: AGENT_KEY,
  });
  hostUrl = String(host.ready['url']);
  dir = mkdtempSync(join(tmpdir(), 'agentry-registry-invoke-'));
  registry = await createRegistry({
    databasePath: join(dir, 'registry.db'),
    embeddings: 'none',
    adminToken: ADMIN,
    logger: pino({ level: 'silent' }),
    fetcher: createSecureFetcher({
      allowHttp: true,
      allowAddresses: [`127.0.0.1:${new URL(hostUrl).port}`],
      cache: false,
    }),
  });
  const served = await serveRegistry(registry, { port: 0 });
  registryUrl = served.url;
  closeRegistry = () => served.close();
  // A description of an agent with a destructive operation, for the confirmation a user is asked for.
  const flights = readFileSync(join(root, 'examples/documents/flights.agent.json'), 'utf8');
  documents = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(flights);
  });
  await new Promise<void>((done) => documents.listen(0, '127.0.0.1', done));
  documentsUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise<void>((done) => documents.close(() => done()));
  await closeRegistry();
  await registry.close();
  assert.equal(await host.stop(), 0);
  rmSync(dir, { recursive: true, force: true });
});

describe('agentry invoke <registry>/agents/<id>', () => {
  let agentUrl: string;

  before(async () => {
    const registered = await agentryAsync([
      'register',
      `${hostUrl}/agents/translator/agent.json`,
      '--registry',
      registryUrl,
      '--token',
      ADMIN,
      '--json',
      ...LOOPBACK,
    ]);
    assert.equal(registered.status, 0, registered.stderr);
    const { id } = JSON.parse(registered.stdout) as { id: string };
    agentUrl = `${registryUrl}/agents/${encodeURIComponent(id)}`;
  });

  test('the metadata advertises the gateway and says which credential goes in which header', async () => {
    const metadata = (await (await fetch(agentUrl)).json()) as Record<string, unknown>;
    assert.equal(metadata['endpoint'], `${agentUrl}/invoke`);
    const authentication = metadata['authentication'] as {
      type: string;
      instructions: string;
      credentials: Array<{ for: string; in: string; name: string }>;
    };
    assert.equal(authentication.type, 'oauth2_bearer');
    assert.deepEqual(
      authentication.credentials.map(({ for: whose, in: where, name }) => [whose, where, name]),
      [
        ['registry', 'header', 'Authorization'],
        ['agent', 'header', 'X-Agent-Api-Key'],
      ],
    );
    assert.match(authentication.instructions, /Authorization: Bearer .*X-Agent-Api-Key/);
  });

  test('--bearer (the registry token) and --api-key (the agent key) call the agent through the gateway', async () => {
    const run = await agentryAsync([
      'invoke',
      agentUrl,
      '-i',
      INPUT,
      '--bearer',
      ADMIN,
      '--api-key',
      AGENT_KEY,
      ...LOOPBACK,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { translated_text: '你好' });
    assert.match(run.stderr, new RegExp(`translateText via HTTP POST ${agentUrl}/invoke: 200`));
  });

  test("a body in AIDIP §5.1's form reaches the agent from any HTTP client too", async () => {
    const response = await fetch(`${agentUrl}/invoke`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN}`,
        'x-agent-api-key': AGENT_KEY,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ operation: 'translateText', ...JSON.parse(INPUT) }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { translated_text: '你好' });
  });

  test("without the agent's key, the error names --api-key", async () => {
    const run = await agentryAsync(['invoke', agentUrl, '-i', INPUT, '--bearer', ADMIN, ...LOOPBACK]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /AuthRequiredError: .*401/);
    assert.match(run.stderr, /--api-key <key>/);
    assert.doesNotMatch(run.stderr, /auth option|\{ bearer \}|\{ apiKey \}/);
  });

  test('without the registry token, the error names --bearer', async () => {
    const run = await agentryAsync(['invoke', agentUrl, '-i', INPUT, '--api-key', AGENT_KEY, ...LOOPBACK]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /needs a token/);
    assert.match(run.stderr, /--bearer <token>/);
    assert.doesNotMatch(run.stderr, /auth option/);
  });

  test('https:// to a plain HTTP port says the server answered in plain HTTP, not that its certificate failed', async () => {
    const https = agentUrl.replace(/^http:/, 'https:');
    const run = await agentryAsync(['invoke', https, '-i', INPUT, '--allow-private-network']);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /answered in plain HTTP, not TLS; use http:\/\/127\.0\.0\.1:\d+\/agents\//);
    assert.doesNotMatch(run.stderr, /certificate/i);
  });
});

describe('CLI errors name CLI flags', () => {
  test('an operation needing confirmation asks for --yes (not confirm: true, not --confirm)', async () => {
    const run = await agentryAsync([
      'invoke',
      `${documentsUrl}/agent.json`,
      '-o',
      'book_flight',
      '-i',
      '{"flight_number": "BA1"}',
      ...LOOPBACK,
    ]);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /needs confirmation before it runs .*Pass --yes to confirm\./);
    assert.doesNotMatch(run.stderr, /confirm: true|--confirm/);
  });

  test("the gateway's 428 for an operation needing confirmation is rendered as --yes too", async () => {
    const registered = await agentryAsync([
      'register',
      `${documentsUrl}/agent.json`,
      '--registry',
      registryUrl,
      '--token',
      ADMIN,
      '--json',
      ...LOOPBACK,
    ]);
    assert.equal(registered.status, 0, registered.stderr);
    const { id } = JSON.parse(registered.stdout) as { id: string };
    const run = await agentryAsync([
      'invoke',
      `${registryUrl}/agents/${encodeURIComponent(id)}`,
      '-o',
      'book_flight',
      '-i',
      '{"flight_number": "BA1"}',
      '--bearer',
      ADMIN,
      ...LOOPBACK,
    ]);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /428 .*needs confirmation.* Pass --yes to confirm\.$/m);
    assert.doesNotMatch(run.stderr, /--confirm\b|call again with confirm: true/);
  });

  test('convert asks for --base-url, not the library option baseUrl', async () => {
    const woa = join(root, 'examples/documents/summarizer.woa.json');
    const run = await agentryAsync(['convert', woa, '--to', 'agents-json']);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /pass a base URL \(--base-url <url>\)/);
    assert.doesNotMatch(run.stderr, /\(baseUrl\)/);
    const json = await agentryAsync(['convert', woa, '--to', 'agents-json', '--json']);
    const issues = (JSON.parse(json.stdout) as { issues: Array<{ message: string }> }).issues;
    assert.ok(issues.length > 0 && issues.every((issue) => !issue.message.includes('(baseUrl)')));
  });
});
