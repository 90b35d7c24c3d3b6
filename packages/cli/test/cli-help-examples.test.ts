/**
 * Every example in every `agentry … --help` (the top-level help and each command's) runs here, as a user types it:
 * through `sh -c` in a folder of its own, with an `agentry` on PATH that is the built CLI, beside the files the
 * example names (woa.json, agent.json, booking.json, origins.txt, card.json, cert.pem… made from examples/ or
 * fetched from a running `agentry host`; examples/ and node_modules/ are linked in, as in a checkout). The examples
 * are read from the real help, and one without a runner in the table below fails the first test, so a new example
 * cannot go untested. Each runner asserts what its example says it does.
 *
 * What cannot run verbatim here, and what runs instead:
 * - Public hosts (agents.example.com, example.com, api.example.com, registry.example.com,
 *   registry.modelcontextprotocol.io…) are swapped for a loopback server serving the same kind of thing (an
 *   `agentry host`-ed example agent, the demo registry `npm start` runs, a loopback MCP Registry), and
 *   --allow-http --allow-private-network are added after the swapped address. Nothing else in the line changes.
 * - Fixed ports (8080, 8443, 7420) become free ones (`--port 0`, or PORT=0 for the lines that name no port),
 *   so runs side by side do not collide; /var/lib/agentry becomes a folder of the test's.
 * - Registries start lexical (AGENTRY_EMBEDDINGS=none): what the examples show is not search quality.
 * - A PostgreSQL database (postgres://postgres@127.0.0.1:5432/agentry) is a fresh one on the local server, dropped
 *   after the example.
 * Long-running examples (`host`, `serve`) start, are checked by requests, and are stopped with SIGINT (exit 0).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OFFICIAL_META, openRegistryStore } from '@agentry/registry';
import { generate } from 'selfsigned';
import { freshPostgresDatabase } from '../../registry/test/db/postgres-fixture.js';
import { agentry, agentryServer, collect, type Run, type Running, root } from './run-cli.js';

const bin = join(root, 'packages/cli/bin/agentry.js');
/** Added after a public address swapped for a loopback one. */
const LOOPBACK_FLAGS = '--allow-http --allow-private-network';
const COMMANDS = [
  '',
  'validate',
  'convert',
  'resolve',
  'invoke',
  'host',
  'serve',
  'register',
  'search',
  'crawl',
  'import',
  'token',
  'migrate',
];

/** The example lines of `agentry <command> --help` (the top-level help for ''), as printed. */
function examplesOf(command: string): string[] {
  const help = agentry(command === '' ? ['--help'] : [command, '--help']);
  assert.equal(help.status, 0, help.stderr);
  const lines = help.stdout.split('\n');
  const start = lines.indexOf('Examples:');
  assert.ok(start >= 0, `agentry ${command} --help has no examples`);
  const examples: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    examples.push(line.trim());
  }
  return examples;
}

// ---------------------------------------------------------------------------------------------------------------
// Running a line as a user does: sh -c in a folder, `agentry` on PATH.

let dir = '';
let shims = '';

/** A new folder for one example, with examples/ and node_modules/ linked in as in a checkout. */
function folder(): string {
  const made = mkdtempSync(join(dir, 'run-'));
  symlinkSync(join(root, 'examples'), join(made, 'examples'));
  symlinkSync(join(root, 'node_modules'), join(made, 'node_modules'));
  return made;
}

/** The environment of a user's shell: no development flags, no registry or token unless the runner sets them. */
function shellEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', PATH: `${shims}:${process.env['PATH']}` };
  for (const name of [
    'AGENTRY_ALLOW_HTTP',
    'AGENTRY_ALLOW_PRIVATE_NETWORK',
    'AGENTRY_DB',
    'AGENTRY_ADMIN_TOKEN',
    'AGENTRY_REGISTRY',
    'AGENTRY_TOKEN',
    'AGENTRY_BEARER_TOKEN',
    'AGENTRY_API_KEY',
    'AGENTRY_TLS_CERT',
    'AGENTRY_TLS_KEY',
    'PORT',
    'HOST',
  ])
    delete clean[name];
  return { ...clean, AGENTRY_EMBEDDINGS: 'none', ...env };
}

/** `line` with each key of `swaps` replaced (every occurrence); a swap that matches nothing is a stale test. */
function swapped(line: string, swaps: Record<string, string>): string {
  let result = line;
  for (const [from, to] of Object.entries(swaps)) {
    assert.ok(result.includes(from), `"${from}" is not in: ${line}`);
    result = result.split(from).join(to);
  }
  return result;
}

interface Line {
  cwd: string;
  env?: Record<string, string>;
  swaps?: Record<string, string>;
}

/** Runs the line through `sh -c` and waits for it to end. */
function sh(line: string, { cwd, env = {}, swaps = {} }: Line): Promise<Run> {
  const command = swapped(line, swaps);
  const child = spawn('sh', ['-c', command], { cwd, env: shellEnv(env) });
  child.stdin.end();
  return collect(child);
}

interface Started {
  /** The first http(s) URL it printed: where it listens. */
  url: string;
  output(): string;
  /** SIGINT, as Ctrl-C, then the exit status. */
  stop(): Promise<number | null>;
}

