/**
 * POST /hosts with `"now": true`: an origin already in the crawl queue is made due at once (the operator console's
 * "Crawl now"); without it, adding a queued origin changes nothing. A `now` that is not a boolean is a 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { asObject, startRegistry, type TestRegistry } from '../support.js';

const ORIGIN = 'https://agents.example.org';
const LATER = '2099-01-01T00:00:00.000Z';

describe('POST /hosts {now}', () => {
  let r: TestRegistry;

  before(async () => {
    r = await startRegistry();
    const added = await r.request('/hosts', { token: r.admin, body: { origin: ORIGIN } });
    assert.equal(added.status, 201, added.text);
    // As after a crawl: the next one is due later.
    const db = new Database(r.dbPath);
    db.prepare('UPDATE crawl_hosts SET next_due_at = ? WHERE origin = ?').run(LATER, ORIGIN);
    db.close();
  });
  after(() => r.close());

  test('without now, a queued origin keeps its next crawl', async () => {
    const again = await r.request('/hosts', { token: r.admin, body: { origin: ORIGIN } });
    assert.equal(again.status, 200, again.text);
    assert.equal(asObject(again.json)['next_due_at'], LATER);
  });

  test('with now, a queued origin is due at once', async () => {
    const before = new Date().toISOString();
    const now = await r.request('/hosts', { token: r.admin, body: { origin: ORIGIN, now: true } });
    assert.equal(now.status, 200, now.text);
    const due = String(asObject(now.json)['next_due_at']);
    assert.ok(due >= before && due < LATER, due);
  });

  test('a now that is not a boolean is a 400 pointing at it', async () => {
    const bad = await r.request('/hosts', { token: r.admin, body: { origin: ORIGIN, now: 'yes' } });
    assert.equal(bad.status, 400);
    assert.equal(asObject(bad.json)['pointer'], '/now');
  });
});
