/**
 * The store's cases, run on each dialect (store.test.ts on a SQLite file, store-postgres.test.ts on a fresh
 * PostgreSQL database): migrations, id assignment, updates, deletion with tombstones, history and audit, filters,
 * paging, visibility, quality, tokens and the quota under concurrent registrations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Agent, readDocument } from '@agentry/core';
import type { Caller } from '../../src/records/types.js';
import { storedMetadata } from '../../src/records/views.js';
import type { RecordDraft } from '../../src/store/agents.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { RegistryStore } from '../../src/store/store.js';
import { aidipAgent } from '../fixtures.js';
import { type DialectName, openTestDatabase, type TestDatabase } from './test-database.js';

const ADMIN: Caller = { kind: 'admin', tokenId: 'admin', publisher: 'admin', groups: [] };
const ANONYMOUS: Caller = { kind: 'anonymous', groups: [] };

export function agentOf(fields: Parameters<typeof aidipAgent>[0]): Agent {
  const read = readDocument(aidipAgent(fields));
  assert.equal(read.valid, true, JSON.stringify(read.issues));
  return read.agents[0]!;
}

export function draft(agent: Agent, owner: string, groups?: string[]): RecordDraft {
  const out: RecordDraft = { agent, owner, flags: [], sourceFormat: 'aidip' };
  if (groups !== undefined) out.access = { groups };
  return out;
}

/** Whether a search in `scope` may rank agent `id`. */
function inScope(scope: { candidates?: ReadonlySet<string>; excluded?: ReadonlySet<string> }, id: string) {
  return (scope.candidates?.has(id) ?? true) && !(scope.excluded?.has(id) ?? false);
}

export async function register(store: RegistryStore, agent: Agent, owner: string, groups?: string[]) {
  const outcome = await store.agents.register(
    [{ draft: draft(agent, owner, groups), preferredId: agent.id }],
    {
      actor: `tok-${owner}`,
    },
  );
  assert.ok(Array.isArray(outcome));
  return outcome[0]!;
}