/** Starts a long-running line (`exec`, so the signal reaches the CLI) and waits until it prints where it listens. */
function shStart(line: string, { cwd, env = {}, swaps = {} }: Line): Promise<Started> {
  const command = swapped(line, swaps);
  return new Promise((started, failed) => {
    const child: ChildProcess = spawn('sh', ['-c', `exec ${command}`], { cwd, env: shellEnv(env) });
    let output = '';
    let ready = false;
    const exited = new Promise<number | null>((done) => child.on('close', (status) => done(status)));
    const read = (chunk: Buffer): void => {
      output += chunk;
      const url = /(https?:\/\/[^\s,)]+)/.exec(output)?.[1];
      if (ready || url === undefined || !output.includes('\n')) return;
      ready = true;
      started({
        url,
        output: () => output,
        stop: () => {
          child.kill('SIGINT');
          return exited;
        },
      });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then((status) => {
      if (!ready) failed(new Error(`${command} exited (${status}) before listening:\n${output}`));
    });
  });
}

/** Runs `check` on a started line, then stops it and asserts it closed cleanly. */
async function whileRunning(line: string, options: Line, check: (running: Started) => Promise<void>) {
  const running = await shStart(line, options);
  try {
    await check(running);
  } finally {
    assert.equal(await running.stop(), 0, running.output());
  }
}

async function getJson<Body = unknown>(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Body }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as Body };
}

/** A GET with headers fetch does not send as given (Host), over http or https (trusting `ca`). */
function rawGet(
  url: string,
  headers: Record<string, string>,
  ca?: string,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((done, failed) => {
    const req = send(
      target,
      { method: 'GET', headers, ...(ca === undefined ? {} : { ca, servername: undefined }) },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => done({ status: response.statusCode ?? 0, text }));
      },
    );
    req.on('error', failed);
    req.end();
  });
}

/** Waits until a started line has printed what `pattern` matches (its lines after the first come later). */
async function printed(running: Started, pattern: RegExp): Promise<string> {
  return until(`${pattern} in:\n${running.output()}`, async () => pattern.exec(running.output())?.[0]);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Loopback stand-ins for the public hosts the examples name.

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** An origin serving the example WoA document (its REST transport on the origin's https twin), for crawls. */
function agentOrigin(): Server {
  const woa = JSON.parse(
    readFileSync(join(root, 'examples/documents/summarizer.woa.json'), 'utf8'),
  ) as Record<string, unknown>;
  return createServer((request, response) => {
    if (request.url === '/.well-known/woa.json') {
      const origin = `http://${request.headers.host}`;
      const document = {
        ...woa,
        transports: {
          rest: { base: origin.replace('http:', 'https:'), invoke_path: '/agents/{agent_id}/invoke' },
        },
      };
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
      response.end(JSON.stringify(document));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"title":"Not Found"}');
  });
}

/** A registry speaking the official MCP Registry API, over the first three records of the shared seed. */
function mcpRegistry(): Server {
  const seed = JSON.parse(
    readFileSync(join(root, '../shared/corpora/mcp-registry/seed.json'), 'utf8'),
  ) as Array<Record<string, unknown>>;
  const servers = seed.slice(0, 3).map((server, index) => ({
    server,
    _meta: {
      [OFFICIAL_META]: { status: 'active', updatedAt: `2025-09-01T00:0${index}:00.000Z`, isLatest: true },
    },
  }));
  return createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://x').pathname !== '/v0.1/servers') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ servers, metadata: { count: servers.length } }));
  });
}

/** A bearer JWT the flights example accepts (HS256 with its default secret), as its booking clients hold. */
function flightsToken(): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'traveller', exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  const signature = createHmac('sha256', 'demo-flights-secret').update(unsigned).digest('base64url');
  return `${unsigned}.${signature}`;
}

// ---------------------------------------------------------------------------------------------------------------
// What every example runs against, started once.

/** `npm start`'s registry: `agentry serve --demo` (the serve example itself runs it, in its own folder). */
let demo: Started;
let demoFolder = '';
let demoToken = '';
/** The example agents, hosted as `agentry host examples/<name>/agent.ts` does. */
let summarizer: Running;
let summarizerUrl = '';
let flights: Running;
let flightsUrl = '';
const origins = [agentOrigin(), agentOrigin()];
let firstOrigin = '';
let secondOrigin = '';
const mcp = mcpRegistry();
let mcpUrl = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentry-cli-examples-'));
  shims = join(dir, 'bin');
  mkdirSync(shims);
  writeFileSync(join(shims, 'agentry'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
  chmodSync(join(shims, 'agentry'), 0o755);

  demoFolder = folder();
  [demo, summarizer, flights, firstOrigin, secondOrigin, mcpUrl] = await Promise.all([
    shStart('agentry serve --demo', { cwd: demoFolder, env: { PORT: '0' } }),
    agentryServer(['host', join(root, 'examples/summarizer/agent.ts'), '--port', '0', '--json']),
    agentryServer(['host', join(root, 'examples/flights/agent.ts'), '--port', '0', '--json']),
    listen(origins[0]!),
    listen(origins[1]!),
    listen(mcp),
  ]);
  demoToken = /agentry_\S+$/.exec(await printed(demo, /admin token .*: agentry_\S+$/m))![0];
  summarizerUrl = String(summarizer.ready['url']);
  flightsUrl = String(flights.ready['url']);
  secondOrigin = secondOrigin.replace('127.0.0.1', 'localhost');
});

after(async () => {
  await Promise.all([
    demo?.stop(),
    summarizer?.stop(),
    flights?.stop(),
    ...origins.map(close),
    close(mcp),
    ...[...writables.values()].map(async (registry) => assert.equal(await (await registry).stop(), 0)),
  ]);
  rmSync(dir, { recursive: true, force: true });
});

