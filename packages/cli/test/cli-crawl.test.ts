/**
 * `agentry crawl` end to end: the built CLI, as a separate process, crawling a real loopback origin into a registry
 * database in a temp directory, which a registry opened afterwards serves. Failures (an origin that refuses
 * connections, plain HTTP without the flag) and usage errors are checked by exit status and message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher } from '@agentry/client';
import { createRegistry } from '@agentry/registry';
import { crawledId, createCrawler } from '@agentry/registry/crawler';
import { agentryAsync, root } from './run-cli.js';

const dev = ['--allow-http', '--allow-private-network', '--embeddings', 'none', '--no-liveness'];
let server: Server;
let origin = '';
let closedOrigin = '';
let dir = '';
let requests: string[] = [];
/** Set by a test: the next request for the WoA document is held, and handed to it here, until it answers it. */
let holdNextWoa: ((response: ServerResponse) => void) | undefined;
let woaAnswer = (_response: ServerResponse): void => {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentry-cli-crawl-'));
  const woa = JSON.parse(
    readFileSync(join(root, 'examples/documents/summarizer.woa.json'), 'utf8'),
  ) as Record<string, unknown>;
  woaAnswer = (response) => {
    response.writeHead(200, {
      'content-type': 'application/json',
      etag: '"v1"',
      'cache-control': 'max-age=600',
    });
    response.end(JSON.stringify(woa));
  };
  server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (request.url === '/.well-known/woa.json') {
      const hold = holdNextWoa;
      holdNextWoa = undefined;
      if (hold !== undefined) hold(response);
      else woaAnswer(response);
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"title":"Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nothing listens on: a server opened and closed again.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('agentry crawl', () => {
  const db = (): string => join(dir, 'registry.db');

  test('crawls an origin into the database; the registry serves its agents', async () => {
    requests = [];
    const run = await agentryAsync(['crawl', origin, '--db', db(), '--json', ...dev]);
    assert.equal(run.status, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(summary['ok'], 1);
    assert.equal(summary['failed'], 0);
    assert.deepEqual(summary['agents'], { added: 2, updated: 0, unchanged: 0, inactive: 0, tombstoned: 0 });
    assert.deepEqual(summary['origins'], [{ origin, outcome: 'changed', agents: 2 }]);
    assert.ok(requests.includes('GET /.well-known/woa.json'));
    assert.match(
      run.stderr,
      /admin token \(shown once; keep it\): agentry_/,
      'a new database prints its admin token',
    );
    assert.match(run.stderr, /crawling: 1\/1 origins done, 0 failed/);

    const registry = await createRegistry({ databasePath: db(), embeddings: 'none' });
    try {
      const record = await registry.store.agents.get(crawledId(origin, 'summarizer'));
      assert.equal(record?.agent.name, 'Summarizer');
      assert.equal(record?.owner, 'crawler:127.0.0.1:' + new URL(origin).port);
      const hosts = await registry.crawler.hosts();
      assert.deepEqual(
        hosts.map((host) => [host.origin, host.addedBy, host.crawls]),
        [[origin, 'cli', 1]],
      );
    } finally {
      await registry.close();
    }
  });

  test('an origin named again is crawled now, fresh or not, and its agents are unchanged', async () => {
    requests = [];
    const run = await agentryAsync(['crawl', origin, '--db', db(), ...dev]);
    assert.equal(run.status, 0, run.stderr);
    assert.ok(requests.includes('GET /.well-known/woa.json'), 'asked for again, though within its max-age');
    assert.match(run.stdout, /1 origin into .* \(\d+ requests\): 1 ok, 0 failed/);
    assert.match(run.stdout, /agents: 0 added, 0 updated, 2 unchanged, 0 marked inactive, 0 tombstoned/);
    assert.match(run.stdout, new RegExp(`ok +${origin.replaceAll('.', '\\.')} +2 agents, unchanged`));
    assert.doesNotMatch(run.stderr, /admin token/, 'the token is printed for a new database only');
  });

  test('an origin of --from with nothing due is skipped, said to be, and not called ok; --force crawls it', async () => {
    const list = join(dir, 'fresh.txt');
    writeFileSync(list, `${origin}\n`);
    requests = [];
    const run = await agentryAsync(['crawl', '--from', list, '--db', db(), ...dev]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(requests.length, 0, 'every document is within its max-age');
    assert.match(run.stdout, /0 ok, 1 skipped \(not due\), 0 failed/);
    assert.match(
      run.stdout,
      new RegExp(`skipped +${origin.replaceAll('.', '\\.')} +not due until \\d{4}-\\d\\d-\\d\\dT`),
    );
    assert.doesNotMatch(run.stdout, /^ +ok /m);
    const forced = await agentryAsync(['crawl', '--from', list, '--force', '--db', db(), '--json', ...dev]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.ok(requests.includes('GET /.well-known/woa.json'));
    assert.deepEqual((JSON.parse(forced.stdout) as { origins: unknown }).origins, [
      { origin, outcome: 'unchanged', agents: 2 },
    ]);
  });

  test('a crawl refused for plain HTTP does not poison the origin: the same crawl with the flags crawls it', async () => {
    const strict = join(dir, 'poison.db');
    const refused = await agentryAsync([
      'crawl',
      origin,
      '--db',
      strict,
      '--embeddings',
      'none',
      '--no-liveness',
    ]);
    assert.equal(refused.status, 1);
    requests = [];
    const run = await agentryAsync(['crawl', origin, '--db', strict, '--json', ...dev]);
    assert.equal(run.status, 0, run.stderr);
    assert.ok(requests.includes('GET /.well-known/woa.json'));
    const summary = JSON.parse(run.stdout) as { origins: unknown; agents: { added: number } };
    assert.deepEqual(summary.origins, [{ origin, outcome: 'changed', agents: 2 }]);
    assert.equal(summary.agents.added, 2);
  });

  test('an origin that cannot be crawled is reported with its reason, and the exit status is 1', async () => {
    const list = join(dir, 'origins.txt');
    writeFileSync(list, `# two origins\n${origin}\n\n${closedOrigin}   # nobody listens here\n`);
    const run = await agentryAsync(['crawl', '--from', list, '--db', db(), '--json', ...dev]);
    assert.equal(run.status, 1, run.stderr);
    const summary = JSON.parse(run.stdout) as {
      ok: number;
      skipped: number;
      failed: number;
      origins: Array<Record<string, unknown>>;
    };
    assert.equal(summary.skipped, 1, 'the origin crawled before is not due');
    assert.equal(summary.failed, 1);
    const failed = summary.origins.find((result) => result['origin'] === closedOrigin);
    assert.equal(failed?.['outcome'], 'unreachable');
    assert.match(String(failed?.['error']), /ECONNREFUSED|refused|connect/i);
  });

  test('an origin another crawler takes over mid-crawl is reported on stderr and in --json, and is no failure', async () => {
    const contested = join(dir, 'contested.db');
    // The CLI's request for the WoA document is held until another crawler on the same database has crawled the
    // origin. That crawler's clock is an hour ahead, so for it the CLI's lease (5 minutes) has run out.
    const held = new Promise<ServerResponse>((resolve) => {
      holdNextWoa = resolve;
    });
    const running = agentryAsync(['crawl', origin, '--db', contested, '--json', ...dev]);
    const heldResponse = await held;
    const registry = await createRegistry({ databasePath: contested, embeddings: 'none' });
    const fetcher = createSecureFetcher({ allowHttp: true, allowPrivateNetwork: true, cache: false });
    try {
      const other = createCrawler({
        db: registry.store.db,
        fetcher,
        sink: registry.crawlSink,
        liveness: false,
        instanceId: 'other-crawler',
        now: () => Date.now() + 3_600_000,
      });
      const taken = await other.runOnce();
      assert.equal(taken.changed, 1, 'the other crawler takes the expired claim over');
    } finally {
      await fetcher.close();
      await registry.close();
    }
    woaAnswer(heldResponse);
    const run = await running;
    assert.equal(run.status, 0, run.stderr);
    const escaped = origin.replaceAll('.', '\\.');
    assert.match(
      run.stderr,
      new RegExp(`crawling: ${escaped} taken over by another crawler on the same database`),
    );
    assert.match(run.stderr, /crawling: 1\/1 origins done, 0 failed/, 'the origin taken over counts as done');
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(summary['lostClaims'], 1);
    assert.equal(summary['ok'], 0);
    assert.equal(summary['failed'], 0);
    assert.deepEqual(summary['origins'], [{ origin, outcome: 'taken-over', agents: 0 }]);
  });

  test('plain HTTP is refused without --allow-http', async () => {
    const run = await agentryAsync(['crawl', origin, '--db', join(dir, 'strict.db'), '--embeddings', 'none']);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /failed +http:\/\/127\.0\.0\.1:\d+ +unreachable: Refused/);
  });

  test('--max-agents-per-origin (or AGENTRY_MAX_AGENTS_PER_ORIGIN) keeps that many agents and reports the rest dropped', async () => {
    const flagged = await agentryAsync([
      'crawl',
      origin,
      '--db',
      join(dir, 'capped.db'),
      '--max-agents-per-origin',
      '1',
      '--json',
      ...dev,
    ]);
    assert.equal(flagged.status, 0, flagged.stderr);
    const summary = JSON.parse(flagged.stdout) as {
      agents: { added: number };
      dropped: { agents: number; documents: number };
      origins: Array<{ agents: number; dropped?: { agents: number } }>;
    };
    assert.equal(summary.agents.added, 1);
    assert.deepEqual(summary.dropped, { agents: 1, documents: 0 });
    assert.equal(summary.origins[0]?.agents, 1);
    assert.deepEqual(summary.origins[0]?.dropped, { agents: 1, documents: 0 });

    const fromEnv = await agentryAsync(['crawl', origin, '--db', join(dir, 'capped-env.db'), ...dev], {
      AGENTRY_MAX_AGENTS_PER_ORIGIN: '1',
    });
    assert.equal(fromEnv.status, 0, fromEnv.stderr);
    assert.match(fromEnv.stdout, /1 agent; 1 more agent dropped \(--max-agents-per-origin\)/);
    assert.match(fromEnv.stdout, /agents: 1 added, .*, 1 dropped \(over the per-origin limit\)/);

    const wrong = await agentryAsync([
      'crawl',
      origin,
      '--db',
      join(dir, 'never.db'),
      '--max-agents-per-origin',
      '0',
    ]);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /--max-agents-per-origin must be a positive integer or none; got "0"/);
  });

  test('usage errors exit 2 without touching a database', async () => {
    for (const args of [
      ['crawl'],
      ['crawl', origin, 'ftp://files.example.com'],
      ['crawl', '--from', join(dir, 'missing.txt')],
    ]) {
      const run = await agentryAsync([...args, '--db', join(dir, 'never.db')]);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^agentry: /m);
    }
    assert.throws(() => readFileSync(join(dir, 'never.db')), /ENOENT/);
  });
});
