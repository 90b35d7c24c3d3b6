/**
 * Filtered lists and search scopes answered from the facet index (store/facet-index.ts, facet-postings.ts) on
 * each dialect (store.test.ts, store-postgres.test.ts), against the statements that answer them without it: for
 * random filters, callers (the admin, anonymous, a publisher, a group member) and page sizes, every page of a
 * walk by cursor holds the same agents in the same order with the same `more`, and a search's scope the same
 * agents, while another connection registers, rewrites, restricts, opens up and deletes agents just before each
 * request (PostgreSQL tells of its commits later, by notification: the index reads the log instead), and lists
 * asked together just after such a write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readDocument } from '@agentry/core';
import fc from 'fast-check';
import type { Caller } from '../../src/records/types.js';
import { storedMetadata } from '../../src/records/views.js';
import { AgentRepository, type RecordDraft } from '../../src/store/agents.js';
import type { AgentFilters } from '../../src/store/filters.js';
import { RegistryStore } from '../../src/store/store.js';
import { aidipAgent } from '../fixtures.js';
import { type DialectName, openTestDatabase, type TestDatabase } from './test-database.js';

const TAGS = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
const CAPABILITIES = ['search', 'booking', 'translation', 'analysis'];
const LANGUAGES = ['en', 'en-GB', 'fr', 'de'];
const STATUSES = ['active', 'deprecated', 'inactive'];
const AUTH = ['api_key', 'oauth2_bearer', 'mtls'];
const OWNERS = ['acme', 'globex', 'initech'];
const GROUPS = ['g1', 'g2', 'g3'];
/** Ids sharing prefixes and differing in the characters ids may hold, so that their order is worth checking. */
const IDS = Array.from({ length: 40 }, (_, i) =>
  [`a${i}`, `A-${i}`, `a.${i}`, `a_${i}`, `a~${i}`, `z${i}`, `0${i}`, `a-b${i}`][i % 8]!.concat(`x${i}`),
);

const CALLERS: Caller[] = [
  { kind: 'admin', tokenId: 'admin', publisher: 'admin', groups: [] },
  { kind: 'anonymous', groups: [] },
  { kind: 'publisher', tokenId: 'tok-acme', publisher: 'acme', groups: ['g1'] },
  { kind: 'client', tokenId: 'tok-client', groups: ['g2', 'g3'] },
];

interface Shape {
  id: string;
  owner: string;
  tags: string[];
  capabilities: string[];
  languages: string[];
  status: string;
  auth: string | undefined;
  /** Undefined: public. */
  groups: string[] | undefined;
}

const some = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 0, maxLength: 3 });

const shape: fc.Arbitrary<Shape> = fc.record({
  id: fc.constantFrom(...IDS),
  owner: fc.constantFrom(...OWNERS),
  tags: some(TAGS),
  capabilities: some(CAPABILITIES),
  languages: some(LANGUAGES),
  status: fc.constantFrom(...STATUSES),
  auth: fc.option(fc.constantFrom(...AUTH), { nil: undefined }),
  groups: fc.option(fc.subarray(GROUPS, { minLength: 1 }), { nil: undefined, freq: 3 }),
});

type Write = { kind: 'register'; shape: Shape } | { kind: 'delete'; id: string };

const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 4, arbitrary: shape.map((value): Write => ({ kind: 'register', shape: value })) },
  { weight: 1, arbitrary: fc.constantFrom(...IDS).map((id): Write => ({ kind: 'delete', id })) },
);

const filters: fc.Arbitrary<AgentFilters> = fc
  .record(
    {
      tags: fc.subarray([...TAGS, 'unknown'], { maxLength: 2 }),
      capabilities: fc.subarray(CAPABILITIES, { maxLength: 2 }),
      languages: fc.subarray(['en', 'EN-gb', 'fr', 'de'], { maxLength: 2 }),
      status: fc.subarray(STATUSES, { maxLength: 2 }),
      authKinds: fc.subarray([...AUTH, 'none'], { maxLength: 2 }),
      sources: fc.subarray(['registered', 'crawled'], { maxLength: 1 }),
      formats: fc.subarray(['aidip', 'a2a'], { maxLength: 1 }),
    },
    { requiredKeys: [] },
  )
  .map((value) => value as AgentFilters)
  .filter((value) => Object.values(value).some((values) => values.length > 0));

const request = fc.record({
  filters,
  caller: fc.constantFrom(...CALLERS),
  limit: fc.integer({ min: 1, max: 6 }),
  /** Writes through the other connection just before the request. */
  writes: fc.array(write, { maxLength: 3 }),
});

