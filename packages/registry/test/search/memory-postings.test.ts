/**
 * The in-memory lexical index (lexical/memory-postings.ts) against FTS5's BM25 written out plainly here, agent by
 * agent: random small registries whose words collide (shared words, stems, prefixes), restricted agents, agents
 * replaced and deleted (with compactions), and queries of terms, prefixes and phrases within scopes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BM25_B, BM25_K1, DEFAULT_FIELD_WEIGHTS, FIELD_COLUMNS } from '../../src/search/lexical/fields.js';
import { MemoryPostings } from '../../src/search/lexical/memory-postings.js';
import { clauseTerms, matchedWords, termMatches, textTerms } from '../../src/search/lexical/memory-text.js';
import { fts5Idf } from '../../src/search/lexical/pruning.js';
import { type LexicalQuery, parseLexicalQuery } from '../../src/search/lexical/query.js';
import type { LexicalFields, LexicalMatch, LexicalSearchOptions } from '../../src/search/lexical/types.js';
import { lexicalFieldsOf } from './helpers.js';

const VOCABULARY = [
  'weather',
  'forecast',
  'forecasts',
  'forecasting',
  'report',
  'reports',
  'city',
  'cities',
  'run',
  'running',
  'data',
  'café',
  'cafe',
  'e',
  'mail',
  'getWeather',
  'ab',
];
const SEPARATORS = [' ', ' ', ' ', '_', ', ', ' ; '];
const PREFIXES = ['fore*', 'ru*', 'repo*', 'cit*', 'ca*', 'da*', 'weath*'];
const IDS = Array.from({ length: 10 }, (_, i) => `agent-${i}`);

const text = fc
  .array(fc.tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...SEPARATORS)), { maxLength: 5 })
  .map((parts) => parts.map(([word, separator]) => word + separator).join(''));
const fields: fc.Arbitrary<LexicalFields> = fc.record({
  name: text,
  description: text,
  tags: text,
  capabilities: text,
  operationNames: text,
  operationText: text,
  parameters: text,
});
type Operation =
  | { kind: 'set'; id: string; fields: LexicalFields; restricted: boolean }
  | { kind: 'delete'; id: string };
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      id: fc.constantFrom(...IDS),
      fields,
      restricted: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...IDS) }) },
);
const queryText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...VOCABULARY),
      fc.constantFrom(...PREFIXES),
      fc.tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...VOCABULARY)).map(([a, b]) => `"${a} ${b}"`),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => parts.join(' '));
const scope: fc.Arbitrary<Omit<LexicalSearchOptions, 'limit'>> = fc.oneof(
  fc.constant({}),
  fc.subarray(IDS).map((ids) => ({ candidates: new Set(ids) })),
  fc.subarray(IDS).map((ids) => ({ excluded: new Set(ids) })),
  fc
    .tuple(fc.subarray(IDS), fc.subarray(IDS))
    .map(([candidates, excluded]) => ({ candidates: new Set(candidates), excluded: new Set(excluded) })),
);

interface ReferenceAgent {
  id: string;
  fields: LexicalFields;
  restricted: boolean;
  order: number;
}

/** The registry the operations leave, in order of first registration (a replaced agent keeps its place). */
function apply(operations: readonly Operation[]): ReferenceAgent[] {
  const agents = new Map<string, ReferenceAgent>();
  let order = 0;
  for (const op of operations) {
    if (op.kind === 'delete') agents.delete(op.id);
    else {
      const held = agents.get(op.id);
      agents.set(op.id, {
        id: op.id,
        fields: op.fields,
        restricted: op.restricted,
        order: held?.order ?? order++,
      });
    }
  }
  return [...agents.values()];
}

