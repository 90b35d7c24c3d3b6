/** What commands print of a database: a URL's password masked, and the flag that opens it again. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { databaseFlag, printableDatabase } from '../src/io/database-hint.js';

test('a database URL is printed without its password; a file and a URL without one as they are', () => {
  assert.equal(
    printableDatabase('postgres://app:s3cret@db.internal:5432/agentry'),
    'postgres://app:***@db.internal:5432/agentry',
  );
  assert.equal(
    printableDatabase('postgresql://app:p%40ss%2Fw@db/agentry?sslmode=require'),
    'postgresql://app:***@db/agentry?sslmode=require',
  );
  assert.equal(printableDatabase('postgres://app@db/agentry'), 'postgres://app@db/agentry');
  assert.equal(printableDatabase('/var/lib/agentry/registry.db'), '/var/lib/agentry/registry.db');
  assert.equal(printableDatabase('sqlite:registry.db'), 'sqlite:registry.db');
});

test('a hint opens a URL with --database and a file with --db, as shell words', () => {
  assert.equal(
    databaseFlag('postgres://app:s3cret@db:5432/agentry'),
    "--database 'postgres://app:***@db:5432/agentry'",
  );
  assert.equal(databaseFlag('postgres://app@db:5432/agentry'), '--database postgres://app@db:5432/agentry');
  assert.equal(databaseFlag('sqlite:registry.db'), '--database sqlite:registry.db');
  assert.equal(databaseFlag('registry.db'), '--db registry.db');
  assert.equal(databaseFlag('my registry.db'), "--db 'my registry.db'");
});
