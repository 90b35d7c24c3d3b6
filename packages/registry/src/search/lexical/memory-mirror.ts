/**
 * The stored lexical index mirrored in memory (memory-postings.ts) once it holds `inMemoryFrom` agents or more
 * (default 50,000), so that searches rank there: at 1,000,000 agents FTS5 reads and scores every match of a
 * query's common words, seconds a query (docs/search.md, "At 1,000,000 agents"), where the postings in memory take
 * milliseconds with the same BM25. The database stays the only record: the mirror is loaded from it (a keyed walk
 * of its rows, `LexicalIndex.documents`), writes go to it first, and a replica that starts loads it again.
 *
 * Staying exact: this index's own writes are applied once their transaction has committed (`written`, `removed`);
 * other connections' writes (another replica, `agentry crawl` beside `agentry serve`) are heard of through the change
 * log (`changed`, from change-follower.ts), and their agents' stored documents are read back before a search
 * answers (`catchUp`). A read that began before an own write of the same agent is not applied over it.
 *
 * When it is loaded: at start, before the index answers, when the database already holds `inMemoryFrom` agents
 * (the replica serves at full speed once it is up, as it serves every vector it holds); when the index grows to
 * that size while running, in the background, the stored engine answering meanwhile (exact, only slower), and from
 * memory once loaded, for good.
 */
import { DEFAULT_FIELD_WEIGHTS, type FieldWeights } from './fields.js';
import { MemoryPostings } from './memory-postings.js';
import { matchedWords } from './memory-text.js';
import type { Executor, FieldMatches, LexicalDocument, LexicalIndex } from './types.js';

/** Default of `inMemoryFrom`: as the vectors' approximate index (vector-store.ts), where FTS5 starts to cost. */
export const LEXICAL_IN_MEMORY_FROM = 50_000;
/** Default of `loadPage`. */
const LOAD_PAGE = 5000;

export interface LexicalMirrorOptions {
  /** From how many indexed agents on searches rank in memory (`Infinity`: never; 0: always). */
  inMemoryFrom?: number;
  /** Agents read a page when loading (default 5,000). */
  loadPage?: number;
  weights?: Readonly<FieldWeights>;
}

export interface LexicalMirror {
  /**
   * The lexical index searches use: the stored one, whose searches, explanations and counts come from memory once
   * it is loaded.
   */
  readonly lexical: LexicalIndex;
  /** Whether searches rank in memory. */
  readonly loaded: boolean;
  /** This index wrote these agents; called once the write has committed. */
  written(documents: readonly LexicalDocument[]): void;
  /** This index removed these agents; called once the removal has committed. */
  removed(ids: readonly string[]): void;
  /** Another connection changed this agent (read from the change log). */
  changed(id: string): void;
  /**
   * Reads back the agents other connections changed (those `changed` was told of before the call) and applies
   * them; starts the background load when the index has grown to `inMemoryFrom`.
   */
  catchUp(): Promise<void>;
}