function draftOf(value: Shape): RecordDraft {
  const document: Record<string, unknown> = {
    ...aidipAgent({
      id: value.id,
      name: `Agent ${value.id}`,
      tags: value.tags,
      capabilities: value.capabilities,
      languages: value.languages,
      status: value.status,
      // An endpoint of its own: agents sharing one are the same agent (docs/registry.md, "Identity").
      endpoint: `https://${value.id.replace(/[^a-z0-9]/gi, '')}.agents.example.com/invoke`,
    }),
  };
  if (value.auth !== undefined) document['authentication'] = { type: value.auth };
  const read = readDocument(document);
  assert.equal(read.valid, true, JSON.stringify(read.issues));
  return {
    agent: read.agents[0]!,
    owner: value.owner,
    flags: [],
    sourceFormat: 'aidip',
    access: value.groups === undefined ? null : { groups: value.groups },
  };
}

export function describeIndexedLists(dialect: DialectName): void {
  describe(`filtered lists from the facet index (${dialect})`, () => {
    let database: TestDatabase;
    let store: RegistryStore;
    let other: RegistryStore;
    /** The same database read by statements alone: a repository without the facet index. */
    let statements: AgentRepository;
    let clock = 0;
    const now = (): string => new Date(Date.UTC(2026, 0, 1) + clock++ * 1000).toISOString();

    before(async () => {
      database = await openTestDatabase(dialect);
      store = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      other = await RegistryStore.open({ ...database.location, metadataOf: storedMetadata, now });
      statements = new AgentRepository(store.db, store.dialect, storedMetadata, now);
    });
    after(async () => {
      await other?.close();
      await store?.close();
      await database?.remove();
    });

    async function apply(writes: readonly Write[]): Promise<void> {
      for (const change of writes) {
        if (change.kind === 'delete') {
          await other.agents.delete(change.id, () => 'allow', 'tok-admin');
          continue;
        }
        // The owner of an existing entry stays its owner: an update under another would be a conflict.
        const existing = await other.agents.get(change.shape.id);
        const draft = draftOf({ ...change.shape, owner: existing?.owner ?? change.shape.owner });
        const outcome = await other.agents.register([{ draft, preferredId: change.shape.id }], {
          actor: `tok-${draft.owner}`,
        });
        assert.ok(Array.isArray(outcome), JSON.stringify(outcome));
      }
    }

    test('the database orders ids as the index does', async () => {
      assert.equal(await store.facets.sortsLikeDatabase(), true);
    });

    test('every page and scope is what the statements answer, with writes through another connection', async () => {
      await apply(
        fc.sample(shape, { numRuns: 30, seed: 7 }).map((value) => ({ kind: 'register', shape: value })),
      );
      await store.facets.current();
      assert.equal(store.facets.loaded, true);
      const runs = dialect === 'postgres' ? 60 : 120;
      let pages = 0;
      let listed = 0;
      await fc.assert(
        fc.asyncProperty(request, async ({ filters, caller, limit, writes }) => {
          await apply(writes);
          const scope = await store.agents.searchScope(caller, filters);
          const expectedScope = await statements.searchScope(caller, filters);
          assert.deepEqual(
            [...(scope.candidates ?? [])].sort(),
            [...(expectedScope.candidates ?? [])].sort(),
          );
          let afterId: string | undefined;
          for (;;) {
            const options = { caller, filters, limit, ...(afterId === undefined ? {} : { afterId }) };
            const page = await store.agents.list(options);
            const expected = await statements.list(options);
            const ids = page.items.map((item) => item.record.id);
            assert.deepEqual(
              { ids, more: page.more },
              { ids: expected.items.map((item) => item.record.id), more: expected.more },
              JSON.stringify({ filters, caller: caller.kind, afterId }),
            );
            assert.deepEqual(
              page.items.map((item) => item.metadata),
              expected.items.map((item) => item.metadata),
            );
            pages++;
            listed += ids.length;
            if (!page.more) break;
            afterId = ids.at(-1)!;
            // Writes between the pages of a walk, too.
            if (writes.length > 0) await apply(writes.slice(0, 1));
          }
        }),
        { seed: 21, numRuns: runs, includeErrorInReport: true },
      );
      // The runs listed agents over several pages, not only empty answers.
      assert.ok(listed > runs / 2 && pages > runs, `${listed} agents over ${pages} pages`);
    });

    test('lists asked together after a write through another connection all hold it', async () => {
      const filters: AgentFilters = { tags: ['together'] };
      const caller = CALLERS[1]!;
      for (const [round, id] of IDS.slice(0, 6).entries()) {
        await apply([
          {
            kind: 'register',
            shape: {
              ...fc.sample(shape, { numRuns: 1, seed: round })[0]!,
              id,
              tags: ['together'],
              groups: undefined,
            },
          },
        ]);
        const pages = await Promise.all(
          Array.from({ length: 8 }, () => store.agents.list({ caller, filters, limit: 50 })),
        );
        const expected = (await statements.list({ caller, filters, limit: 50 })).items.map(
          (item) => item.record.id,
        );
        assert.ok(expected.includes(id));
        for (const page of pages)
          assert.deepEqual(
            page.items.map((item) => item.record.id),
            expected,
          );
      }
    });
  });
}
