/**
 * `agentry crawl` killed with SIGKILL mid-crawl, then run again on the same database, over the same origins as a
 * `--from` list: the queue resumes (what was done is not due, so not fetched again and reported skipped; the rest
 * is crawled, including the origins the dead process had claimed), every
 * origin's agents are in the registry exactly once, and the database passes SQLite's integrity check.
 *
 * Deterministic without timing: the origins of the second half hold every request until the process is killed, so
 * the first process can finish the first half and nothing more. The test waits for that (finished crawls counted in
 * the database, a request held) before killing.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createRegistry } from '@agentry/registry';
import { crawledId, crawlOwner } from '@agentry/registry/crawler';
import Database from 'better-sqlite3';
import { agentryAsync, root } from './run-cli.js';

/** Origins crawled before the kill; as many again are held mid-crawl when it comes. */
const DONE_FIRST = 24;
const HELD = 24;
const dev = ['--allow-http', '--allow-private-network', '--embeddings', 'none', '--no-liveness'];

interface Origin {
  url: string;
  server: Server;
  requests: string[];
  /** Answers held back (only while `holding`). */
  held: ServerResponse[];
  holding: boolean;
}

let dir = '';
let origins: Origin[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentry-cli-crawl-restart-'));
  const woa = readFileSync(join(root, 'examples/documents/summarizer.woa.json'), 'utf8');
  // One loopback server per origin: an origin is scheme, host and port.
  origins = await Promise.all(
    Array.from({ length: DONE_FIRST + HELD }, async (_, index): Promise<Origin> => {
      const origin: Origin = {
        url: '',
        server: createServer(),
        requests: [],
        held: [],
        holding: index >= DONE_FIRST,
      };
      origin.server.on('request', (request, response) => {
        origin.requests.push(`${request.method} ${request.url}`);
        if (origin.holding) {
          origin.held.push(response);
          return;
        }
        if (request.url === '/.well-known/woa.json') {
          response.writeHead(200, {
            'content-type': 'application/json',
            etag: '"v1"',
            'cache-control': 'max-age=600',
          });
          // Each origin publishes its own agents: the document's endpoints are on the origin that serves it (the
          // same endpoints served from several origins would be one agent, docs/registry.md "Identity").
          response.end(woa.replaceAll('https://agents.example.com', origin.url));
          return;
        }
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"title":"Not Found"}');
      });
      origin.server.listen(0, '127.0.0.1');
      await once(origin.server, 'listening');
      origin.url = `http://127.0.0.1:${(origin.server.address() as AddressInfo).port}`;
      return origin;
    }),
  );
});