/** FTS5's BM25, agent by agent: public agents with public statistics, visible restricted ones with theirs too. */
function reference(agents: readonly ReferenceAgent[], query: LexicalQuery, options: LexicalSearchOptions) {
  const clauses = query.clauses.map(clauseTerms).filter((clause) => clause !== undefined);
  const weights = FIELD_COLUMNS.map(([field]) => DEFAULT_FIELD_WEIGHTS[field]);
  const inScope = (agent: ReferenceAgent) =>
    (options.candidates === undefined || options.candidates.has(agent.id)) &&
    !options.excluded?.has(agent.id);
  const analysed = agents.map((agent) => {
    const terms = FIELD_COLUMNS.map(([field]) => textTerms(agent.fields[field]));
    const length = terms.reduce((sum, field) => sum + field.length, 0);
    const frequencies = clauses.map((clause) => {
      let weighted = 0;
      terms.forEach((field, f) => {
        for (let start = 0; start + clause.terms.length <= field.length; start++) {
          if (clause.terms.every((_, i) => termMatches(clause, i, field[start + i]!)))
            weighted += weights[f]!;
        }
      });
      return weighted;
    });
    return { agent, length, frequencies };
  });
  const statistics = (rows: typeof analysed) => ({
    rows: rows.length,
    tokens: rows.reduce((sum, row) => sum + row.length, 0),
    matches: clauses.map((_, p) => rows.filter((row) => row.frequencies[p]! > 0).length),
  });
  const publicRows = analysed.filter((row) => !row.agent.restricted);
  const visibleRows = analysed.filter((row) => row.agent.restricted && inScope(row.agent));
  const publicStatistics = statistics(publicRows);
  const visibleStatistics = statistics([...publicRows, ...visibleRows]);
  const scored: Array<LexicalMatch & { restricted: boolean; order: number }> = [];
  for (const row of analysed) {
    if (!inScope(row.agent) || !row.frequencies.some((f) => f > 0)) continue;
    const { rows, tokens, matches } = row.agent.restricted ? visibleStatistics : publicStatistics;
    const averageLength = tokens / rows;
    let score = 0;
    row.frequencies.forEach((f, p) => {
      if (f === 0) return;
      const norm = 1 - BM25_B + (BM25_B * row.length) / averageLength;
      score += fts5Idf(rows, matches[p]!) * ((f * (BM25_K1 + 1)) / (f + BM25_K1 * norm));
    });
    scored.push({ id: row.agent.id, score, restricted: row.agent.restricted, order: row.agent.order });
  }
  scored.sort(
    (a, b) => b.score - a.score || Number(a.restricted) - Number(b.restricted) || a.order - b.order,
  );
  return scored.slice(0, Math.floor(options.limit)).map(({ id, score }) => ({ id, score }));
}

function assertSameRanking(
  actual: readonly LexicalMatch[],
  expected: readonly LexicalMatch[],
  label: string,
) {
  assert.deepEqual(
    actual.map((hit) => hit.id),
    expected.map((hit) => hit.id),
    label,
  );
  actual.forEach((hit, i) => {
    const want = expected[i]!.score;
    assert.ok(
      Math.abs(hit.score - want) <= 1e-9 * Math.abs(want),
      `${label}: ${hit.id} ${hit.score} vs ${want}`,
    );
  });
}

/**
 * The pruning's registries and queries: each agent's texts hold any of the common words and at most one rare word
 * (so a query's clauses split between rare and common), a quarter of the agents restricted (`restricted` 0);
 * queries of two to five of these words.
 */
function prunableRegistry() {
  const rare = ['weather', 'forecast', 'café', 'mail', 'ab', 'forecasting', 'cities', 'e'];
  const common = ['data', 'report', 'city', 'run'];
  const agentText = fc
    .tuple(fc.subarray(common), fc.subarray(rare, { maxLength: 1 }), fc.constantFrom('', 'data', 'city city'))
    .map(([shared, own, extra]) => [...shared, ...own, extra].join(' '));
  const agentFields: fc.Arbitrary<LexicalFields> = fc.record({
    name: agentText,
    description: agentText,
    tags: fc.constant(''),
    capabilities: fc.constant(''),
    operationNames: fc.constant(''),
    operationText: agentText,
    parameters: fc.constant(''),
  });
  const agent = fc.record({ fields: agentFields, restricted: fc.integer({ min: 0, max: 3 }) });
  const words = fc
    .array(fc.constantFrom(...rare, ...common), { minLength: 2, maxLength: 5 })
    .map((parts) => parts.join(' '));
  return { agent, words };
}

