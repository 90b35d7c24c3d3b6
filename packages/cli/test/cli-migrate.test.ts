/**
 * `agentry migrate` refusing, on the built CLI: a missing source file, a URL that is not one, a refused login and a
 * target that already holds a registry are each one line naming the flag, exit 2, with nothing on stdout. (The move itself runs as `agentry migrate --help`'s
 * examples, in cli-help-examples.test.ts; what it copies is compared row by row in the registry's
 * test/db/copy-database.test.ts.)
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openRegistryStore } from '@agentry/registry';
import { freshPostgresDatabase, type TestPostgres } from '../../registry/test/db/postgres-fixture.js';
import { tempDir } from '../../registry/test/fixtures.js';
import { agentryAsync } from './run-cli.js';

describe('agentry migrate refuses', () => {
  const dir = tempDir();
  const source = join(dir.path, 'registry.db');
  let target: TestPostgres;

  before(async () => {
    target = await freshPostgresDatabase();
    // A registry file, and a target that already holds one (its admin token).
    for (const location of [source, target.url]) {
      const store = await openRegistryStore(location);
      try {
        await store.tokens.ensureAdmin(undefined);
      } finally {
        await store.close();
      }
    }
  });
  after(async () => {
    await target?.drop();
    dir.remove();
  });

  test('each with one line naming the flag, exit 2', async () => {
    const elsewhere = (change: (url: URL) => void): string => {
      const url = new URL(target.url);
      change(url);
      return url.href;
    };
    // What, the arguments, the one line expected, and the environment (by default no DATABASE_URL nor AGENTRY_DB).
    const cases: Array<[string, string[], RegExp, Record<string, string>?]> = [
      [
        'missing source',
        ['--from', join(dir.path, 'missing.db'), '--database', target.url],
        /^agentry: There is no registry database file at .*missing\.db \(--from\)$/,
      ],
      [
        'a URL that is not one',
        ['--from', source, '--database', 'postgres://postgres@[bad/agentry'],
        /^agentry: The database URL postgres:\/\/postgres@\[bad\/agentry is not a valid URL \(--database/,
      ],
      [
        'refused login',
        [
          '--from',
          source,
          '--database',
          elsewhere((url) => {
            url.username = 'agentry_no_such_user';
          }),
        ],
        /^agentry: PostgreSQL on 127\.0\.0\.1:5432 refused the login of user "agentry_no_such_user" .*--database/,
      ],
      [
        'a target that is a SQLite file',
        ['--from', source, '--database', 'sqlite:other.db'],
        /^agentry: --database must be a postgres:\/\/ URL \(the database the registry moves into\), not sqlite:other\.db$/,
      ],
      [
        'a SQLite DATABASE_URL (the one serve uses), without --database',
        ['--from', source],
        /^agentry: DATABASE_URL must be a postgres:\/\/ URL \(the database the registry moves into\), not /,
        { DATABASE_URL: source },
      ],
      [
        'a target that is not empty',
        ['--from', source, '--database', target.url],
        /^agentry: the database --database names already holds rows \(.*tokens.*\): pass --replace/,
      ],
    ];
    const runs = await Promise.all(
      cases.map(([, args, , env]) =>
        agentryAsync(['migrate', ...args], { DATABASE_URL: '', AGENTRY_DB: '', ...env }),
      ),
    );
    cases.forEach(([what, , message], i) => {
      const run = runs[i]!;
      assert.equal(run.status, 2, `${what}: ${run.stderr}`);
      assert.match(run.stderr.trim(), message, what);
      assert.equal(run.stderr.trim().split('\n').length, 1, `${what}: ${run.stderr}`);
      assert.equal(run.stdout, '', what);
    });
  });
});
