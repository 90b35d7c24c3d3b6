/**
 * A replica killed with SIGKILL: three registry replicas, each its own process on loopback, on one PostgreSQL
 * database (a fresh one on the local server, dropped at the end), crawling in the background with a short lease.
 * The first to start claims a host whose documents never answer; registrations then run at once through all three,
 * and that replica is killed in the middle of them. No registration answered 201 is lost: each is readable, and
 * found by search within a bounded wait, on both survivors; the survivors answer every request throughout; and the
 * dead replica's claim is taken over by a survivor once its lease has run out.
 * Every wait polls until a generous deadline (the machine is shared); nothing is timed.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type Fleet, startFleet } from '../crawl/support/fleet.js';
import { freshPostgresDatabase, type TestPostgres } from '../db/postgres-fixture.js';
import { aidipAgent, asArray, send } from '../support.js';

// The child as JavaScript when the tests run from their transpiled mirror (dist-test/), else under tsx.
const compiledChild = fileURLToPath(new URL('./replica-kill-child.js', import.meta.url));
const childArgs = existsSync(compiledChild)
  ? [compiledChild]
  : ['--import', 'tsx', fileURLToPath(new URL('./replica-kill-child.ts', import.meta.url))];
const ADMIN = 'replica-kill-admin-token';
const LEASE_MS = 3000;
const WAIT_MS = 60_000;
/** Registrations each lane sends to a survivor (lanes to the doomed replica stop when it dies). */
const PER_LANE = 8;
/** Acknowledged registrations before the kill. */
const KILL_AFTER = 12;

interface Replica {
  process: ChildProcess;
  exited: Promise<unknown>;
  url: string;
}

let fleet: Fleet;
let database: TestPostgres;
let client: pg.Client;
const replicas: Replica[] = [];

before(async () => {
  fleet = await startFleet();
  database = await freshPostgresDatabase();
});
after(async () => {
  for (const replica of replicas) {
    if (replica.process.exitCode === null && replica.process.signalCode === null) {
      replica.process.kill('SIGKILL');
      await replica.exited;
    }
  }
  await client?.end();
  await fleet?.close();
  await database?.drop();
});

