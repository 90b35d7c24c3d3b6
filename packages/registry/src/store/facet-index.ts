/**
 * Each agent's facet values in memory — its tags, capabilities, languages, status, arrivals, formats, transports
 * and auth kinds, as small integer codes — so that GET /facets (store/facets.ts) counts them over any scope in one
 * pass, and so that a filtered list page and a search's scope (store/agents.ts) are read from per-value postings
 * in id order (facet-postings.ts). Counting in SQL visited every agent of the scope once per facet, an index seek
 * each, and reading a large scope's ids out of the database cost as much again (measured at 100,000 agents, a
 * filter that keeps half of them: 0.15 s per facet and 0.15-0.35 s for the ids, at load 6-10), where a pass over
 * the agents in memory takes milliseconds. Who may see an agent is not kept here: its readers ask the database
 * each time (`hiddenAgentIds` in filters.ts).
 *
 * The index stays exact by following the log of changed agents (agent-changes.ts), which triggers in the database
 * stamp on every write to the agents and the tables of their values, whoever makes it (this process, another one, a
 * replica, a migration): when the database's change counter (`DatabaseDialect.changeCount`, which also hears other
 * processes' and replicas' commits) has moved, the agents stamped since the index's position in the log are read
 * again by id (those gone are dropped), and the position moves past them. An answer that must hold every commit
 * made before it was asked (`current({ exact: true })`, a list page) asks SQLite's counter at once
 * (`changeCountNow`: `PRAGMA data_version`, no statement through Kysely) and reads the log only when it moved; on
 * PostgreSQL, whose counter hears other connections by notification, later, it reads the log every time.
 * Positions follow commit order on both dialects, so no write is missed however its `updated_at` was stamped, and
 * nothing needs comparing every agent afterwards. Many changes at once (more than 10,000 and a quarter of the
 * agents: a bulk load) are read table by table instead. The first load reads every value table once (at 100,000
 * agents: about 40 MB of heap and 1.5-2 s of CPU), after taking its position in the log.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { DialectName } from '../db/dialect.js';
import { agentChangePosition, agentsChangedSince, type ChangeLogPosition } from './agent-changes.js';
import { type AgentCodes, type CodeRequirements, FacetPostings, runMeets } from './facet-postings.js';
import type { FilterRequirement, FilterSource } from './filters.js';
import type { AgentValueTableName } from './schema.js';

export const FACET_NAMES = [
  'tags',
  'capabilities',
  'languages',
  'status',
  'sources',
  'formats',
  'transports',
  'auth',
] as const;

export type FacetName = (typeof FACET_NAMES)[number];

export interface FacetCount {
  value: string;
  count: number;
}

/** Which facet counts the values a filter requirement looks at. */
const FACET_OF: Readonly<Record<FilterSource, FacetName>> = {
  agent_tags: 'tags',
  agent_capabilities: 'capabilities',
  agent_languages: 'languages',
  status: 'status',
  arrival: 'sources',
  format: 'formats',
  agent_transports: 'transports',
  agent_auth_kinds: 'auth',
};

const VALUE_TABLES: ReadonlyArray<readonly [AgentValueTableName, FacetName]> = [
  ['agent_tags', 'tags'],
  ['agent_capabilities', 'capabilities'],
  ['agent_languages', 'languages'],
  ['agent_transports', 'transports'],
  ['agent_auth_kinds', 'auth'],
];

/** Ids a statement names at most. */
const CHUNK = 500;
/** What `#joined` separates rows by (cast: PostgreSQL types the parameters). */
const NEWLINE = sql`cast(${'\n'} as text)`;

/** Every value seen, of every facet, numbered from 0. */
class FacetDictionary {
  readonly #codes = FACET_NAMES.map(() => new Map<string, number>());
  readonly facetOf: number[] = [];
  readonly valueOf: string[] = [];

  code(facet: FacetName, value: string): number {
    const codes = this.#codes[FACET_NAMES.indexOf(facet)]!;
    let code = codes.get(value);
    if (code === undefined) {
      code = this.valueOf.length;
      codes.set(value, code);
      this.facetOf.push(FACET_NAMES.indexOf(facet));
      this.valueOf.push(value);
    }
    return code;
  }

  known(facet: FacetName, value: string): number | undefined {
    return this.#codes[FACET_NAMES.indexOf(facet)]!.get(value);
  }

  get size(): number {
    return this.valueOf.length;
  }
}

/** What to count: `ids` (or every agent), less `hidden`, that meet every requirement. */
export interface FacetScope {
  ids?: readonly string[];
  hidden?: ReadonlySet<string>;
  requirements: readonly FilterRequirement[];
}

