/**
 * Every example in `agentry crawl --help`, `agentry import --help` and `agentry search --help` runs here, through the
 * built CLI, and does what it says. The examples are read from the help itself, so a new one must be given a run
 * here. An example naming a public host runs against a loopback equivalent: the demo registry (`agentry serve
 * --demo`, what `npm start` runs), loopback origins serving agent descriptions, and a loopback MCP Registry. Only
 * the address is swapped (and, for a loopback address, the flags that allow it are added); the rest is verbatim.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OFFICIAL_META } from '@agentry/registry';
import { agentry, agentryAsync, agentryServer, type Running, root } from './run-cli.js';

const ALLOW_LOOPBACK = ['--allow-http', '--allow-private-network'];
/** Crawls and imports index lexically here: the examples' own flags stay as written. */
const LEXICAL = { AGENTRY_EMBEDDINGS: 'none' };

/** The examples of `agentry <command> --help`, each split into its words. */
function examplesOf(command: string): string[][] {
  const help = agentry([command, '--help']);
  assert.equal(help.status, 0, help.stderr);
  const lines = help.stdout.split('\n');
  const start = lines.indexOf('Examples:');
  assert.ok(start >= 0, `agentry ${command} --help has no examples`);
  return lines
    .slice(start + 1)
    .filter((line) => line.startsWith('  agentry '))
    .map((line) => words(line.trim()).slice(1));
}

/** Shell words: spaces separate, double quotes group. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

/** `example` with each of `swaps`' words replaced. */
function swapped(example: readonly string[], swaps: Record<string, string>): string[] {
  return example.map((word) => swaps[word] ?? word);
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** An origin serving the example WoA document (its REST transport on the origin's https twin, on loopback). */
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

/** A registry speaking the official MCP Registry API, over the first records of the shared seed. */
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

let dir = '';
let demo: Running;
let demoUrl = '';
let demoPort = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentry-cli-examples-'));
  demo = await agentryServer([
    'serve',
    '--demo',
    '--port',
    '0',
    '--db',
    join(dir, 'demo.db'),
    '--embeddings',
    'none',
    '--json',
  ]);
  demoUrl = String(demo.ready['url']);
  demoPort = new URL(demoUrl).port;
});

after(async () => {
  await demo.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('agentry search --help', () => {
  const examples = examplesOf('search');
  const registry = (): Record<string, string> => ({ AGENTRY_REGISTRY: demoUrl });

  test('lists the examples run here', () => {
    assert.deepEqual(examples, [
      ['search', 'book a flight to Paris'],
      ['search', 'translate chinese', '--tags', 'nlp', '--json'],
      ['search', 'summarize an article', '--top', '3', '--registry', 'https://registry.example.com'],
    ]);
  });

  test('"book a flight to Paris" finds the flight agent on the demo registry (the default registry)', async () => {
    const run = await agentryAsync(examples[0]!, registry());
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ 1\. flights/m);
  });

  test('"translate chinese" --tags nlp finds agents, each tagged nlp', async () => {
    const run = await agentryAsync(examples[1]!, registry());
    assert.equal(run.status, 0, run.stderr);
    const hits = JSON.parse(run.stdout) as Array<{ id: string; tags?: string[] }>;
    assert.ok(hits.length > 0);
    assert.equal(hits[0]?.id, 'translator');
    for (const hit of hits) assert.ok(hit.tags?.includes('nlp'), `${hit.id}: ${JSON.stringify(hit.tags)}`);
  });

  test('"summarize an article" --top 3 --registry <url> asks that registry', async () => {
    const run = await agentryAsync(swapped(examples[2]!, { 'https://registry.example.com': demoUrl }));
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ 1\. summarizer/m);
    assert.doesNotMatch(run.stdout, /^ 4\./m);
  });

  test("the demo agents carry their facets, so the page's filters find them", async () => {
    const byFilter = async (query: string): Promise<string[]> => {
      const answer = await fetch(`${demoUrl}/agents?${query}`);
      return ((await answer.json()) as Array<{ id: string }>).map((agent) => agent.id).sort();
    };
    assert.deepEqual(await byFilter('tags=nlp'), ['summarizer', 'translator']);
    assert.deepEqual(await byFilter('capabilities=translation'), ['translator']);
    assert.deepEqual(await byFilter('language=zh'), ['translator']);
    const translator = (await (await fetch(`${demoUrl}/agents/translator`)).json()) as Record<
      string,
      unknown
    >;
    assert.match(JSON.stringify(translator['publisher']), /ExampleAI Inc\./);
  });
});

