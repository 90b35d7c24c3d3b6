/**
 * Starting `agentry serve` as a new user meets it, with real processes on loopback and real SQLite files: a port
 * in use is a usage error before any database is made; `agentry token` mints a token offline on the database file
 * (its --help examples run in cli-help-examples.test.ts); and `serve` fetches
 * (gateway, crawler) as AGENTRY_ALLOW_HTTP / AGENTRY_ALLOW_PRIVATE_NETWORK or --allow-http /
 * --allow-private-network say, so an agent hosted on this machine is invoked through the registry.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { agentry, agentryAsync, agentryServer, type Run, root } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-serve-start-'));
const bin = join(root, 'packages/cli/bin/agentry.js');

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `agentry` with these arguments in `cwd`, as a user would type them there. */
/** The CLI in `cwd`, with no registry file or admin token from the environment (the defaults are what is tested). */
function agentryIn(cwd: string, args: string[]): Promise<Run> {
  return agentryAsync(args, { AGENTRY_DB: '', AGENTRY_ADMIN_TOKEN: '' }, { cwd });
}

async function call(
  url: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

describe('agentry serve on a port in use', () => {
  test('is a usage error naming --port, and makes no database (so no admin token is lost)', async () => {
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const { port } = taken.address() as { port: number };
    const database = join(dir, 'never.db');
    try {
      const run = await agentryAsync(
        ['serve', '--port', String(port), '--db', database, '--embeddings', 'none'],
        { AGENTRY_ADMIN_TOKEN: '' },
      );
      assert.equal(run.status, 2, run.stderr);
      assert.equal(run.stderr, `agentry: port ${port} is in use on 127.0.0.1: pick another with --port\n`);
      assert.equal(run.stdout, '');
      assert.equal(existsSync(database), false, 'the database file is not created');
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
  });
});

describe('agentry serve with a flag it cannot use', () => {
  test('is a usage error naming the flag, before any database is made', async () => {
    const database = join(dir, 'refused.db');
    for (const [args, env, message] of [
      // TEST-NET-1: an address no machine of this test has.
      [
        ['--hostname', '192.0.2.1'],
        {},
        /^agentry: --hostname 192\.0\.2\.1 is not an address of this machine/,
      ],
      [['--import-interval', '5'], {}, /^agentry: --import-interval is for --import <registry-url\.\.\.>/],
      [
        ['--import', 'https://registry.example.com', '--import-interval', 'hourly'],
        {},
        /^agentry: --import-interval must be a number of minutes, at least 1, not "hourly"/,
      ],
      [
        ['--database', 'mysql://db.example.com/agentry'],
        {},
        /^agentry: --database must be a postgres:\/\/ URL, a sqlite: URL or a SQLite file path, not a mysql: URL/,
      ],
      [
        [],
        { DATABASE_URL: 'mysql://db.example.com/agentry' },
        /^agentry: DATABASE_URL must be a postgres:\/\/ URL/,
      ],
      [
        ['--db', join(dir, 'no-such-folder', 'registry.db')],
        {},
        /^agentry: The folder of the SQLite database .*no-such-folder.registry\.db does not exist: create it/,
      ],
    ] as const) {
      const named = args.some((arg) => arg === '--db' || arg === '--database') || 'DATABASE_URL' in env;
      const withDb = named ? [] : ['--db', database];
      const run = await agentryAsync(['serve', '--port', '0', '--embeddings', 'none', ...withDb, ...args], {
        AGENTRY_ADMIN_TOKEN: '',
        ...env,
      });
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(run.stdout, '');
    }
    assert.equal(existsSync(database), false, 'no database file is created');
  });
});

describe('agentry token', () => {
  test("the first start's admin token line names the command that replaces the token, which does", async () => {
    const cwd = mkdtempSync(join(dir, 'first-start-'));
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--port', '0', '--db', 'first.db', '--embeddings', 'none'],
      {
        cwd,
        env: { ...process.env, NO_COLOR: '1', AGENTRY_ADMIN_TOKEN: '' },
      },
    );
    const exited = new Promise<number | null>((done) => child.on('close', done));
    let stdout = '';
    const line = await new Promise<string>((found, failed) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const match = /^ {2}admin token .*$/m.exec(stdout);
        if (match !== null) found(match[0]);
      });
      void exited.then(() => failed(new Error(`serve exited before printing the admin token: ${stdout}`)));
    });
    try {
      const named = /if lost: (agentry token [^)]*)\): agentry_/.exec(line);
      assert.ok(named, line);
      assert.equal(named[1], 'agentry token --db first.db --role admin');
      const run = await agentryIn(cwd, named[1]!.split(' ').slice(1));
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^agentry: admin token in first\.db \(shown once; keep it\): agentry_/);
      // --database takes the same file as a sqlite: URL, as its --help says.
      const viaUrl = await agentryIn(cwd, ['token', '--database', 'sqlite:first.db', '--role', 'client']);
      assert.equal(viaUrl.status, 0, viaUrl.stderr);
      assert.match(viaUrl.stdout, /^agentry: client token in first\.db \(shown once; keep it\): agentry_/);
    } finally {
      child.kill('SIGINT');
      assert.equal(await exited, 0);
    }
  });

  test('a missing file, a file that is not a registry, or a wrong role is one line and exit 2', async () => {
    const missing = join(dir, 'missing.db');
    const notRegistry = join(dir, 'notes.txt');
    writeFileSync(notRegistry, 'not a database');
    for (const [args, message] of [
      [['--db', missing, '--role', 'admin'], /^agentry: no registry database at .*missing\.db: pass --db/],
      [
        ['--db', notRegistry, '--role', 'admin'],
        /^agentry: .*notes\.txt is not a registry database: pass --db/,
      ],
      [
        ['--db', missing, '--role', 'owner'],
        /^agentry: --role must be admin, publisher or client, not "owner"/,
      ],
      [['--db', missing, '--role', 'publisher'], /^agentry: --role publisher needs --publisher <name>/],
      [['--db', missing], /required option '--role <role>' not specified/],
    ] as const) {
      const run = agentry(['token', ...args]);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.equal(existsSync(missing), false, 'a missing database is not created');
  });
});