async function startReplica(): Promise<Replica> {
  const proc = spawn(process.execPath, [...childArgs, database.url, String(fleet.port), String(LEASE_MS)], {
    env: { ...process.env, AGENTRY_ADMIN_TOKEN: ADMIN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Listened for from the start: the process may be gone before the test gets to wait for it.
  const exited = once(proc, 'exit');
  const replica: Replica = { process: proc, exited, url: '' };
  replicas.push(replica);
  const [line] = (await Promise.race([
    once(createInterface({ input: proc.stdout! }), 'line'),
    exited.then(() => Promise.reject(new Error('a replica exited before it listened'))),
  ])) as [string];
  replica.url = (JSON.parse(line) as { url: string }).url;
  return replica;
}

/** Polls `check` until it holds, for `WAIT_MS` at most. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The crawler holding a claim on `origin`, if any. */
async function claimant(origin: string): Promise<string | null> {
  const { rows } = await client.query<{ claimed_by: string | null }>(
    'select claimed_by from crawl_hosts where origin = $1',
    [origin],
  );
  assert.equal(rows.length, 1, `${origin} is queued`);
  return rows[0]!.claimed_by;
}

/** A word of letters only, one per registration, that search finds the agent by. */
function wordOf(lane: number, index: number): string {
  const letter = (n: number) => String.fromCharCode(97 + n);
  return `zq${letter(lane)}${letter(Math.floor(index / 26))}${letter(index % 26)}`;
}

test('kill -9 of one replica during registrations across three loses no acknowledged write; its claim is retaken', async () => {
  // A host whose WoA document hangs while `holding`: the first replica's crawl of it never ends, so its claim is
  // only ever given back by the lease. Afterwards it answers 404 at once. A second host (nothing but 404s) is due
  // every second, so that each replica's crawl loop looks at the queue often.
  let holding = true;
  const held: ServerResponse[] = [];
  fleet.route('held.test', '/.well-known/woa.json', (_request, response) => {
    if (holding) {
      held.push(response);
      return;
    }
    response.writeHead(404).end();
  });
  const heldOrigin = fleet.origin('held.test');
  const woaRequests = () =>
    fleet.requests('held.test').filter((line) => line === 'GET /.well-known/woa.json').length;

  const doomed = await startReplica();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  for (const origin of [heldOrigin, fleet.origin('ticker.test')]) {
    const added = await send(doomed.url, '/hosts', { token: ADMIN, body: { origin } });
    assert.equal(added.status, 201, added.text);
  }
  await until('the first replica is crawling the held host', async () => woaRequests() === 1);
  const doomedId = await claimant(heldOrigin);
  assert.ok(doomedId !== null, 'the first replica holds a claim on the held host');
  const survivors = await Promise.all([startReplica(), startReplica()]);
  const all = [doomed, ...survivors];

  const acknowledged: string[] = [];
  let killed = false;
  let acknowledgedAfterKill = 0;
  let woaRequestsAtKill = 0;
  const lane = async (number: number): Promise<void> => {
    const replica = all[number % all.length]!;
    for (let index = 0; replica === doomed ? !killed : index < PER_LANE || !killed; index++) {
      const id = `kill-${number}-${index}`;
      const body = aidipAgent({
        id,
        name: `Killtest ${number} ${index}`,
        description: `A registration of the kill test, found by the word ${wordOf(number, index)}.`,
        tags: ['killtest'],
      });
      try {
        const answer = await send(replica.url, '/agents', { token: ADMIN, body });
        assert.equal(answer.status, 201, `${id} through ${replica.url}: ${answer.text}`);
        acknowledged.push(id);
        if (killed) acknowledgedAfterKill++;
      } catch (error) {
        // Only requests to the killed replica may fail, and only once it is killed.
        if (!(killed && replica === doomed)) throw error;
      }
      if (!killed && acknowledged.length >= KILL_AFTER) {
        killed = true;
        woaRequestsAtKill = woaRequests();
        doomed.process.kill('SIGKILL');
      }
    }
  };
  // Reads on the survivors all along: each must be answered.
  let registering = true;
  const reader = async (): Promise<void> => {
    for (let i = 0; registering; i++) {
      const replica = survivors[i % survivors.length]!;
      const listed = await send(replica.url, '/agents?tags=killtest&limit=5');
      assert.equal(listed.status, 200, `a survivor answered ${listed.status} while registrations ran`);
      const ready = await send(replica.url, '/readyz');
      assert.equal(ready.status, 200, `a survivor's readiness answered ${ready.status}: ${ready.text}`);
    }
  };
  const reading = reader();
  try {
    await Promise.all(Array.from({ length: 6 }, (_, number) => lane(number)));
  } finally {
    registering = false;
    await reading;
  }
  await doomed.exited;
  assert.ok(killed, 'the replica was killed mid-way');
  assert.ok(acknowledgedAfterKill > 0, 'the survivors took registrations after the kill');
  holding = false;
  for (const response of held.splice(0)) response.destroy();

  const checks = survivors.flatMap((survivor) => acknowledged.map((id) => ({ survivor, id })));
  const checker = async (): Promise<void> => {
    for (let check = checks.pop(); check !== undefined; check = checks.pop()) {
      const { survivor, id } = check;
      const got = await send(survivor.url, `/agents/${id}`);
      assert.equal(got.status, 200, `${id} was acknowledged but ${survivor.url} does not have it`);
      const [, number, index] = id.split('-').map(Number) as [number, number, number];
      await until(`${survivor.url} finds ${id} by search`, async () => {
        const found = await send(survivor.url, '/agents/search', {
          body: { query: wordOf(number, index), mode: 'lexical' },
        });
        assert.equal(found.status, 200, found.text);
        return asArray(found.json).some((entry) => entry['id'] === id);
      });
    }
  };
  await Promise.all(Array.from({ length: 6 }, checker));

  // The dead replica's claim runs out after its lease, and a survivor crawls the host again.
  await until('a survivor crawls the dead replica’s host', async () => woaRequests() > woaRequestsAtKill);
  await until('no claim is the dead replica’s', async () => (await claimant(heldOrigin)) !== doomedId);
  const { rows } = await client.query<{ count: string }>(
    'select count(*) as count from crawl_hosts where claimed_by = $1',
    [doomedId],
  );
  assert.equal(Number(rows[0]!.count), 0);
});