export async function openLexicalMirror(
  db: Executor,
  stored: LexicalIndex,
  options: LexicalMirrorOptions = {},
): Promise<LexicalMirror> {
  const inMemoryFrom = Math.max(0, options.inMemoryFrom ?? LEXICAL_IN_MEMORY_FROM);
  const weights = options.weights ?? DEFAULT_FIELD_WEIGHTS;
  const loadPage = Math.max(1, Math.floor(options.loadPage ?? LOAD_PAGE));
  /** The postings searches read, once loaded. */
  let memory: MemoryPostings | undefined;
  /** The postings being loaded; own writes apply to them as they do to `memory`. */
  let loading: MemoryPostings | undefined;
  let load: Promise<void> | undefined;
  /** Agents other connections changed, to read back. */
  let pending = new Set<string>();
  /**
   * Own writes are numbered as they are applied; while reads of stored documents are under way, each agent's
   * latest number is kept, so that what a read that began earlier found for it is not applied.
   */
  let applied = 0;
  let readsUnderWay = 0;
  const ownWrites = new Map<string, number>();
  /** At most the agents indexed (every agent written since the last count counted as new). */
  let atMost = 0;
  /** One read-back at a time, in the order asked for: a later read of an agent is applied after an earlier one. */
  let readingBack: Promise<void> = Promise.resolve();

  function target(): MemoryPostings | undefined {
    return memory ?? loading;
  }

  function ownWrite(id: string): void {
    applied += 1;
    if (readsUnderWay > 0) ownWrites.set(id, applied);
  }

  /**
   * Reads stored documents and applies what was found at once, except for the agents this index wrote since the
   * read began (their own write stands; a later change by others is heard of again).
   */
  async function readAndApply<T>(
    read: () => Promise<T>,
    apply: (found: T, current: (id: string) => boolean) => void,
  ): Promise<void> {
    const began = applied;
    readsUnderWay += 1;
    try {
      const found = await read();
      apply(found, (id) => (ownWrites.get(id) ?? 0) <= began);
    } finally {
      readsUnderWay -= 1;
      if (readsUnderWay === 0) ownWrites.clear();
    }
  }

  async function loadAll(): Promise<void> {
    const postings = new MemoryPostings({ weights });
    loading = postings;
    try {
      let after: string | undefined;
      do {
        const from = after;
        after = undefined;
        await readAndApply(
          () => stored.documents(db, from, loadPage),
          (page, current) => {
            for (const document of page.documents) {
              if (current(document.id)) postings.set(document.id, document.fields, document.restricted);
            }
            after = page.next;
          },
        );
      } while (after !== undefined);
      // What others changed while it loaded, read back before it answers (a search may be past its catch-up).
      while (pending.size > 0) await readPending(postings);
      memory = postings;
    } finally {
      loading = undefined;
    }
  }

  function startLoad(): Promise<void> {
    load ??= loadAll().catch((error: unknown) => {
      load = undefined; // tried again at a later catch-up
      throw error;
    });
    return load;
  }

  /** Reads back the agents others changed and applies them, in row order (new agents take their places for ties). */
  async function readPending(into: MemoryPostings): Promise<void> {
    const ids = [...pending];
    pending = new Set();
    try {
      await readAndApply(
        () => stored.documentsOf(db, ids),
        (found, current) => {
          const gone = new Set(ids);
          for (const document of found) {
            gone.delete(document.id);
            if (current(document.id)) into.set(document.id, document.fields, document.restricted);
          }
          for (const id of gone) if (current(id)) into.delete(id);
        },
      );
    } catch (error) {
      for (const id of ids) pending.add(id);
      throw error;
    }
  }

  async function readBack(): Promise<void> {
    if (memory !== undefined && pending.size > 0) await readPending(memory);
    if (memory === undefined && load === undefined && atMost >= inMemoryFrom) {
      atMost = await stored.count(db);
      if (atMost >= inMemoryFrom) startLoad().catch(() => undefined);
    }
  }

  if (Number.isFinite(inMemoryFrom)) {
    atMost = await stored.count(db);
    if (atMost >= inMemoryFrom) await startLoad();
  }

  const lexical: LexicalIndex = {
    write: (db, entries) => stored.write(db, entries),
    remove: (db, ids) => stored.remove(db, ids),
    documents: (db, after, limit) => stored.documents(db, after, limit),
    documentsOf: (db, ids) => stored.documentsOf(db, ids),
    async search(db, query, options) {
      const ranking = memory;
      if (!ranking) return stored.search(db, query, options);
      // Ranking in memory holds the thread for milliseconds: the query's embedding request (asked for just before)
      // goes out first, so the two overlap as they do with the stored engine.
      await new Promise((resolve) => setImmediate(resolve));
      return ranking.search(query, options);
    },
    async explain(db, query, ids) {
      if (!memory) return stored.explain(db, query, ids);
      // The hits' own text, looked up: never the query's matches, which at 1,000,000 agents are hundreds of thousands.
      const explanations = new Map<string, FieldMatches>();
      for (const document of await stored.documentsOf(db, ids)) {
        const matches = matchedWords(query, document.fields);
        if (Object.keys(matches).length > 0) explanations.set(document.id, matches);
      }
      return explanations;
    },
    async count(db) {
      return memory ? memory.size : stored.count(db);
    },
  };

  return {
    lexical,
    get loaded() {
      return memory !== undefined;
    },
    written(documents) {
      atMost += documents.length;
      for (const document of documents) {
        ownWrite(document.id);
        target()?.set(document.id, document.fields, document.restricted);
      }
    },
    removed(ids) {
      for (const id of ids) {
        ownWrite(id);
        target()?.delete(id);
      }
    },
    changed(id) {
      atMost += 1;
      // Before the mirror is loaded, the load reads it; while it loads, it is read back once loaded.
      if (memory !== undefined || loading !== undefined) pending.add(id);
    },
    catchUp() {
      const next = readingBack.then(readBack);
      readingBack = next.catch(() => undefined);
      return next;
    },
  };
}