describe('agentry serve fetches as the network settings allow', () => {
  test('with AGENTRY_ALLOW_HTTP/AGENTRY_ALLOW_PRIVATE_NETWORK or the flags, it invokes an agent hosted on this machine (without, 502 naming them)', async () => {
    const host = await agentryServer([
      'host',
      join(root, 'examples/summarizer/agent.ts'),
      '--port',
      '0',
      '--json',
    ]);
    const allowed = { AGENTRY_ALLOW_HTTP: '1', AGENTRY_ALLOW_PRIVATE_NETWORK: '1' };
    try {
      const description = `${String(host.ready['baseUrl'])}/.well-known/woa.json`;
      for (const [name, flags, env] of [
        ['neither', [], {}],
        ['the environment variables', [], allowed],
        ['the flags', ['--allow-http', '--allow-private-network'], {}],
      ] as const) {
        const registry = await agentryServer(
          [
            'serve',
            '--port',
            '0',
            '--db',
            join(dir, `network-${name.replaceAll(' ', '-')}.db`),
            '--embeddings',
            'none',
            '--json',
            ...flags,
          ],
          { ...env, AGENTRY_ADMIN_TOKEN: '' },
        );
        try {
          const url = String(registry.ready['url']);
          const token = String(registry.ready['adminToken']);
          const registered = await agentryAsync(
            ['register', description, '--registry', url, '--token', token, '--all', '--json'],
            allowed,
          );
          assert.equal(registered.status, 0, registered.stderr);
          const ids = (
            (JSON.parse(registered.stdout) as { results?: Array<{ id: string }> }).results ?? []
          ).map((result) => result.id);
          assert.equal(ids.length, 1, registered.stdout);
          const invoked = await call(url, `/agents/${encodeURIComponent(ids[0]!)}/invoke`, token, {
            operation: 'default',
            input: {
              text: 'Registries find agents. They also call those agents for you whenever you ask.',
              max_words: 10,
            },
          });
          // Its crawler follows the same settings: the host's plain-HTTP origin may be queued only when allowed.
          const queued = await call(url, '/hosts', token, { origin: String(host.ready['baseUrl']) });
          if (name === 'neither') {
            // The strict default: refused, and the answer names what the operator would change.
            assert.equal(invoked.status, 502, invoked.text);
            assert.equal((invoked.json as { code?: string }).code, 'AddressRefused');
            assert.match(invoked.text, /agentry serve --allow-http --allow-private-network/);
            assert.equal(queued.status, 400, queued.text);
            assert.match(
              queued.text,
              /HTTPS origins only \(its operator allows HTTP with agentry serve --allow-http\)/,
            );
            continue;
          }
          assert.equal(invoked.status, 200, `with ${name}: ${invoked.text}`);
          assert.deepEqual(invoked.json, { summary: 'Registries find agents.' });
          assert.equal(queued.status, 201, queued.text);
          assert.equal(
            (queued.json as { crawling?: boolean }).crawling,
            false,
            'serve without --crawl says so',
          );
        } finally {
          assert.equal(await registry.stop(), 0);
        }
      }
    } finally {
      assert.equal(await host.stop(), 0);
    }
  });
});