describe('in-memory lexical index', () => {
  it('ranks as FTS5 BM25 written out plainly, through replacements, deletions and compactions', () => {
    const search = fc.record({
      kind: fc.constant('search' as const),
      text: queryText,
      scope,
      limit: fc.integer({ min: 1, max: 12 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ weight: 3, arbitrary: operation }, { weight: 1, arbitrary: search }), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.array(search, { minLength: 1, maxLength: 4 }),
        (steps, finalSearches) => {
          const compacting = new MemoryPostings({ compactFrom: 1 });
          const lazy = new MemoryPostings();
          const operations: Operation[] = [];
          for (const step of [...steps, ...finalSearches]) {
            if (step.kind === 'search') {
              const agents = apply(operations);
              const query = parseLexicalQuery(step.text);
              const options = { ...step.scope, limit: step.limit };
              const expected = reference(agents, query, options);
              assertSameRanking(lazy.search(query, options), expected, step.text);
              assertSameRanking(compacting.search(query, options), expected, `${step.text} (compacted)`);
              continue;
            }
            operations.push(step);
            for (const index of [compacting, lazy]) {
              if (step.kind === 'set') index.set(step.id, step.fields, step.restricted);
              else index.delete(step.id);
            }
          }
          const agents = apply(operations);
          assert.equal(compacting.size, agents.length);
          assert.equal(lazy.size, agents.length);
          for (const id of IDS)
            assert.equal(
              lazy.has(id),
              agents.some((agent) => agent.id === id),
            );
        },
      ),
      { seed: 20261128, numRuns: 300 },
    );
  });

  it('forgets a replaced agent’s old words and counts only its new ones', () => {
    const index = new MemoryPostings();
    index.set('a', lexicalFieldsOf({ name: 'weather forecast' }), false);
    index.set('b', lexicalFieldsOf({ name: 'tide tables' }), false);
    index.set('a', lexicalFieldsOf({ name: 'tide report' }), false);
    assert.deepEqual(index.search(parseLexicalQuery('weather'), { limit: 10 }), []);
    assert.deepEqual(
      index.search(parseLexicalQuery('tide'), { limit: 10 }).map((hit) => hit.id),
      ['a', 'b'],
    );
    index.delete('a');
    assert.equal(index.size, 1);
    assert.deepEqual(
      index.search(parseLexicalQuery('tide report'), { limit: 10 }).map((hit) => hit.id),
      ['b'],
    );
    assert.ok(index.bytes > 0);
  });

  it('counts a long quoted phrase as FTS5 does', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i % 7}x`);
    const operations: Operation[] = [
      { kind: 'set', id: 'a', fields: lexicalFieldsOf({ description: words.join(' ') }), restricted: false },
      {
        kind: 'set',
        id: 'b',
        fields: lexicalFieldsOf({ description: words.slice(0, 20).join(' ') }),
        restricted: false,
      },
      { kind: 'set', id: 'c', fields: lexicalFieldsOf({ name: 'word1x' }), restricted: false },
    ];
    const index = new MemoryPostings();
    for (const op of operations) if (op.kind === 'set') index.set(op.id, op.fields, op.restricted);
    const query = parseLexicalQuery(`"${words.slice(0, 25).join(' ')}"`);
    const expected = reference(apply(operations), query, { limit: 10 });
    assert.ok(query.clauses.some((clause) => clause.kind === 'phrase' && clause.words.length === 25));
    assertSameRanking(index.search(query, { limit: 10 }), expected, 'long phrase');
  });

  it('pruned as FTS5 is: the top 100 exactly the plain BM25, the pool below a subset in its true order', () => {
    // Public and restricted agents, every one in scope (the next test searches within scopes, against the index
    // unpruned); some words rare, some common, so clauses split.
    const { agent, words } = prunableRegistry();
    fc.assert(
      fc.property(
        fc.array(agent, { minLength: 1, maxLength: 180 }),
        fc.array(fc.tuple(words, fc.integer({ min: 1, max: 200 })), { minLength: 1, maxLength: 4 }),
        (agents, searches) => {
          const index = new MemoryPostings();
          const operations: Operation[] = agents.map(({ fields, restricted }, i) => ({
            kind: 'set',
            id: `agent-${i}`,
            fields,
            restricted: restricted === 0,
          }));
          for (const op of operations) if (op.kind === 'set') index.set(op.id, op.fields, op.restricted);
          const registry = apply(operations);
          for (const [text, limit] of searches) {
            const query = parseLexicalQuery(text);
            const all = reference(registry, query, { limit: registry.length });
            const actual = index.search(query, { limit });
            const exact = Math.min(limit, 100);
            assertSameRanking(actual.slice(0, exact), all.slice(0, exact), text);
            if (actual.length < exact) assert.equal(actual.length, all.length, text);
            // Below the top 100: true matches with their true scores, in the plain BM25's order.
            const rank = new Map(all.map((hit, i) => [hit.id, i]));
            let previous = -1;
            for (const hit of actual.slice(exact)) {
              const at = rank.get(hit.id);
              assert.ok(at !== undefined && at > previous, `${text}: ${hit.id} out of order`);
              assert.ok(Math.abs(hit.score - all[at]!.score) <= 1e-9 * Math.abs(all[at]!.score), text);
              previous = at;
            }
            assert.ok(actual.length <= limit);
          }
        },
      ),
      { seed: 20261130, numRuns: 60 },
    );
  });

  it('pruned within scopes and beside restricted agents: the top 100 is the unpruned one, the pool below in its order', () => {
    // Registries of up to 400 agents (a quarter restricted, some replaced or deleted), words from rare to common,
    // searched with and without candidates and excluded agents, against the same index scoring every match.
    const { agent: agentArbitrary, words } = prunableRegistry();
    /** Which agents a search keeps: every one, a share of them as candidates, or all but a share excluded. */
    let scoredPruned = 0;
    let scoredEverything = 0;
    const scopeOf = fc.record({
      kind: fc.constantFrom('none', 'candidates', 'excluded', 'both'),
      modulus: fc.integer({ min: 2, max: 7 }),
      remainder: fc.integer({ min: 0, max: 6 }),
    });
    fc.assert(
      fc.property(
        fc.array(agentArbitrary, { minLength: 1, maxLength: 400, size: 'max' }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.array(fc.tuple(words, fc.constantFrom(1, 5, 10, 20, 100, 150, 1000), scopeOf), {
          minLength: 1,
          maxLength: 4,
        }),
        (agents, removed, compactEagerly, searches) => {
          const options = compactEagerly ? { compactFrom: 1 } : {};
          const pruned = new MemoryPostings(options);
          const everything = new MemoryPostings({ ...options, prune: false });
          const ids = agents.map((_, i) => `agent-${i}`);
          for (const index of [pruned, everything]) {
            for (const [i, agent] of agents.entries())
              index.set(ids[i]!, agent.fields, agent.restricted === 0);
            // Some replaced (a new slot, their text another's), some deleted: freed slots hold stale postings.
            for (let i = 0; i < removed && i < agents.length; i++) {
              if (i % 2 === 0) index.delete(ids[(i * 7) % agents.length]!);
              else index.set(ids[(i * 5) % agents.length]!, agents[i]!.fields, agents[i]!.restricted === 1);
            }
          }
          for (const [text, limit, { kind, modulus, remainder }] of searches) {
            const share = new Set(ids.filter((_, i) => i % modulus === remainder % modulus));
            const rest = new Set(ids.filter((id) => !share.has(id)));
            const scope: Omit<LexicalSearchOptions, 'limit'> =
              kind === 'candidates'
                ? { candidates: rest }
                : kind === 'excluded'
                  ? { excluded: share }
                  : kind === 'both'
                    ? { candidates: rest, excluded: new Set(ids.filter((_, i) => i % 3 === 0)) }
                    : {};
            const query = parseLexicalQuery(text);
            const label = `${text} (${kind}, limit ${limit})`;
            const all = everything.search(query, { ...scope, limit: ids.length });
            const actual = pruned.search(query, { ...scope, limit });
            const exact = Math.min(limit, 100);
            // The same ids, order and scores (to the bit: the same sums in the same order) down to the proven depth.
            assert.deepEqual(actual.slice(0, exact), all.slice(0, exact), label);
            // Short of `limit` only below the proven depth (agents holding only common words left out), never padded.
            assert.ok(actual.length >= Math.min(exact, all.length) && actual.length <= limit, label);
            const rank = new Map(all.map((hit, i) => [hit.id, i]));
            let previous = exact - 1;
            for (const hit of actual.slice(exact)) {
              const at = rank.get(hit.id);
              assert.ok(at !== undefined && at > previous, `${label}: ${hit.id} out of order`);
              assert.equal(hit.score, all[at]!.score, label);
              previous = at;
            }
          }
          scoredPruned += pruned.stats.agentsScored;
          scoredEverything += everything.stats.agentsScored;
        },
      ),
      // Not shrunk: a failing registry of hundreds of agents takes minutes to shrink; the first one is reported.
      { seed: 20261201, numRuns: 60, endOnFailure: true },
    );
    // The pruning did leave agents unscored.
    assert.ok(scoredPruned < 0.8 * scoredEverything, `${scoredPruned} scored against ${scoredEverything}`);
  });

  it('finds phrases and repeated words past 8,192 positions (areas kept in 32 bits apart), compacted or not', () => {
    // A text of `padding` filler words (a repeated term) then some vocabulary: phrases and repetitions land around
    // the 16-bit areas' bound on positions.
    const padded = fc
      .tuple(fc.integer({ min: 8_180, max: 8_200 }), text)
      .map(([padding, tail]) => `${'filler '.repeat(padding)}${tail}`);
    const longFields: fc.Arbitrary<LexicalFields> = fc.record({
      name: text,
      description: fc.oneof(text, padded),
      tags: text,
      capabilities: text,
      operationNames: text,
      operationText: fc.oneof(text, padded),
      parameters: text,
    });
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.constantFrom(...IDS), fields: longFields, restricted: fc.boolean() }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.subarray(IDS, { maxLength: 2 }),
        fc.array(queryText, { minLength: 1, maxLength: 3 }),
        (sets, deleted, queries) => {
          const operations: Operation[] = [
            ...sets.map((set) => ({ kind: 'set' as const, ...set })),
            ...deleted.map((id) => ({ kind: 'delete' as const, id })),
          ];
          const compacting = new MemoryPostings({ compactFrom: 1 });
          const lazy = new MemoryPostings();
          for (const op of operations) {
            for (const index of [compacting, lazy]) {
              if (op.kind === 'set') index.set(op.id, op.fields, op.restricted);
              else index.delete(op.id);
            }
          }
          const agents = apply(operations);
          for (const text of [...queries, '"filler weather"', 'filler']) {
            const query = parseLexicalQuery(text);
            const expected = reference(agents, query, { limit: 10 });
            assertSameRanking(lazy.search(query, { limit: 10 }), expected, text);
            assertSameRanking(compacting.search(query, { limit: 10 }), expected, `${text} (compacted)`);
          }
        },
      ),
      { seed: 20261129, numRuns: 25 },
    );
    // More occurrences of one word than 16 bits count.
    const index = new MemoryPostings();
    const many = lexicalFieldsOf({ description: `${'filler '.repeat(70_000)}weather forecast` });
    index.set('a', many, false);
    index.set('b', lexicalFieldsOf({ description: 'filler weather forecast' }), false);
    const operations: Operation[] = [
      { kind: 'set', id: 'a', fields: many, restricted: false },
      {
        kind: 'set',
        id: 'b',
        fields: lexicalFieldsOf({ description: 'filler weather forecast' }),
        restricted: false,
      },
    ];
    for (const text of ['"filler weather forecast"', 'filler', 'forecast']) {
      const query = parseLexicalQuery(text);
      assertSameRanking(
        index.search(query, { limit: 10 }),
        reference(apply(operations), query, { limit: 10 }),
        text,
      );
    }
  });

  it('finds every term of a prefix among thousands (the sorted terms and those not sorted yet), compacted or not', () => {
    // Past 4,096 terms not yet sorted, a prefix query sorts them: terms from both sides of that are asked for.
    const memory = new MemoryPostings({ compactFrom: 50 });
    const words = Array.from({ length: 9000 }, (_, i) => `w${(i * 7919) % 9000}x${i % 7}`);
    for (let i = 0; i < words.length; i += 10) {
      memory.set(`agent-${i}`, lexicalFieldsOf({ description: words.slice(i, i + 10).join(' ') }), false);
    }
    const matching = (prefix: string) =>
      new Set(words.flatMap((word, i) => (word.startsWith(prefix) ? [`agent-${i - (i % 10)}`] : [])));
    const found = (prefix: string) =>
      new Set(memory.search(parseLexicalQuery(`${prefix}*`), { limit: 10_000 }).map((match) => match.id));
    for (const prefix of ['w1', 'w89', 'w4000x', 'w77'])
      assert.deepEqual(found(prefix), matching(prefix), prefix);
    for (let i = 0; i < 3000; i += 10) {
      memory.set(
        `agent-${i}`,
        lexicalFieldsOf({ description: `late${i} ${words.slice(i, i + 10).join(' ')}` }),
        false,
      );
    }
    const replaced = Array.from({ length: 300 }, (_, k) => k * 10);
    assert.deepEqual(
      found('late2'),
      new Set(replaced.filter((i) => String(i).startsWith('2')).map((i) => `agent-${i}`)),
    );
    for (const prefix of ['w1', 'w89', 'w4000x', 'w77'])
      assert.deepEqual(found(prefix), matching(prefix), `${prefix} after`);
  });

  it('names the words of the text that matched, field by field, as they are written', () => {
    const fields = {
      name: 'Get_Weather getWeather get Weather',
      description: 'Weather forecasts for cities; a café guide.',
      tags: 'travel',
      capabilities: '',
      operationNames: '',
      operationText: 'Forecasting the weather',
      parameters: 'city',
    };
    assert.deepEqual(matchedWords(parseLexicalQuery('"get weather" forecast cafe cit*'), fields), {
      name: ['get_weather', 'get weather'],
      description: ['weather', 'forecasts', 'cities', 'café'],
      operationText: ['forecasting', 'weather'],
      parameters: ['city'],
    });
  });
});