describe('agentry crawl --help', () => {
  const examples = examplesOf('crawl');
  const servers = [agentOrigin(), agentOrigin()];
  let first = '';
  let second = '';
  let work = '';

  before(async () => {
    const [a, b] = await Promise.all(servers.map(listen));
    first = `http://127.0.0.1:${a}`;
    second = `http://localhost:${b}`;
    work = mkdtempSync(join(dir, 'crawl-'));
  });
  after(async () => {
    await Promise.all(servers.map(close));
  });

  test('lists the examples run here', () => {
    assert.deepEqual(examples, [
      ['crawl', 'https://agents.example.com', 'api.example.org'],
      [
        'crawl',
        '--from',
        'origins.txt',
        '--db',
        'registry.db',
        '--concurrency',
        '64',
        '--embeddings',
        'none',
      ],
      ['crawl', 'http://localhost:8080', '--allow-http', '--allow-private-network'],
    ]);
  });

  test('crawling two origins named on the command line registers their agents', async () => {
    const example = swapped(examples[0]!, { 'https://agents.example.com': first, 'api.example.org': second });
    const run = await agentryAsync([...example, ...ALLOW_LOOPBACK], LEXICAL, { cwd: work });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /crawled 2 origins into agentry\.db .*: 2 ok, 0 failed/);
    assert.match(run.stdout, /agents: 4 added/);
  });

  test('--from origins.txt crawls the origins the file lists into registry.db', async () => {
    writeFileSync(join(work, 'origins.txt'), `# the agents we index\n${first}\n${second}\n`);
    const run = await agentryAsync([...examples[1]!, ...ALLOW_LOOPBACK], {}, { cwd: work });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /crawled 2 origins into registry\.db .*: 2 ok, 0 failed/);
    assert.match(run.stdout, /agents: 4 added/);
  });

  test('http://localhost:<port> with --allow-http --allow-private-network crawls a local origin now', async () => {
    const port = new URL(second).port;
    const run = await agentryAsync(
      swapped(examples[2]!, { 'http://localhost:8080': `http://localhost:${port}` }),
      LEXICAL,
      { cwd: work },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /1 ok, 0 failed/);
    assert.match(run.stdout, /ok +http:\/\/localhost:\d+ +2 agents, unchanged/);
  });
});

describe('agentry import --help', () => {
  const examples = examplesOf('import');
  const mcp = mcpRegistry();
  let mcpUrl = '';
  let work = '';

  before(async () => {
    mcpUrl = `http://127.0.0.1:${await listen(mcp)}`;
    work = mkdtempSync(join(dir, 'import-'));
  });
  after(async () => {
    await close(mcp);
  });

  test('lists the examples run here', () => {
    assert.deepEqual(examples, [
      ['import', 'https://registry.modelcontextprotocol.io'],
      ['import', 'https://registry.example.com', '--kind', 'agentry', '--db', 'registry.db'],
      ['import', 'http://localhost:7420', '--allow-http', '--allow-private-network', '--full'],
    ]);
  });

  test('importing the MCP Registry reads its servers', async () => {
    const example = swapped(examples[0]!, { 'https://registry.modelcontextprotocol.io': mcpUrl });
    const run = await agentryAsync([...example, ...ALLOW_LOOPBACK], LEXICAL, { cwd: work });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /\(mcp-registry, everything\) into agentry\.db/);
    assert.match(run.stdout, /agents: 3 imported, 0 deleted, 0 skipped \(older versions\), 0 unreadable/);
  });

  test('--kind agentry imports another Agentry registry (the demo) into registry.db', async () => {
    const example = swapped(examples[1]!, { 'https://registry.example.com': demoUrl });
    const run = await agentryAsync([...example, ...ALLOW_LOOPBACK], LEXICAL, { cwd: work });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /\(agentry, everything\) into registry\.db/);
    assert.match(run.stdout, /agents: 3 imported, 0 deleted, 0 skipped \(older versions\), 0 unreadable/);
  });

  test('http://localhost:<port> --allow-http --allow-private-network --full imports the demo registry', async () => {
    const example = swapped(examples[2]!, { 'http://localhost:7420': `http://localhost:${demoPort}` });
    const run = await agentryAsync(example, LEXICAL, { cwd: work });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /agents: 3 imported, 0 deleted, 0 skipped \(older versions\), 0 unreadable/);
  });

  test('without --allow-http the error names the flag that allows it, not --kind', async () => {
    const run = await agentryAsync(
      ['import', `http://localhost:${demoPort}`, '--db', join(work, 'strict.db')],
      LEXICAL,
    );
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /Cannot read http:\/\/localhost:\d+: Plain http: is not allowed.*--allow-http allows it/,
    );
    assert.doesNotMatch(run.stderr, /Name its kind/);
    const loopback = await agentryAsync(
      ['import', `http://localhost:${demoPort}`, '--allow-http', '--db', join(work, 'strict.db')],
      LEXICAL,
    );
    assert.equal(loopback.status, 1);
    assert.match(loopback.stderr, /--allow-private-network allows it/);
  });
});