export interface FacetTotals {
  total: number;
  facets: Record<FacetName, FacetCount[]>;
}

export class FacetIndex {
  readonly #db: Kysely<Database>;
  readonly #dialect: DialectName;
  readonly #changeCount: () => number;
  readonly #changeCountNow: (() => number) | undefined;
  readonly #dictionary = new FacetDictionary();
  #agents = new FacetPostings();
  #loaded = false;
  /** Whether the database sorts agent ids as the index does (asked once). */
  #sortsLikeDatabase: Promise<boolean> | undefined;
  /** The change count the index was last brought up to date at. */
  #checkedAt: number | undefined;
  /** How far it has read the log of changed agents (agent-changes.ts). */
  #position: ChangeLogPosition = 0;
  /** The read of the log that `current({ exact: true })` callers wait for, until it begins. */
  #nextVerify: Promise<void> | undefined;
  /** Refreshes and loads run one after another: each reads what the one before left. */
  #work: Promise<void> = Promise.resolve();

  /**
   * `changeCount` is the database's change counter (`DatabaseDialect.changeCount`); `changeCountNow`, where the
   * dialect has it (`DatabaseDialect.changeCountNow`, SQLite), the same counter with every earlier commit in it.
   */
  constructor(
    db: Kysely<Database>,
    dialect: DialectName,
    changeCount: () => number,
    changeCountNow?: () => number,
  ) {
    this.#db = db;
    this.#dialect = dialect;
    this.#changeCount = changeCount;
    this.#changeCountNow = changeCountNow;
  }