after(async () => {
  for (const origin of origins) {
    origin.server.closeAllConnections();
    origin.server.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Polls the database (read-only, beside the crawling process) until `ready` says so. */
async function waitForDatabase(path: string, ready: (db: Database.Database) => boolean, child: ChildProcess) {
  for (;;) {
    assert.equal(child.exitCode, null, 'the crawl ended before it could be killed');
    try {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        if (ready(db)) return;
      } finally {
        db.close();
      }
    } catch (error) {
      // The file or the crawler's tables do not exist yet.
      if (!/no such table|unable to open|does not exist/i.test(String(error))) throw error;
    }
    await delay(50);
  }
}

test('a crawl killed with SIGKILL resumes on restart without losing or duplicating work', async () => {
  const path = join(dir, 'registry.db');
  const all = origins.map((origin) => origin.url);
  const bin = join(root, 'packages/cli/bin/agentry.js');
  const child = spawn(process.execPath, [bin, 'crawl', ...all, '--db', path, '--concurrency', '4', ...dev], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');

  // The first half recorded, and the process waiting on the second half's answers: mid-crawl.
  const firstHalf = all.slice(0, DONE_FIRST);
  await waitForDatabase(
    path,
    (db) => {
      const done = db
        .prepare(
          `SELECT count(*) AS n FROM crawl_hosts WHERE crawls > 0 AND origin IN (${firstHalf.map(() => '?').join(',')})`,
        )
        .get(...firstHalf) as { n: number };
      return done.n === DONE_FIRST && origins.some((origin) => origin.held.length > 0);
    },
    child,
  );
  child.kill('SIGKILL');
  const [code, signal] = await exited;
  assert.equal(signal, 'SIGKILL', `exited by itself (${code})`);

  const claimed = new Database(path, { readonly: true });
  const inFlight = claimed.prepare(`SELECT origin FROM crawl_hosts WHERE status = 'claimed'`).all() as Array<{
    origin: string;
  }>;
  claimed.close();
  assert.ok(inFlight.length > 0, 'the dead process left claims behind');

  for (const origin of origins) {
    origin.holding = false;
    for (const response of origin.held) response.destroy();
    origin.held = [];
    origin.requests = [];
  }

  // A list, as a cron job runs it: its origins are crawled as they fall due (named ones would all be asked again).
  const list = join(dir, 'origins.txt');
  writeFileSync(list, `${all.join('\n')}\n`);
  const run = await agentryAsync([
    'crawl',
    '--from',
    list,
    '--db',
    path,
    '--concurrency',
    '4',
    '--json',
    ...dev,
  ]);
  assert.equal(run.status, 0, run.stderr);
  const summary = JSON.parse(run.stdout) as {
    ok: number;
    skipped: number;
    failed: number;
    aborted: boolean;
    agents: Record<string, number>;
    origins: Array<{ origin: string; outcome: string }>;
  };
  assert.equal(
    summary.ok,
    HELD,
    JSON.stringify(summary.origins.filter((o) => o.outcome !== 'changed' && o.outcome !== 'not-due')),
  );
  assert.equal(summary.skipped, DONE_FIRST);
  assert.equal(summary.failed, 0);
  assert.equal(summary.aborted, false);

  // Done before the kill: not due, nothing fetched again (every document is within its lifetime). The rest: crawled.
  for (const origin of origins.slice(0, DONE_FIRST)) assert.deepEqual(origin.requests, [], origin.url);
  for (const origin of origins.slice(DONE_FIRST)) {
    assert.ok(origin.requests.includes('GET /.well-known/woa.json'), `${origin.url} was crawled`);
  }
  const outcomes = new Map(summary.origins.map((result) => [result.origin, result.outcome]));
  for (const url of all.slice(0, DONE_FIRST)) assert.equal(outcomes.get(url), 'not-due', url);
  for (const url of all.slice(DONE_FIRST)) assert.equal(outcomes.get(url), 'changed', url);
  const perOrigin = 2; // the summarizer document describes two agents
  assert.equal(summary.agents['added'], HELD * perOrigin);
  assert.equal(summary.agents['unchanged'], 0, 'origins not due are not crawled, so not counted');

  const registry = await createRegistry({ databasePath: path, embeddings: 'none' });
  try {
    assert.deepEqual(await registry.store.integrityCheck(), ['ok']);
    const hosts = await registry.crawler.hosts();
    assert.equal(hosts.length, all.length);
    for (const host of hosts) {
      assert.equal(host.state, 'idle', host.origin);
      assert.equal(host.agents, perOrigin, host.origin);
      // The first half: crawled before the kill, not due after; the second: crawled once, after the restart.
      assert.equal(host.crawls, 1, host.origin);
    }
    const owners = await registry.store.db
      .selectFrom('agents')
      .select(['owner', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy('owner')
      .execute();
    const counts = new Map(owners.map((row) => [row.owner, Number(row.count)]));
    for (const url of all) {
      assert.equal(counts.get(crawlOwner(url)), perOrigin, `${url}: each agent exactly once`);
      const record = await registry.store.agents.get(crawledId(url, 'summarizer'));
      assert.equal(record?.owner, crawlOwner(url));
    }
  } finally {
    await registry.close();
  }
});