/** Every case of the store on `dialect`'s database. */
export function describeStore(dialect: DialectName): void {
  describe(`store (${dialect})`, () => {
    let database: TestDatabase;
    let clock = 0;
    const now = (): string => new Date(Date.UTC(2026, 0, 1) + clock++ * 1000).toISOString();
    let store: RegistryStore;

    before(async () => {
      database = await openTestDatabase(dialect);
      store = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
    });
    after(async () => {
      await store?.close();
      await database?.remove();
    });

    test('opens (SQLite: in WAL mode with foreign keys), and migrating again changes nothing', async () => {
      const again = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata });
      await again.close();
      if (dialect === 'sqlite') {
        assert.equal((await database.query('pragma journal_mode'))[0]?.journal_mode, 'wal');
      }
      {
        const migrations = (await database.query(
          'select name from kysely_migration order by name',
        )) as Array<{
          name: string;
        }>;
        assert.deepEqual(
          migrations.map((row) => row.name),
          // The store opens the registry's one database: every part's migrations (db/migrations.ts), each once.
          [
            '2026-11-21-001-agents',
            '2026-11-21-002-history',
            '2026-11-21-003-access',
            '2026-11-21-100-search-lexical',
            '2026-11-21-100-search-vectors',
            '2026-11-21-200-crawl-queue',
            '2026-11-21-201-crawl-due-order',
            '2026-11-21-202-crawl-bodies',
            '2026-11-21-203-crawl-revalidated',
            '2026-11-22-001-agents-restricted',
            '2026-11-22-100-search-demotions',
            '2026-11-22-101-search-changes',
            '2026-11-22-204-federation-sources',
            '2026-11-27-001-verified-provenance',
            '2026-11-27-002-status-words',
            '2026-11-27-010-agent-identity',
            '2026-11-27-100-search-lexical-restricted',
            '2026-11-28-010-agent-transports-auth',
            '2026-11-28-011-agent-sources-facet-indexes',
            '2026-11-28-012-agent-changes',
            '2026-11-28-100-search-lexical-postgres',
            '2026-11-28-101-search-lexical-postings',
          ],
        );
      }
      assert.deepEqual(await store.integrityCheck(), ['ok']);
    });

    test("records verified provenance only for descriptions read from the agent's own origin, also when migrating", async () => {
      const registered = await register(store, agentOf({ id: 'told', name: 'Told' }), 'acme');
      const read = readDocument(aidipAgent({ id: 'crawled', name: 'Crawled' }), {
        sourceUrl: 'https://agents.example.com/.well-known/agent.json',
      });
      const crawled = await register(store, read.agents[0]!, 'acme');
      assert.equal(registered.record.quality.verified, false);
      assert.equal(crawled.record.quality.verified, true);

      // A file written under the earlier rule (every non-synthetic description verified), then migrated.
      await store.close();
      const setVerified = (value: boolean, id: string) =>
        dialect === 'sqlite'
          ? `update agents set quality = json_set(quality, '$.verified', json('${value}')) where id = '${id}'`
          : `update agents set quality = jsonb_set(quality::jsonb, '{verified}', '${value}')::text where id = '${id}'`;
      await database.query(setVerified(true, 'told'));
      await database.query(setVerified(false, 'crawled'));
      // Later migrations have run, so the file cannot be taken back to before this one: its step is run again.
      store = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      await storeMigrations(store.dialect)['2026-11-27-001-verified-provenance']!.up(store.db);
      assert.equal((await store.agents.get('told'))?.quality.verified, false);
      assert.equal((await store.agents.get('crawled'))?.quality.verified, true);
      assert.deepEqual((await store.agents.get('told'))?.agent, registered.record.agent);
      for (const id of ['told', 'crawled']) await store.agents.delete(id, () => 'allow', 'admin');
    });

    test('registration keeps the agent id, updates for the same owner, refuses another publisher', async () => {
      const first = await register(store, agentOf({ id: 'weather', name: 'Weather' }), 'acme');
      assert.equal(first.kind, 'created');
      assert.equal(first.record.id, 'weather');
      assert.equal(first.record.revision, 1);

      const same = await register(store, agentOf({ id: 'weather', name: 'Weather' }), 'acme');
      assert.equal(same.kind, 'unchanged');
      assert.equal(same.record.revision, 1);

      const changed = await register(
        store,
        agentOf({ id: 'weather', name: 'Weather', description: 'Forecasts.' }),
        'acme',
      );
      assert.equal(changed.kind, 'updated');
      assert.equal(changed.record.revision, 2);
      assert.equal(changed.record.createdAt, first.record.createdAt);
      assert.notEqual(changed.record.updatedAt, first.record.updatedAt);

      // The same agent (its id at the same origin) from another publisher; a different agent asking for the id.
      const attempt = async (agent: Agent) =>
        store.agents.register([{ draft: draft(agent, 'globex'), preferredId: agent.id }], {
          actor: 'tok-globex',
        });
      assert.deepEqual(await attempt(agentOf({ id: 'weather', name: 'Weather' })), {
        kind: 'conflict',
        reason: 'identity',
        id: 'weather',
        agent: 'weather',
      });
      const elsewhere = agentOf({ id: 'weather', name: 'Rain', endpoint: 'https://rain.example.org/invoke' });
      assert.deepEqual(await attempt(elsewhere), {
        kind: 'conflict',
        reason: 'id',
        id: 'weather',
        agent: 'weather',
      });
      assert.equal((await store.agents.get('weather'))?.owner, 'acme');
      assert.equal((await store.agents.get('weather'))?.revision, 2);
    });

    test('history and audit record every change with who and what', async () => {
      const history = await store.agents.history('weather');
      assert.deepEqual(
        history.map((entry) => [entry.revision, entry.action, entry.actor]),
        [
          [1, 'create', 'tok-acme'],
          [2, 'update', 'tok-acme'],
        ],
      );
      assert.equal(history[1]?.record?.agent.description, 'Forecasts.');
      const audit = await store.audit.list({ limit: 10, target: 'weather' });
      assert.deepEqual(
        audit.map((entry) => entry.action),
        ['agent.update', 'agent.create'],
      );
      assert.equal(audit[0]?.details['revision'], 2);
      assert.equal(audit[0]?.details['owner'], 'acme');
    });

    test("the quota counts an owner's agents and rolls the whole request back", async () => {
      const drafts = ['q1', 'q2', 'q3'].map((id) => ({
        draft: draft(agentOf({ id, name: id }), 'quota-co'),
        preferredId: id,
      }));
      const outcome = await store.agents.register(drafts, { actor: 'tok', quota: 2 });
      assert.deepEqual(outcome, { kind: 'quota-exceeded', limit: 2 });
      assert.equal(await store.agents.countOwnedBy('quota-co'), 0);
      const fits = await store.agents.register(drafts.slice(0, 2), { actor: 'tok', quota: 2 });
      assert.ok(Array.isArray(fits));
      assert.equal(await store.agents.countOwnedBy('quota-co'), 2);
    });

    test('the quota holds under concurrent registrations of one publisher (PostgreSQL: from two replicas)', async () => {
      // Two stores on one database are two replicas; SQLite's connections in one process would wait on each other
      // with the event loop held, so its concurrent registrations go through the one store.
      const other =
        dialect === 'postgres'
          ? await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now })
          : store;
      try {
        const attempts = Array.from({ length: 16 }, (_, i) => {
          const agent = agentOf({ id: `race-${i}`, name: `Race ${i}` });
          return (i % 2 === 0 ? store : other).agents.register(
            [{ draft: draft(agent, 'race-co'), preferredId: agent.id }],
            {
              actor: 'tok',
              quota: 5,
            },
          );
        });
        const outcomes = await Promise.all(attempts);
        assert.equal(outcomes.filter((outcome) => Array.isArray(outcome)).length, 5);
        assert.equal(await store.agents.countOwnedBy('race-co'), 5);
      } finally {
        if (other !== store) await other.close();
      }
    });

    test('filters are set inclusion, case-insensitive; a language matches its regional variants', async () => {
      await register(
        store,
        agentOf({
          id: 'f1',
          name: 'F1',
          capabilities: ['Translation', 'summarization'],
          tags: ['nlp'],
          languages: ['en-GB', 'fr'],
        }),
        'filters',
      );
      await register(
        store,
        agentOf({
          id: 'f2',
          name: 'F2',
          capabilities: ['translation'],
          tags: ['nlp', 'legal'],
          languages: ['de'],
        }),
        'filters',
      );
      await register(
        store,
        agentOf({ id: 'f3', name: 'F3', capabilities: ['summarization'], status: 'deprecated' }),
        'filters',
      );
      const ids = async (filters: Parameters<RegistryStore['agents']['list']>[0]['filters']) =>
        (await store.agents.list({ caller: ANONYMOUS, filters, limit: 100 })).items
          .map((item) => item.record.id)
          .filter((id) => id.startsWith('f'));
      assert.deepEqual(await ids({ capabilities: ['translation'] }), ['f1', 'f2']);
      assert.deepEqual(await ids({ capabilities: ['translation', 'SUMMARIZATION'] }), ['f1']);
      assert.deepEqual(await ids({ tags: ['nlp', 'legal'] }), ['f2']);
      assert.deepEqual(await ids({ languages: ['en'] }), ['f1']);
      assert.deepEqual(await ids({ languages: ['en-gb'] }), ['f1']);
      assert.deepEqual(await ids({ languages: ['en-US'] }), []);
      assert.deepEqual(await ids({ status: ['deprecated'] }), ['f3']);
      assert.deepEqual(await ids({ capabilities: ['summarization'], status: ['active'] }), ['f1']);
    });

    test('restricted agents are visible to their groups, their owner and the admin only', async () => {
      await register(store, agentOf({ id: 'secret', name: 'Secret', tags: ['ledger'] }), 'acme', ['finance']);
      const member: Caller = { kind: 'client', tokenId: 't1', groups: ['finance'] };
      const outsider: Caller = { kind: 'client', tokenId: 't2', groups: ['hr'] };
      const owner: Caller = { kind: 'publisher', tokenId: 't3', publisher: 'acme', groups: [] };
      for (const [caller, sees] of [
        [member, true],
        [owner, true],
        [ADMIN, true],
        [outsider, false],
        [ANONYMOUS, false],
      ] as const) {
        assert.equal((await store.agents.getVisible('secret', caller)) !== undefined, sees, caller.kind);
        const listed = (await store.agents.list({ caller, filters: {}, limit: 100 })).items.some(
          (item) => item.record.id === 'secret',
        );
        assert.equal(listed, sees, caller.kind);
        assert.equal(inScope(await store.agents.searchScope(caller, {}), 'secret'), sees, caller.kind);
        assert.equal(
          inScope(await store.agents.searchScope(caller, { tags: ['ledger'] }), 'secret'),
          sees,
          caller.kind,
        );
        assert.equal((await store.agents.getMany(['secret'], caller)).length, sees ? 1 : 0);
      }
    });

    test('paging by id walks every visible agent once', async () => {
      for (let index = 0; index < 25; index++) {
        await register(
          store,
          agentOf({ id: `page-${String(index).padStart(2, '0')}`, name: `Page ${index}`, tags: ['paged'] }),
          'pager',
        );
      }
      const seen: string[] = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await store.agents.list({
          caller: ANONYMOUS,
          filters: { tags: ['paged'] },
          limit: 7,
          ...(afterId === undefined ? {} : { afterId }),
        });
        seen.push(...page.items.map((item) => item.record.id));
        if (!page.more) break;
        afterId = page.items[page.items.length - 1]!.record.id;
      }
      assert.equal(seen.length, 25);
      assert.equal(new Set(seen).size, 25);
      assert.deepEqual(seen, [...seen].sort());
    });

    test('deletion leaves a tombstone that changes() reports, hidden like the agent was', async () => {
      const since = now();
      await register(store, agentOf({ id: 'gone', name: 'Gone' }), 'acme');
      await register(store, agentOf({ id: 'gone-secret', name: 'Gone secret' }), 'acme', ['finance']);
      const deleted = await store.agents.delete('gone', () => 'allow', 'tok-acme');
      assert.equal(deleted.kind, 'deleted');
      await store.agents.delete('gone-secret', () => 'allow', 'tok-acme');
      assert.equal(await store.agents.get('gone'), undefined);

      const changes = await store.agents.changes({ caller: ANONYMOUS, filters: {}, since, limit: 100 });
      assert.deepEqual(
        changes.items.map((item) => (item.kind === 'deleted' ? `-${item.id}` : item.record.id)),
        ['-gone'],
      );
      const member: Caller = { kind: 'client', tokenId: 't1', groups: ['finance'] };
      const forMember = await store.agents.changes({ caller: member, filters: {}, since, limit: 100 });
      assert.deepEqual(
        forMember.items.map((item) => (item.kind === 'deleted' ? `-${item.id}` : item.record.id)).sort(),
        ['-gone', '-gone-secret'],
      );
      const history = await store.agents.history('gone');
      assert.deepEqual(
        history.map((entry) => entry.action),
        ['create', 'delete'],
      );
      assert.equal(history[1]?.record, undefined);

      // Registering the id again removes the tombstone.
      await register(store, agentOf({ id: 'gone', name: 'Gone' }), 'acme');
      const after = await store.agents.changes({ caller: ANONYMOUS, filters: {}, since, limit: 100 });
      assert.ok(after.items.every((item) => item.kind === 'agent'));
    });

    test('changes() pages in (time, id) order without repeats', async () => {
      const all = await store.agents.changes({
        caller: ADMIN,
        filters: {},
        since: '2000-01-01T00:00:00.000Z',
        limit: 1000,
      });
      const walked: string[] = [];
      let afterKey: { at: string; id: string } | undefined;
      for (;;) {
        const page = await store.agents.changes({
          caller: ADMIN,
          filters: {},
          since: '2000-01-01T00:00:00.000Z',
          limit: 4,
          ...(afterKey === undefined ? {} : { after: afterKey }),
        });
        for (const item of page.items) walked.push(item.kind === 'deleted' ? `-${item.id}` : item.record.id);
        if (!page.more) break;
        const last = page.items[page.items.length - 1]!;
        afterKey = { at: last.at, id: last.kind === 'deleted' ? last.id : last.record.id };
      }
      assert.deepEqual(
        walked,
        all.items.map((item) => (item.kind === 'deleted' ? `-${item.id}` : item.record.id)),
      );
      assert.equal(new Set(walked).size, walked.length);
    });

    test('feedback and invocations make the quality score', async () => {
      await register(store, agentOf({ id: 'rated', name: 'Rated' }), 'acme');
      assert.equal((await store.agents.get('rated'))?.quality.score, undefined);
      const afterFeedback = await store.quality.addFeedback(
        'rated',
        { rating: 5, outcome: 'success' },
        'tok',
      );
      assert.equal(afterFeedback?.ratings, 1);
      // Beta(1,1) over one full rating and one success: (1 + 1 + 1) / (2 + 2).
      assert.equal(afterFeedback?.score, 0.75);
      await store.quality.addInvocation('rated', 100, true);
      await store.quality.addInvocation('rated', 300, false);
      const record = await store.agents.get('rated');
      assert.equal(record?.quality.invocations, 2);
      assert.equal(record?.quality.failures, 1);
      assert.equal(record?.quality.latencyP50Ms, 200);
      assert.equal(record?.quality.score, 0.667);
      assert.equal(record?.revision, 1, 'quality is not a change of the agent');
      assert.equal(
        await store.quality.addFeedback('nobody', { rating: 1, outcome: 'failure' }, 'tok'),
        undefined,
      );
    });

    test('tokens are stored hashed and can be revoked', async () => {
      const { token, info } = await store.tokens.create(
        { role: 'publisher', publisher: 'acme', groups: ['a'] },
        'admin',
      );
      assert.equal((await store.tokens.authenticate(token))?.id, info.id);
      const rows = await database.query('select * from tokens');
      assert.ok(!JSON.stringify(rows).includes(token), 'the plaintext token is not stored');
      assert.equal(await store.tokens.revoke(info.id, 'admin'), true);
      assert.equal(await store.tokens.revoke(info.id, 'admin'), false);
      assert.equal(await store.tokens.authenticate(token), undefined);
    });

    test('the admin token is generated (and shown) once, kept across opens, and replaced when configured', async () => {
      const generated = await store.tokens.ensureAdmin(undefined);
      const kept = await store.tokens.ensureAdmin(undefined);
      assert.ok(generated !== undefined && generated.length > 40);
      assert.equal(kept, undefined);
      assert.equal((await store.tokens.authenticate(generated))?.role, 'admin');
      // The operator's own token is never handed back to be printed, neither when set nor on later starts.
      assert.equal(await store.tokens.ensureAdmin('configured-admin'), undefined);
      assert.equal(await store.tokens.ensureAdmin('configured-admin'), undefined);
      assert.equal(await store.tokens.authenticate(generated), undefined);
      assert.equal((await store.tokens.authenticate('configured-admin'))?.role, 'admin');
    });
  });

  describe(`search scope (${dialect})`, () => {
    test('names the smaller set: the hidden agents, or the visible ones', async () => {
      const database = await openTestDatabase(dialect);
      const store = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata });
      after(async () => {
        await store.close();
        await database.remove();
      });
      const outsider: Caller = { kind: 'client', tokenId: 't9', groups: [] };
      await register(store, agentOf({ id: 'open-1', name: 'Open 1' }), 'acme');
      await register(store, agentOf({ id: 'open-2', name: 'Open 2' }), 'acme');
      await register(store, agentOf({ id: 'closed-1', name: 'Closed 1' }), 'acme', ['staff']);
      assert.deepEqual(await store.agents.searchScope(outsider, {}), { excluded: new Set(['closed-1']) });

      const add = async (prefix: string, count: number, groups?: string[]) => {
        const outcome = await store.agents.register(
          Array.from({ length: count }, (_, i) => {
            const agent = agentOf({ id: `${prefix}-${i}`, name: `${prefix} ${i}` });
            return { draft: draft(agent, 'acme', groups), preferredId: agent.id };
          }),
          { actor: 'admin' },
        );
        assert.ok(Array.isArray(outcome));
      };
      // More than a few hidden agents, and more than the visible ones: the visible ones are named.
      await add('closed-extra', 1001, ['staff']);
      assert.deepEqual(await store.agents.searchScope(outsider, {}), {
        candidates: new Set(['open-1', 'open-2']),
      });
      // As many visible ones again: the hidden ones are named.
      await add('open-extra', 1001);
      const scope = await store.agents.searchScope(outsider, {});
      assert.equal(scope.candidates, undefined);
      assert.equal(scope.excluded?.size, 1002);
      assert.ok(scope.excluded?.has('closed-1') && scope.excluded.has('closed-extra-1000'));
      const staff = await store.agents.searchScope({ ...outsider, groups: ['staff'] }, {});
      assert.equal(staff.candidates, undefined);
      assert.ok(inScope(staff, 'closed-1') && inScope(staff, 'closed-extra-0'));
      assert.deepEqual(await store.agents.searchScope(ADMIN, {}), {});
    });
  });
}