/** `agent://<the loopback host of url>/<path> --scheme http` and the loopback flags: an agent:// URI made local. */
function localAgentUri(url: string, path: string): string {
  return `agent://${new URL(url).host}/${path} --scheme http ${LOOPBACK_FLAGS}`;
}

interface Writable {
  /** The folder it runs in, on ./registry.db. */
  cwd: string;
  url: string;
  /** The admin token of its first start. */
  token: string;
}

/** Registries the examples that change one write to, each on registry.db in a folder of its own (made once). */
const writables = new Map<string, Promise<Writable & { stop: () => Promise<number | null> }>>();

function writableRegistry(name: 'register' | 'token'): Promise<Writable> {
  let made = writables.get(name);
  if (made === undefined) {
    const cwd = folder();
    made = agentryServer(
      ['serve', '--port', '0', '--db', join(cwd, 'registry.db'), '--embeddings', 'none', '--json'],
      { AGENTRY_ADMIN_TOKEN: '' },
    ).then((registry) => ({
      cwd,
      url: String(registry.ready['url']),
      token: String(registry.ready['adminToken']),
      stop: registry.stop,
    }));
    writables.set(name, made);
  }
  return made;
}

// ---------------------------------------------------------------------------------------------------------------
// The table: every example line of every --help, and what running it must do.

type Runner = (line: string) => Promise<void>;