  /** Whether every agent has been read once: until then, answers come from the database. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /**
   * Brings the index up to what the database holds now; at once when nothing was written since the last time.
   * The change counter hears other connections' commits later (SQLite asks the file at most once a millisecond,
   * PostgreSQL waits for a notification), and an answer that must be what the database answers (`exact`: a list
   * page) cannot wait: on SQLite it asks the file at once (`changeCountNow`, a few microseconds) and reads the log
   * only when that moved; on PostgreSQL it reads the log every time (one statement, usually no rows).
   */
  async current(options: { exact?: boolean } = {}): Promise<void> {
    // Not exact, or exact where the counter can be asked at once (SQLite): the log is read when the count moved.
    const count = options.exact === true ? this.#changeCountNow : this.#changeCount;
    if (count !== undefined) {
      if (this.#loaded && count() === this.#checkedAt) return;
      return this.#serially(() => this.#refresh(count));
    }
    // Exact on PostgreSQL: the log is read whatever the counter says. Every request waiting for a read that has not
    // begun yet shares it: it begins after they came.
    this.#nextVerify ??= this.#serially(() => {
      this.#nextVerify = undefined;
      return this.#refresh(this.#changeCount, true);
    });
    return this.#nextVerify;
  }

  /**
   * Whether the database orders agent ids as the index does (by code unit, which on URL-safe ids is byte order):
   * SQLite's `BINARY` collation does; PostgreSQL's `C` and `C.UTF-8` do, a language's collation does not, and
   * then lists are left to the database.
   */
  sortsLikeDatabase(): Promise<boolean> {
    this.#sortsLikeDatabase ??= this.#askSortOrder();
    return this.#sortsLikeDatabase;
  }

  async #askSortOrder(): Promise<boolean> {
    if (this.#dialect !== 'postgres') return true;
    // Every character an id may hold, in a few orders a collation can disagree on.
    const samples = [
      'a',
      'B',
      'b',
      'A',
      '-',
      '.',
      '_',
      '~',
      '0',
      '9',
      'Z',
      'z',
      'a-b',
      'ab',
      'a.b',
      'a_b',
      'a~',
    ];
    const { rows } = await sql<{
      value: string;
    }>`select value from unnest(cast(${samples} as text[])) as s (value)
      order by value collate "default"`.execute(this.#db);
    const column = await sql<{ collation: string | null }>`select collation_name as collation
      from information_schema.columns where table_schema = current_schema() and table_name = 'agents'
      and column_name = 'id'`.execute(this.#db);
    const sorted = [...samples].sort();
    return (
      (column.rows[0]?.collation ?? null) === null &&
      rows.length === sorted.length &&
      rows.every((row, index) => row.value === sorted[index])
    );
  }

  /**
   * The codes of what `requirements` accept, per requirement (an empty list for one no agent's value meets);
   * read after `current()`.
   */
  codesOf(requirements: readonly FilterRequirement[]): CodeRequirements {
    return requirements.map((requirement) => {
      const facet = FACET_OF[requirement.source];
      return requirement.values.flatMap((value) => this.#dictionary.known(facet, value) ?? []);
    });
  }

  /**
   * The ids of the agents meeting `requirements` (at least one), less `hidden`, in id order after `afterId`, at
   * most `limit`: from the postings (facet-postings.ts), read after `current()`.
   */
  meeting(
    requirements: CodeRequirements,
    hidden: ReadonlySet<string> | undefined,
    afterId: string | undefined,
    limit: number,
  ): string[] {
    return this.#agents.meeting(requirements, hidden, afterId, limit);
  }

  /**
   * The counts of each facet's values, most frequent first, over the agents of `scope` (at most `limit` values a
   * facet), and how many agents that is. Agents of `scope.ids` the index does not hold yet (written since it was
   * last brought up to date) are read first.
   */
  async count(scope: FacetScope, limit: number): Promise<FacetTotals> {
    if (scope.ids !== undefined) {
      const missing = [...new Set(scope.ids.filter((id) => !this.#agents.has(id)))];
      if (missing.length > 0) await this.#serially(() => this.#load(missing));
    }
    const dictionary = this.#dictionary;
    // Per requirement, 1 at the codes of the values it accepts.
    const wanted: Uint8Array[] = [];
    for (const requirement of scope.requirements) {
      const facet = FACET_OF[requirement.source];
      const accepted = new Uint8Array(dictionary.size);
      let any = false;
      for (const value of requirement.values) {
        const code = dictionary.known(facet, value);
        if (code !== undefined) {
          accepted[code] = 1;
          any = true;
        }
      }
      // A value no agent has: nothing meets the requirement.
      if (!any) return totalsOf(new Uint32Array(0), 0, dictionary, limit);
      wanted.push(accepted);
    }
    const counts = new Uint32Array(dictionary.size);
    const agents = this.#agents;
    const hidden = agents.slotsOf(scope.hidden);
    let total = 0;
    const visit = (slot: number, codes: Uint32Array, start: number, end: number): void => {
      if (hidden?.has(slot)) return;
      for (const accepted of wanted) if (!runMeets(codes, start, end, accepted)) return;
      total++;
      for (let i = start; i < end; i++) counts[codes[i]!]!++;
    };
    if (scope.ids === undefined) agents.forEachRun(visit);
    else {
      const slots = new Set<number>();
      for (const id of scope.ids) {
        const slot = agents.slotOf(id);
        if (slot >= 0) slots.add(slot);
      }
      for (const slot of slots) agents.runOf(slot, visit);
    }
    return totalsOf(counts, total, dictionary, limit);
  }

  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#work.then(work);
    this.#work = run.catch(() => undefined);
    return run;
  }

  /**
   * Reads what changed since the index's position in the log, unless `changeCount` is where it was last brought up
   * to date (`verify`: whatever it says). The count is taken before the log is read: a commit after it is counted
   * next time, and read again, but none counted here is missing from the read.
   */
  async #refresh(changeCount: () => number, verify = false): Promise<void> {
    const count = changeCount();
    if (this.#loaded && !verify && count === this.#checkedAt) return;
    if (!this.#loaded) {
      await this.#loadAll();
    } else {
      const changed = await agentsChangedSince(this.#db, this.#dialect, this.#position);
      // Many at once (a bulk load, an import) read faster table by table than by id.
      if (changed.ids.length > 10_000 && changed.ids.length > this.#agents.size / 4) await this.#loadAll();
      else {
        await this.#load(changed.ids);
        this.#position = changed.position;
      }
    }
    this.#checkedAt = count;
  }

  /**
   * An aggregate joining `expression` over the rows with newlines, which agent ids (URL-safe) and timestamps
   * never hold: a table read as one row per value instead of one per agent and value, which costs a fifth of the
   * time at 100,000 agents.
   */
  #joined(expression: RawBuilder<unknown>): RawBuilder<string | null> {
    return this.#dialect === 'postgres'
      ? sql<string | null>`string_agg(${expression}, ${NEWLINE})`
      : sql<string | null>`group_concat(${expression}, ${NEWLINE})`;
  }

  /** Every agent, table by table: each read from an index holding just what it needs, its ids joined by value. */
  async #loadAll(): Promise<void> {
    // The log's position first: an agent written while the tables are read is stamped after it, and read again.
    const position = await agentChangePosition(this.#db, this.#dialect);
    const building = new Map<string, { codes: number[] }>();
    const statuses = await this.#db
      .selectFrom('agents')
      .select(['agents.status as value', this.#joined(sql.ref('agents.id')).as('ids')])
      .groupBy('agents.status')
      .execute();
    for (const row of statuses) for (const id of split(row.ids)) building.set(id, { codes: [] });
    this.#collectJoined(building, 'status', statuses);
    for (const [table, facet] of VALUE_TABLES) {
      const rows = await this.#db
        .selectFrom(table)
        .select([`${table}.value as value`, this.#joined(sql.ref(`${table}.agent_id`)).as('ids')])
        .groupBy(`${table}.value`)
        .execute();
      this.#collectJoined(building, facet, rows);
    }
    for (const column of ['arrival', 'format'] as const) {
      const rows = await this.#db
        .selectFrom('agent_sources')
        .select([
          `agent_sources.${column} as value`,
          this.#joined(sql.ref('agent_sources.agent_id')).as('ids'),
        ])
        .groupBy(`agent_sources.${column}`)
        .execute();
      // An entry with several sources is listed once per source: it counts once.
      this.#collectJoined(building, column === 'arrival' ? 'sources' : 'formats', rows, true);
    }
    this.#agents = FacetPostings.build(new Map([...building].map(([id, entry]) => [id, entry.codes])));
    this.#loaded = true;
    this.#position = position;
  }

  #collectJoined(
    building: Map<string, { codes: number[] }>,
    facet: FacetName,
    rows: ReadonlyArray<{ value: string; ids: string | null }>,
    once = false,
  ): void {
    for (const row of rows) {
      const code = this.#dictionary.code(facet, row.value);
      for (const id of split(row.ids)) {
        const codes = building.get(id)?.codes;
        if (codes !== undefined && !(once && codes.includes(code))) codes.push(code);
      }
    }
  }

  /** The agents `ids`, as they are now; those that no longer exist are dropped. */
  async #load(ids: readonly string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += CHUNK) {
      const chunk = ids.slice(start, start + CHUNK);
      const agents = await this.#db
        .selectFrom('agents')
        .select(['agents.id', 'agents.status'])
        .where('agents.id', 'in', chunk)
        .execute();
      const building = new Map<string, { codes: number[] }>();
      for (const row of agents) building.set(row.id, { codes: [] });
      this.#collect(building, 'status', agents, (row) => ({ agentId: row.id, value: row.status }));
      for (const [table, facet] of VALUE_TABLES) {
        const rows = await this.#db
          .selectFrom(table)
          .select([`${table}.agent_id`, `${table}.value`])
          .where(`${table}.agent_id`, 'in', chunk)
          .execute();
        this.#collect(building, facet, rows, (row) => ({ agentId: row.agent_id, value: row.value }));
      }
      const sources = await this.#db
        .selectFrom('agent_sources')
        .select(['agent_sources.agent_id', 'agent_sources.arrival', 'agent_sources.format'])
        .where('agent_sources.agent_id', 'in', chunk)
        .execute();
      this.#collectSources(building, sources);
      this.#agents.apply(chunk.map((id): AgentCodes => ({ id, codes: building.get(id)?.codes })));
    }
  }

  #collect<Row>(
    building: Map<string, { codes: number[] }>,
    facet: FacetName,
    rows: readonly Row[],
    read: (row: Row) => { agentId: string; value: string },
  ): void {
    for (const row of rows) {
      const { agentId, value } = read(row);
      building.get(agentId)?.codes.push(this.#dictionary.code(facet, value));
    }
  }

  /** An entry counts once under each way its sources arrived and each format they were read in. */
  #collectSources(
    building: Map<string, { codes: number[] }>,
    rows: ReadonlyArray<{ agent_id: string; arrival: string; format: string }>,
  ): void {
    for (const row of rows) {
      const entry = building.get(row.agent_id);
      if (entry === undefined) continue;
      for (const code of [
        this.#dictionary.code('sources', row.arrival),
        this.#dictionary.code('formats', row.format),
      ]) {
        if (!entry.codes.includes(code)) entry.codes.push(code);
      }
    }
  }
}

/** The rows `#joined` joined; none for none (the aggregate of no rows is null). */
function split(joined: string | null | undefined): string[] {
  return joined === null || joined === undefined || joined === '' ? [] : joined.split('\n');
}

function totalsOf(
  counts: Uint32Array,
  total: number,
  dictionary: FacetDictionary,
  limit: number,
): FacetTotals {
  const byFacet = FACET_NAMES.map((): FacetCount[] => []);
  for (let code = 0; code < counts.length; code++) {
    const count = counts[code]!;
    if (count > 0) byFacet[dictionary.facetOf[code]!]!.push({ value: dictionary.valueOf[code]!, count });
  }
  const facets = Object.fromEntries(
    FACET_NAMES.map((name, index) => [name, top(byFacet[index]!, limit)]),
  ) as Record<FacetName, FacetCount[]>;
  return { total, facets };
}

/** The `limit` most frequent, most frequent first, ties by value. */
function top(counts: FacetCount[], limit: number): FacetCount[] {
  return counts
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, limit);
}
