/**
 * `POST /hosts` says whether the registry crawls what it queues: a registry that does not crawl in the background
 * still queues the origin (a crawler on the same database takes it) and answers `crawling: false` with a warning
 * naming the fix; one started with the crawl loop answers `crawling: true`. Both answers are as /openapi.json says.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Fleet, startFleet } from '../crawl/support/fleet.js';
import { asObject, startRegistry } from '../support.js';

let fleet: Fleet;
before(async () => {
  fleet = await startFleet();
});
after(async () => {
  await fleet.close();
});

test('a registry that does not crawl queues the origin and says so, naming --crawl', async () => {
  const r = await startRegistry({ crawl: { enabled: false, fetcher: fleet.fetcher(), liveness: false } });
  try {
    const origin = fleet.origin('quiet.test');
    const added = await r.request('/hosts', { body: { origin }, token: r.admin });
    assert.equal(added.status, 201, added.text);
    const body = asObject(added.json);
    assert.equal(body['origin'], origin);
    assert.equal(body['crawling'], false);
    assert.match(
      String(body['warning']),
      /does not crawl[\s\S]*agentry serve --crawl[\s\S]*agentry crawl <origin> --database /,
    );
    const again = await r.request('/hosts', { body: { origin }, token: r.admin });
    assert.equal(again.status, 200, again.text);
    assert.equal(asObject(again.json)['crawling'], false);
    const queued = await r.request(`/hosts/${encodeURIComponent(origin)}`, { token: r.admin });
    assert.equal(queued.status, 200, 'queued all the same, for a crawler on the same database');
  } finally {
    await r.close();
  }
});

test('a registry crawling in the background answers crawling: true, without a warning', async () => {
  const r = await startRegistry({ crawl: { enabled: true, fetcher: fleet.fetcher(), liveness: false } });
  try {
    const added = await r.request('/hosts', { body: { origin: fleet.origin('busy.test') }, token: r.admin });
    assert.equal(added.status, 201, added.text);
    const body = asObject(added.json);
    assert.equal(body['crawling'], true);
    assert.equal('warning' in body, false);
  } finally {
    await r.close();
  }
});