const RUNNERS: Record<string, Runner> = {
  // --- agentry validate
  'agentry validate .well-known/woa.json': async (line) => {
    const cwd = folder();
    mkdirSync(join(cwd, '.well-known'));
    writeFileSync(
      join(cwd, '.well-known/woa.json'),
      readFileSync(join(root, 'examples/documents/summarizer.woa.json')),
    );
    const run = await sh(line, { cwd });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Web of Agents \(WoA\) document \(woa\), valid; 2 agents: summarizer, keywords/);
  },
  'agentry validate https://example.com/.well-known/agent-card.json': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: {
        'https://example.com/.well-known/agent-card.json': `${summarizerUrl}/.well-known/agent-card.json ${LOOPBACK_FLAGS}`,
      },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /A2A.* \(a2a\), valid; 1 agent/);
  },
  'curl -s https://example.com/agent.json | agentry validate - --json': async (line) => {
    const run = await sh(line, { cwd: folder(), swaps: { 'https://example.com': summarizerUrl } });
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { format: string; valid: boolean; agents: unknown[] };
    assert.equal(report.valid, true);
    assert.equal(report.format, 'awp');
    assert.equal(report.agents.length, 1);
  },

  // --- agentry convert
  'agentry convert woa.json --to td --base-url https://agents.example.com > card.td.json': async (line) => {
    const cwd = folder();
    writeFileSync(join(cwd, 'woa.json'), readFileSync(join(root, 'examples/documents/summarizer.woa.json')));
    const run = await sh(line, { cwd });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /Loss report: .* → WoT Thing Description cannot carry/);
    const cards = JSON.parse(readFileSync(join(cwd, 'card.td.json'), 'utf8')) as Array<
      Record<string, unknown>
    >;
    assert.equal(cards.length, 2);
    for (const card of cards) {
      assert.ok((card['@context'] as unknown[]).includes('https://www.w3.org/2022/wot/td/v1.1'));
      assert.match(JSON.stringify(card), /"href":"https:\/\/agents\.example\.com\//);
    }
  },
  'agentry convert agent.json --to a2a --base-url https://flights.example.com 2> losses.txt': async (
    line,
  ) => {
    const cwd = folder();
    writeFileSync(join(cwd, 'agent.json'), readFileSync(join(root, 'examples/documents/flights.agent.json')));
    const run = await sh(line, { cwd });
    assert.equal(run.status, 0, readFileSync(join(cwd, 'losses.txt'), 'utf8'));
    const card = JSON.parse(run.stdout) as { url: string; skills: unknown[] };
    assert.match(card.url, /^https:\/\/flights\.example\.com\//);
    assert.ok(card.skills.length > 0);
    const losses = readFileSync(join(cwd, 'losses.txt'), 'utf8');
    assert.match(losses, /^Loss report: Agent Web Protocol \(AWP\) agent\.json → A2A AgentCard cannot carry/);
    assert.match(losses, /auth\.requiredFor/);
  },

  // --- agentry resolve
  'agentry resolve agent://planner.example.com/gen-iti': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: { 'agent://planner.example.com/gen-iti': localAgentUri(summarizerUrl, 'summarizer') },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /: 1 agent found\n {2}agent {5}summarizer — Document Summarizer/);
  },
  'agentry resolve https://api.example.com --json': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: { 'https://api.example.com': `${summarizerUrl} ${LOOPBACK_FLAGS}` },
    });
    assert.equal(run.status, 0, run.stderr);
    const resolution = JSON.parse(run.stdout) as { agents: Array<{ id: string }>; binding: { kind: string } };
    assert.deepEqual(
      resolution.agents.map((agent) => agent.id),
      ['summarizer'],
    );
    assert.equal(resolution.binding.kind, 'woa-rest');
  },
  'agentry resolve agent://localhost:8080/summarizer --scheme http --allow-http --allow-private-network':
    async (line) => {
      // The host example's agent (`agentry host examples/summarizer/agent.ts --port 8080`), on its free port.
      const run = await sh(line, {
        cwd: folder(),
        swaps: { 'localhost:8080': `localhost:${new URL(summarizerUrl).port}` },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /1 agent found\n {2}agent {5}summarizer/);
      assert.match(
        run.stdout,
        /binding {3}WoA REST envelope → POST http:\/\/127\.0\.0\.1:\d+\/agents\/\{agent_id\}\/invoke/,
      );
    },

  // --- agentry invoke
  'agentry invoke agent://agents.example.com/summarizer --input \'{"text": "…"}\'': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: {
        'agent://agents.example.com/summarizer': localAgentUri(summarizerUrl, 'summarizer'),
        '…': 'Agents are network services. Each ecosystem describes them differently.',
      },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(JSON.parse(run.stdout).summary.startsWith('Agents are network services.'), run.stdout);
  },
  'agentry invoke agent://flights.example.com/cancel_booking -i @booking.json --yes --bearer $FLIGHTS_TOKEN':
    async (line) => {
      const cwd = folder();
      const env = { FLIGHTS_TOKEN: flightsToken() };
      const booked = await sh(
        `agentry invoke ${localAgentUri(flightsUrl, 'book_flight')} --bearer $FLIGHTS_TOKEN -i '{"flight_number": "AG100", "date": "2030-01-01", "passenger": "Ada"}'`,
        { cwd, env },
      );
      assert.equal(booked.status, 0, booked.stderr);
      writeFileSync(
        join(cwd, 'booking.json'),
        JSON.stringify({ booking_id: JSON.parse(booked.stdout).booking_id }),
      );
      const swaps = {
        'agent://flights.example.com/cancel_booking': localAgentUri(flightsUrl, 'cancel_booking'),
      };
      const run = await sh(line, { cwd, env, swaps });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { cancelled: true });
      // Cancelled: the booking is gone.
      const again = await sh(line, { cwd, env, swaps });
      assert.equal(again.status, 1);
      assert.match(again.stderr, /No booking/);
    },
  'agentry invoke agent://flights.example.com/flight_status --stream -i \'{"flight_number": "AG100"}\'':
    async (line) => {
      const run = await sh(line, {
        cwd: folder(),
        swaps: { 'agent://flights.example.com/flight_status': localAgentUri(flightsUrl, 'flight_status') },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(
        run.stdout
          .trim()
          .split('\n')
          .map((event) => JSON.parse(event).status),
        ['scheduled', 'boarding', 'departed', 'landed'],
      );
    },
  'agentry invoke https://registry.example.com/agents/translator -i @text.json --bearer $AGENTRY_TOKEN --api-key $TRANSLATOR_KEY':
    async (line) => {
      const cwd = folder();
      writeFileSync(
        join(cwd, 'text.json'),
        JSON.stringify({ text: 'hello', source_language: 'en', target_language: 'zh' }),
      );
      const run = await sh(line, {
        cwd,
        env: { AGENTRY_TOKEN: demoToken, TRANSLATOR_KEY: 'demo-translator-key' },
        swaps: { 'https://registry.example.com': `${demo.url}`, '--bearer': `${LOOPBACK_FLAGS} --bearer` },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /你好/);
    },

  // --- agentry host
  'agentry host examples/summarizer/agent.ts --port 8080': async (line) => {
    await whileRunning(line, { cwd: folder(), swaps: { '--port 8080': '--port 0' } }, async (host) => {
      assert.match(host.output(), /hosting summarizer at http:\/\/127\.0\.0\.1:\d+/);
      const woa = await getJson(`${host.url}/.well-known/woa.json`);
      assert.equal(woa.status, 200);
      assert.ok(JSON.stringify(woa.body).includes('"summarizer"'));
    });
  },
  'agentry host ./agents.js --hostname 0.0.0.0 --base-url https://agents.example.com': async (line) => {
    const cwd = folder();
    writeFileSync(join(cwd, 'agents.js'), AGENTS_JS);
    // Listening on every interface; the test still calls it on loopback only, by the name its base URL gives.
    await whileRunning(line, { cwd, swaps: { '--hostname': '--port 0 --hostname' } }, async (host) => {
      const port = new URL(host.url).port;
      const woa = await rawGet(`http://127.0.0.1:${port}/.well-known/woa.json`, {
        host: 'agents.example.com',
      });
      assert.equal(woa.status, 200, woa.text);
      assert.match(woa.text, /"echo"/);
      assert.match(woa.text, /https:\/\/agents\.example\.com/);
      const other = await rawGet(`http://127.0.0.1:${port}/.well-known/woa.json`, {
        host: 'elsewhere.example',
      });
      assert.equal(other.status, 403);
    });
  },
  'agentry host ./agents.js --port 8443 --tls-cert cert.pem --tls-key key.pem --allowed-origin https://app.example.com':
    async (line) => {
      const cwd = folder();
      writeFileSync(join(cwd, 'agents.js'), AGENTS_JS);
      const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
        keyType: 'ec',
        algorithm: 'sha256',
        extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
      });
      writeFileSync(join(cwd, 'cert.pem'), pems.cert);
      writeFileSync(join(cwd, 'key.pem'), pems.private);
      await whileRunning(line, { cwd, swaps: { '--port 8443': '--port 0' } }, async (host) => {
        assert.match(host.url, /^https:\/\/127\.0\.0\.1:\d+$/);
        const woa = await rawGet(`${host.url}/.well-known/woa.json`, {}, pems.cert);
        assert.equal(woa.status, 200, woa.text);
        const page = { origin: 'https://app.example.com' };
        assert.equal((await rawGet(`${host.url}/agents/echo`, page, pems.cert)).status !== 403, true);
        const foreign = await rawGet(
          `${host.url}/agents/echo`,
          { origin: 'https://evil.example' },
          pems.cert,
        );
        assert.equal(foreign.status, 403, foreign.text);
      });
    },

  // --- agentry serve
  'agentry serve': async (line) => {
    const cwd = folder();
    await whileRunning(line, { cwd, env: { PORT: '0' } }, async (registry) => {
      assert.match(registry.output(), /registry at http:\/\/127\.0\.0\.1:\d+ \(database agentry\.db\)/);
      await printed(registry, /admin token .*: agentry_/);
      assert.equal((await fetch(`${registry.url}/healthz`)).status, 200);
      assert.ok(existsSync(join(cwd, 'agentry.db')));
    });
  },
  'agentry serve --port 8080 --db /var/lib/agentry/registry.db --embeddings none': async (line) => {
    const cwd = folder();
    mkdirSync(join(cwd, 'var/lib/agentry'), { recursive: true });
    const database = join(cwd, 'var/lib/agentry/registry.db');
    const swaps = { '--port 8080': '--port 0', '/var/lib/agentry/registry.db': database };
    await whileRunning(line, { cwd, swaps }, async (registry) => {
      await printed(registry, /search {5}lexical only \(--embeddings none\)/);
      assert.equal((await fetch(`${registry.url}/healthz`)).status, 200);
      assert.ok(existsSync(database));
    });
  },
  'agentry serve --demo': async () => {
    // Started in before() (everything else uses it): the registry with the three example agents, on ./agentry.db.
    await printed(demo, /demo agent summarizer +hosted at http:\/\/127\.0\.0\.1:\d+/);
    assert.ok(existsSync(join(demoFolder, 'agentry.db')));
    const agents = await getJson(`${demo.url}/agents`);
    assert.deepEqual((agents.body as Array<{ id: string }>).map((agent) => agent.id).sort(), [
      'flights',
      'summarizer',
      'translator',
    ]);
  },
  'agentry serve --import https://registry.modelcontextprotocol.io --import-interval 30': async (line) => {
    const swaps = { 'https://registry.modelcontextprotocol.io': `${mcpUrl} ${LOOPBACK_FLAGS}` };
    await whileRunning(line, { cwd: folder(), env: { PORT: '0' }, swaps }, async (registry) => {
      const agents = await until('the import', async () => {
        const listed = (await getJson(`${registry.url}/agents`)).body as unknown[];
        return listed.length === 3 ? listed : undefined;
      });
      assert.equal(agents.length, 3);
    });
  },

  // --- agentry register (on a registry of their own; AGENTRY_TOKEN holds its admin token)
  'agentry register examples/documents/flights.agent.json --token $AGENTRY_TOKEN': async (line) => {
    const registry = await writableRegistry('register');
    const run = await sh(line, {
      cwd: folder(),
      env: { AGENTRY_REGISTRY: registry.url, AGENTRY_TOKEN: registry.token },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /registered/);
    const listed = (await getJson(`${registry.url}/agents`)).body as Array<{ description: string }>;
    assert.ok(listed.some((agent) => agent.description === 'Search and book flights between airports.'));
  },
  'agentry register https://agents.example.com/.well-known/woa.json --all': async (line) => {
    const registry = await writableRegistry('register');
    const run = await sh(line, {
      cwd: folder(),
      env: { AGENTRY_REGISTRY: registry.url, AGENTRY_TOKEN: registry.token },
      swaps: {
        'https://agents.example.com/.well-known/woa.json': `${summarizerUrl}/.well-known/woa.json ${LOOPBACK_FLAGS}`,
      },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal((await getJson(`${registry.url}/agents/summarizer`)).status, 200);
  },
  'agentry register card.json --groups team-a,team-b --registry https://registry.example.com': async (
    line,
  ) => {
    const registry = await writableRegistry('register');
    const cwd = folder();
    const card = await fetch(`${flightsUrl}/.well-known/agent-card.json`);
    writeFileSync(join(cwd, 'card.json'), await card.text());
    const run = await sh(line, {
      cwd,
      env: { AGENTRY_TOKEN: registry.token },
      swaps: { 'https://registry.example.com': registry.url },
    });
    assert.equal(run.status, 0, run.stderr);
    // Restricted: the admin sees it, anonymous callers do not; its entry names the groups.
    const ids = async (headers: Record<string, string>) =>
      ((await getJson(`${registry.url}/agents`, headers)).body as Array<{ id: string }>).map(
        (agent) => agent.id,
      );
    const everyone = await ids({});
    const restricted = (await ids({ authorization: `Bearer ${registry.token}` })).filter(
      (id) => !everyone.includes(id),
    );
    assert.equal(restricted.length, 1);
    assert.equal((await getJson(`${registry.url}/agents/${restricted[0]}`)).status, 404);
    const entry = await getJson(`${registry.url}/agents/${restricted[0]}`, {
      authorization: `Bearer ${registry.token}`,
    });
    assert.equal(entry.status, 200);
    assert.match(JSON.stringify(entry.body), /"groups":\["team-a","team-b"\]/);
  },

  // --- agentry search (the demo registry is the default one, AGENTRY_REGISTRY, as `npm start` runs it)
  'agentry search "book a flight to Paris"': async (line) => {
    const run = await sh(line, { cwd: folder(), env: { AGENTRY_REGISTRY: demo.url } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ 1\. flights/m);
  },
  'agentry search "translate chinese" --tags nlp --json': async (line) => {
    const run = await sh(line, { cwd: folder(), env: { AGENTRY_REGISTRY: demo.url } });
    assert.equal(run.status, 0, run.stderr);
    const hits = JSON.parse(run.stdout) as Array<{ id: string; tags?: string[] }>;
    assert.ok(hits.length > 0);
    assert.equal(hits[0]?.id, 'translator');
    for (const hit of hits) assert.ok(hit.tags?.includes('nlp'), `${hit.id}: ${JSON.stringify(hit.tags)}`);
  },
  'agentry search "summarize an article" --top 3 --registry https://registry.example.com': async (line) => {
    const run = await sh(line, { cwd: folder(), swaps: { 'https://registry.example.com': demo.url } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ 1\. summarizer/m);
    assert.doesNotMatch(run.stdout, /^ 4\./m);
  },

  // --- agentry crawl (loopback origins serving the example WoA document)
  'agentry crawl https://agents.example.com api.example.org': async (line) => {
    const cwd = folder();
    const run = await sh(line, {
      cwd,
      swaps: {
        'https://agents.example.com': firstOrigin,
        'api.example.org': `${secondOrigin} ${LOOPBACK_FLAGS}`,
      },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /crawled 2 origins into agentry\.db .*: 2 ok, 0 failed/);
    assert.match(run.stdout, /agents: 4 added/);
    assert.ok(existsSync(join(cwd, 'agentry.db')));
  },
  'agentry crawl --from origins.txt --db registry.db --concurrency 64 --embeddings none': async (line) => {
    const cwd = folder();
    writeFileSync(join(cwd, 'origins.txt'), `# the agents we index\n${firstOrigin}\n${secondOrigin}\n`);
    const run = await sh(line, {
      cwd,
      swaps: { '--embeddings none': `--embeddings none ${LOOPBACK_FLAGS}` },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /crawled 2 origins into registry\.db .*: 2 ok, 0 failed/);
    assert.match(run.stdout, /agents: 4 added/);
  },
  'agentry crawl http://localhost:8080 --allow-http --allow-private-network': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: { 'http://localhost:8080': `http://localhost:${new URL(secondOrigin).port}` },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /1 ok, 0 failed/);
    assert.match(run.stdout, /ok +http:\/\/localhost:\d+ +2 agents/);
  },

  // --- agentry import (a loopback MCP Registry; the demo registry as the other Agentry registry)
  'agentry import https://registry.modelcontextprotocol.io': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: { 'https://registry.modelcontextprotocol.io': `${mcpUrl} ${LOOPBACK_FLAGS}` },
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /\(mcp-registry, everything\) into agentry\.db/);
    assert.match(run.stdout, /agents: 3 imported, 0 deleted, 0 skipped \(older versions\), 0 unreadable/);
  },
  'agentry import https://registry.example.com --kind agentry --db registry.db': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: { 'https://registry.example.com': `${demo.url} ${LOOPBACK_FLAGS}` },
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /\(agentry, everything\) into registry\.db/);
    assert.match(run.stdout, /agents: 3 imported, 0 deleted, 0 skipped \(older versions\), 0 unreadable/);
  },
  'agentry import http://localhost:7420 --allow-http --allow-private-network --full': async (line) => {
    const run = await sh(line, {
      cwd: folder(),
      swaps: { 'http://localhost:7420': `http://localhost:${new URL(demo.url).port}` },
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /agents: 3 imported, 0 deleted, 0 skipped \(older versions\), 0 unreadable/);
  },

  // --- agentry token (on the file of a registry running in the folder: registry.db)
  'agentry token --db registry.db --role admin': async (line) => {
    await onRunningRegistryFile(async ({ cwd, url, firstAdmin }) => {
      const run = await sh(line, { cwd });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, '');
      // A new admin token, which works at once; the lost one no longer does.
      const admin = /\(shown once; keep it\): (agentry_\S+)$/m.exec(run.stdout)?.[1];
      assert.ok(admin, run.stdout);
      assert.match(run.stdout, /the previous admin token no longer works/);
      assert.equal((await getJson(`${url}/admin/audit`, { authorization: `Bearer ${admin}` })).status, 200);
      assert.equal(
        (await getJson(`${url}/admin/audit`, { authorization: `Bearer ${firstAdmin}` })).status,
        401,
      );
    });
  },
  'agentry token --db registry.db --role publisher --publisher acme': async (line) => {
    await onRunningRegistryFile(async ({ cwd, url }) => {
      const run = await sh(line, { cwd });
      assert.equal(run.status, 0, run.stderr);
      const publisher = /\(shown once; keep it\): (agentry_\S+)$/m.exec(run.stdout)?.[1];
      assert.ok(publisher, run.stdout);
      assert.match(run.stdout, /publisher token for acme/);
      // It registers agents owned by acme.
      const registered = await fetch(`${url}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publisher}`, 'content-type': 'application/json' },
        body: readFileSync(join(root, 'examples/documents/flights.agent.json')),
      });
      const body = (await registered.json()) as { registry?: { owner?: string } };
      assert.equal(registered.status, 201, JSON.stringify(body));
      assert.equal(body.registry?.owner, 'acme');
    });
  },
  'agentry token --db registry.db --role client --groups team-a,team-b --json': async (line) => {
    await onRunningRegistryFile(async ({ cwd, url }) => {
      const run = await sh(line, { cwd });
      assert.equal(run.status, 0, run.stderr);
      // One JSON object for scripts; the token reads the registry.
      const client = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.equal(client['role'], 'client');
      assert.deepEqual(client['groups'], ['team-a', 'team-b']);
      assert.equal(client['publisher'], null);
      assert.equal(client['database'], 'registry.db');
      assert.match(String(client['token']), /^agentry_/);
      assert.equal(
        (await getJson(`${url}/agents`, { authorization: `Bearer ${client['token']}` })).status,
        200,
      );
    });
  }, // --- on a PostgreSQL database (a fresh one, dropped after)
  'agentry token --database postgres://postgres@127.0.0.1:5432/agentry --role admin': async (line) => {
    const database = await freshPostgresDatabase();
    try {
      const run = await sh(line, {
        cwd: folder(),
        swaps: { 'postgres://postgres@127.0.0.1:5432/agentry': database.url },
      });
      assert.equal(run.status, 0, run.stderr);
      const admin = /\(shown once; keep it\): (agentry_\S+)$/m.exec(run.stdout)?.[1];
      assert.ok(admin, run.stdout);
      // The database is migrated and holds the token's hash.
      const store = await openRegistryStore(database.url);
      try {
        assert.equal((await store.tokens.authenticate(admin))?.role, 'admin');
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  },
  // --- agentry migrate (registry.db: the demo registry imported into a file; a fresh PostgreSQL database, dropped after)
  'agentry migrate --from registry.db --database postgres://postgres@127.0.0.1:5432/agentry': async (
    line,
  ) => {
    await onMigrationSource(async ({ cwd, url }) => {
      const run = await sh(line, { cwd, swaps: { 'postgres://postgres@127.0.0.1:5432/agentry': url } });
      assert.equal(run.status, 0, run.stderr);
      assert.match(
        run.stdout,
        /^agentry: moved registry\.db into postgres:\/\/.*: 3 agents, \d+ rows in \d+ tables; search index rebuilt for 3 agents$/m,
      );
      assert.match(run.stderr, /^agentry: agents: 3 rows$/m);
      // A registry on the target serves the moved agents, search included.
      const served = await shStart('agentry serve --port 0', { cwd, env: { DATABASE_URL: url } });
      try {
        const search = await fetch(`${served.url}/agents/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'translate text into Chinese', mode: 'lexical' }),
        });
        assert.equal(search.status, 200);
        // Imported agents are named for the registry they came from (localhost-<port>-translator).
        assert.match(String(((await search.json()) as Array<{ id: string }>)[0]?.id), /-translator$/);
      } finally {
        await served.stop();
      }
    });
  },
  'agentry migrate --from registry.db --database postgres://postgres@127.0.0.1:5432/agentry --replace --json':
    async (line) => {
      await onMigrationSource(async ({ cwd, url }) => {
        const swaps = { 'postgres://postgres@127.0.0.1:5432/agentry': url };
        // A target that holds a registry already (an admin token): --replace copies over it.
        const minted = await sh(
          'agentry token --database postgres://postgres@127.0.0.1:5432/agentry --role admin',
          {
            cwd,
            swaps,
          },
        );
        assert.equal(minted.status, 0, minted.stderr);
        const run = await sh(line, { cwd, swaps });
        assert.equal(run.status, 0, run.stderr);
        const summary = JSON.parse(run.stdout) as { tables: Record<string, number>; indexed: number };
        assert.equal(summary.tables['agents'], 3);
        assert.equal(summary.indexed, 3);
        assert.ok((summary.tables['tokens'] ?? 0) >= 1, 'the admin token came along');
      });
    },
};

/** Agents a user writes in plain JavaScript, as `agentry host ./agents.js` serves them. */
const AGENTS_JS = `import { defineAgent } from '@agentry/host';

export const echo = defineAgent({
  id: 'echo',
  name: 'Echo',
  description: 'Says back what it is given.',
  version: '1.0.0',
  operations: {
    default: {
      description: 'Answers with its input.',
      input: { type: 'object' },
      output: { type: 'object' },
      safe: true,
      handler: (input) => input,
    },
  },
});
`;

/** Runs `check` beside a registry running in its folder on ./registry.db, as the token examples assume. */
async function onRunningRegistryFile(
  check: (registry: { cwd: string; url: string; firstAdmin: string }) => Promise<void>,
): Promise<void> {
  const { cwd, url, token } = await writableRegistry('token');
  assert.match(token, /^agentry_/);
  await check({ cwd, url, firstAdmin: token });
}

/** A folder holding registry.db: the demo registry imported into a file (made once, read by each migrate example). */
let migrationSource: Promise<string> | undefined;

/** Runs `check` in the folder holding registry.db, with a fresh PostgreSQL database (`url`), dropped after. */
async function onMigrationSource(
  check: (source: { cwd: string; url: string }) => Promise<void>,
): Promise<void> {
  migrationSource ??= (async () => {
    const cwd = folder();
    const demoUrl = `http://localhost:${new URL(demo.url).port}`;
    const imported = await sh(`agentry import ${demoUrl} ${LOOPBACK_FLAGS} --db registry.db`, { cwd });
    assert.equal(imported.status, 0, imported.stderr);
    return cwd;
  })();
  const cwd = await migrationSource;
  const database = await freshPostgresDatabase();
  try {
    await check({ cwd, url: database.url });
  } finally {
    await database.drop();
  }
}

// ---------------------------------------------------------------------------------------------------------------

const helpExamples = new Map(COMMANDS.map((command) => [command, examplesOf(command)]));

test('every example of every --help has a runner here, and every runner an example', () => {
  const shown = new Set([...helpExamples.values()].flat());
  const missing = [...shown].filter((line) => RUNNERS[line] === undefined);
  assert.deepEqual(missing, [], 'examples in --help without a runner in RUNNERS');
  const stale = Object.keys(RUNNERS).filter((line) => !shown.has(line));
  assert.deepEqual(stale, [], 'runners whose example no --help shows any more');
});

for (const [command, examples] of helpExamples) {
  describe(`agentry ${command === '' ? '' : `${command} `}--help`, () => {
    for (const line of examples) {
      // The top-level help repeats commands' examples: each line runs once, under its command.
      if (command === '' && COMMANDS.some((other) => other !== '' && helpExamples.get(other)?.includes(line)))
        continue;
      test(line, async () => {
        const runner = RUNNERS[line];
        assert.ok(runner, `no runner for: ${line}`);
        await runner(line);
      });
    }
  });
}

describe('the demo registry the examples run against', () => {
  test("its agents carry their facets, so the page's filters find them", async () => {
    const byFilter = async (query: string): Promise<string[]> =>
      ((await getJson(`${demo.url}/agents?${query}`)).body as Array<{ id: string }>)
        .map((agent) => agent.id)
        .sort();
    assert.deepEqual(await byFilter('tags=nlp'), ['summarizer', 'translator']);
    assert.deepEqual(await byFilter('capabilities=translation'), ['translator']);
    assert.deepEqual(await byFilter('language=zh'), ['translator']);
    const translator = (await getJson(`${demo.url}/agents/translator`)).body as Record<string, unknown>;
    assert.match(JSON.stringify(translator['publisher']), /ExampleAI Inc\./);
  });

  test('import without --allow-http names the flag that allows it, not --kind', async () => {
    const cwd = folder();
    const local = `http://localhost:${new URL(demo.url).port}`;
    const run = await sh(`agentry import ${local} --db strict.db`, { cwd });
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /Cannot read http:\/\/localhost:\d+: Plain http: is not allowed.*--allow-http allows it/,
    );
    assert.doesNotMatch(run.stderr, /Name its kind/);
    const loopback = await sh(`agentry import ${local} --allow-http --db strict.db`, { cwd });
    assert.equal(loopback.status, 1);
    assert.match(loopback.stderr, /--allow-private-network allows it/);
  });
});

/**
 * README.md's Quickstart commands, run against `npm start`'s registry (the demo, above) as the README says: `npx
 * agentry` is the `agentry` on PATH here, the registry's port 7420 and the host's 8080 are free ports.
 */
describe('README.md Quickstart', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const quickstart = readme.slice(readme.indexOf('## Quickstart'), readme.indexOf('## The command line'));
  const blocks = [...quickstart.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) => block[1]!);
  /** The commands after "Open the web page, or:", comments dropped. */
  const commands = blocks[1]!
    .split('\n')
    .map((line) => line.replace(/ {2,}#.*$/, '').trim())
    .filter((line) => line !== '');

  test('lists the commands run here', () => {
    assert.deepEqual(commands, [
      'npx agentry search "book a plane ticket to Paris"',
      `curl -s localhost:7420/resolve -d '{"intent": "translate hello into Chinese"}' -H 'content-type: application/json'`,
      'npx agentry host examples/summarizer/agent.ts --port 8080',
      `npx agentry invoke http://127.0.0.1:8080/.well-known/woa.json -i '{"text": "Agents. Everywhere."}' --allow-http --allow-private-network`,
    ]);
    assert.match(quickstart, /lost, `npx agentry token --db\s+agentry\.db --role admin` mints a new one/);
  });

  test('each command does what the README says, in order, against the demo registry', async () => {
    const cwd = folder();
    const npx = { 'npx agentry': 'agentry' };
    const search = await sh(commands[0]!, { cwd, env: { AGENTRY_REGISTRY: demo.url }, swaps: npx });
    assert.equal(search.status, 0, search.stderr);
    assert.match(search.stdout, /^ 1\. flights/m);

    const resolve = await sh(commands[1]!, {
      cwd,
      swaps: { 'localhost:7420': `localhost:${new URL(demo.url).port}` },
    });
    assert.equal(resolve.status, 0, resolve.stderr);
    assert.match(resolve.stdout, /"translator"/);

    await whileRunning(commands[2]!, { cwd, swaps: { ...npx, '--port 8080': '--port 0' } }, async (host) => {
      const invoke = await sh(commands[3]!, {
        cwd,
        swaps: { ...npx, '127.0.0.1:8080': new URL(host.url).host },
      });
      assert.equal(invoke.status, 0, invoke.stderr);
      assert.deepEqual(JSON.parse(invoke.stdout), { summary: 'Agents. Everywhere.' });
    });

    // The lost admin token, on the file npm start made (./agentry.db): the new one works, the old one no longer.
    const token = await sh('agentry token --db agentry.db --role admin', { cwd: demoFolder });
    assert.equal(token.status, 0, token.stderr);
    const minted = /(agentry_\S+)$/m.exec(token.stdout)?.[1];
    assert.ok(minted, token.stdout);
    assert.equal(
      (await getJson(`${demo.url}/admin/audit`, { authorization: `Bearer ${minted}` })).status,
      200,
    );
    assert.equal(
      (await getJson(`${demo.url}/admin/audit`, { authorization: `Bearer ${demoToken}` })).status,
      401,
    );
  });
});
