/**
 * `--database <url>` against the local PostgreSQL server (127.0.0.1:5432; a fresh database, dropped at the end):
 * `agentry token` mints into it; a database that does not exist, a user that does not exist, a port nothing listens
 * on and a URL that is not one are each one line naming the flag, exit 2, no stack trace, for every command that
 * opens the database; `agentry serve` on PostgreSQL serves the registry, search included. What the commands print
 * names a URL with `--database` and masks its password.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openRegistryStore } from '@agentry/registry';
import { freshPostgresDatabase, type TestPostgres } from '../../registry/test/db/postgres-fixture.js';
import { agentryAsync, agentryServer } from './run-cli.js';

function withPart(url: string, change: (url: URL) => void): string {
  const parsed = new URL(url);
  change(parsed);
  return parsed.href;
}

describe('agentry --database on PostgreSQL', () => {
  let database: TestPostgres;
  before(async () => {
    database = await freshPostgresDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  test('agentry token mints into the database (DATABASE_URL too), and the store accepts it', async () => {
    const run = await agentryAsync([
      'token',
      '--database',
      database.url,
      '--role',
      'publisher',
      '--publisher',
      'acme',
    ]);
    assert.equal(run.status, 0, run.stderr);
    const token = /\(shown once; keep it\): (agentry_\S+)$/m.exec(run.stdout)?.[1];
    assert.ok(token, run.stdout);
    const fromEnv = await agentryAsync(['token', '--role', 'client', '--json'], {
      DATABASE_URL: database.url,
    });
    assert.equal(fromEnv.status, 0, fromEnv.stderr);
    const client = JSON.parse(fromEnv.stdout) as { token: string };
    const store = await openRegistryStore(database.url);
    try {
      assert.equal((await store.tokens.authenticate(token))?.publisher, 'acme');
      assert.equal((await store.tokens.authenticate(client.token))?.role, 'client');
    } finally {
      await store.close();
    }
  });

  test('what token and crawl print names the URL with --database and never its password', async () => {
    const secret = 'hint-secret-Zq7';
    const withPassword = withPart(database.url, (url) => {
      url.password = secret;
    });
    const masked = withPart(database.url, (url) => {
      url.password = '***';
    }).replace('%2A%2A%2A', '***');
    const minted = await agentryAsync(['token', '--database', withPassword, '--role', 'client']);
    assert.equal(minted.status, 0, minted.stderr);
    assert.ok(!minted.stdout.includes(secret) && !minted.stderr.includes(secret), minted.stdout);
    assert.ok(minted.stdout.includes(` in ${masked} `), minted.stdout);
    const json = await agentryAsync(['token', '--role', 'client', '--json'], { DATABASE_URL: withPassword });
    assert.equal(json.status, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { database: string }).database, masked);
    // A database the crawl creates: its admin token is generated, with a hint to make a new one.
    const fresh = await freshPostgresDatabase();
    try {
      const freshUrl = withPart(fresh.url, (url) => {
        url.password = secret;
      });
      const crawled = await agentryAsync(['crawl', 'https://127.0.0.1:1', '--database', freshUrl, '--json'], {
        AGENTRY_EMBEDDINGS: 'none',
      });
      assert.notEqual(crawled.status, 2, crawled.stderr);
      const output = crawled.stdout + crawled.stderr;
      assert.ok(!output.includes(secret), output);
      const freshMasked = withPart(fresh.url, (url) => {
        url.password = '***';
      }).replace('%2A%2A%2A', '***');
      assert.ok(
        crawled.stderr.includes(`if lost: agentry token --database '${freshMasked}' --role admin`),
        crawled.stderr,
      );
      assert.ok(!/agentry token --db/.test(crawled.stderr), crawled.stderr);
    } finally {
      await fresh.drop();
    }
  });

  test('an unreachable, missing or refusing database is one line and exit 2 for token, serve, crawl and import', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        withPart(database.url, (url) => {
          url.pathname = '/agentry_no_such_database';
        }),
        /^agentry: PostgreSQL database "agentry_no_such_database" does not exist on 127\.0\.0\.1:5432: .*--database/,
      ],
      [
        withPart(database.url, (url) => {
          url.username = 'agentry_no_such_user';
        }),
        /^agentry: PostgreSQL on 127\.0\.0\.1:5432 refused the login of user "agentry_no_such_user" .*--database/,
      ],
      [
        withPart(database.url, (url) => {
          url.port = '1';
        }),
        /^agentry: No PostgreSQL server is listening on 127\.0\.0\.1:1: .*--database/,
      ],
    ];
    for (const [url, message] of cases) {
      for (const args of [
        ['token', '--database', url, '--role', 'admin'],
        ['serve', '--database', url, '--port', '0'],
        ['crawl', 'https://agents.example.com', '--database', url],
        ['import', 'https://registry.example.com', '--database', url],
      ]) {
        const run = await agentryAsync(args, { AGENTRY_EMBEDDINGS: 'none' });
        assert.equal(run.status, 2, `${args[0]}: ${run.stderr}`);
        assert.match(run.stderr, message, args[0]);
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      }
    }
  });

  test('agentry serve on PostgreSQL serves the registry, search included', async () => {
    const served = await agentryServer(
      ['serve', '--database', database.url, '--port', '0', '--embeddings', 'none', '--json'],
      { AGENTRY_ADMIN_TOKEN: 'cli-database-admin' },
    );
    try {
      const url = String(served.ready['url']);
      const search = await fetch(`${url}/agents/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'translate text' }),
      });
      assert.equal(search.status, 200, await search.clone().text());
      assert.ok(Array.isArray(await search.json()));
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  });

  test('--database and --db together are a usage error', async () => {
    const run = await agentryAsync(['token', '--database', database.url, '--db', 'x.db', '--role', 'admin']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /pass --database or --db, not both/);
  });
});
