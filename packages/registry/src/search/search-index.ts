/**
 * The registry's search index: a lexical index (BM25) and a semantic one (embeddings) over what each agent says
 * about itself, fused into one ranking. The database holds both (SQLite, or PostgreSQL for several replicas); the
 * vectors are also kept in memory, loaded at start, for brute-force similarity, and so is the lexical index once
 * it is large. Nothing is held only in memory: a replica that starts loads all of it from the database.
 *
 * This module puts the parts together; each keeps one kind of state:
 * - write-queue.ts: the order of writes, upserts coalesced while they wait to be embedded;
 * - index-writes.ts: what each write puts in the database and then in memory;
 * - change-follower.ts: how far the change log is applied, so writes made through another connection to the same
 *   database (`agentry crawl` beside `agentry serve`, another replica on PostgreSQL) reach the vectors and
 *   demotions and the lexical mirror: a search first applies what others committed; on PostgreSQL the index also applies it as soon as
 *   the database's change counter (LISTEN/NOTIFY, db/postgres.ts) says others wrote;
 * - vector-store.ts: the vectors and demotions in memory, and the one step that searches them;
 * - lexical/memory-mirror.ts: the lexical index copied into memory from 50,000 agents on, which searches then rank
 *   in (others' writes read back from the database before a search answers);
 * - embedder.ts: query vectors (and their cache), document vectors, texts the provider refused;
 * - rank.ts: the ranking itself and its explanations, pure.
 * If embedding fails the agents are still indexed lexically and wait for `embedPending()`.
 */
import type { EmbeddingProvider } from '@agentry/embeddings';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { DatabaseDialect } from '../db/dialect.js';
import { followChanges } from './change-follower.js';
import { latestChange } from './change-log.js';
import { lexicalFields } from './document-text.js';
import { createEmbedder } from './embedder.js';
import type { FusedHit } from './fusion.js';
import { indexWrites } from './index-writes.js';
import { openLexicalMirror } from './lexical/memory-mirror.js';
import { matchedWords } from './lexical/memory-text.js';
import { createPostgresLexicalIndex } from './lexical/postgres.js';
import { type LexicalQuery, parseLexicalQuery } from './lexical/query.js';
import { createSqliteLexicalIndex } from './lexical/sqlite.js';
import type { FieldMatches, LexicalIndex, LexicalMatch } from './lexical/types.js';
import { explain, rank } from './rank.js';
import { querySegments } from './semantic/query-segments.js';
import { withMentionKinds } from './text/mentions.js';
import type {
  EmbedPendingOptions,
  SearchDocument,
  SearchHit,
  SearchIndex,
  SearchIndexStats,
  SearchMode,
  SearchOptions,
} from './types.js';
import { loadVectorStore, type VectorStoreOptions } from './vector-store.js';
import { createWriteQueue } from './write-queue.js';

export interface SearchIndexOptions {
  /**
   * The database's dialect (db/): which lexical engine is the default, how writes keep the change log in commit
   * order, and the change counter that tells the index when others may have written. Default: SQLite, with the
   * change log read at every search.
   */
  dialect?: Pick<DatabaseDialect, 'name' | 'changeCount' | 'lockKey'>;
  /** The lexical engine (default: SQLite FTS5, or on PostgreSQL lexical/postgres.ts). */
  lexical?: LexicalIndex;
  /**
   * From how many indexed agents on searches rank in memory, the stored engine mirrored there
   * (lexical/memory-mirror.ts; default 50,000; `Infinity`: never; 0: always).
   */
  lexicalInMemoryFrom?: number;
  /** Agents read a page when loading the lexical index into memory (default 5,000). */
  lexicalLoadPage?: number;
  /** Query embeddings kept (default 2,000; 0 turns the cache off). */
  queryCacheSize?: number;
  /** Told when embedding fails; search stays lexical for the agents concerned until `embedPending()`. */
  onEmbeddingError?: (error: unknown) => void;
  /**
   * The vectors in memory: from how many on semantic candidates come from the approximate nearest-neighbour index
   * (`approximateFrom`, default 50,000) and how many of its lists a query probes (vector-store.ts).
   */
  vectors?: VectorStoreOptions;
}

/** Most hits one search returns. */
export const MAX_TOP = 1000;
/**
 * How deep the lexical ranking fused is. Standardising BM25 needs the scores of the agents below the top too
 * (measured: a pool of 100 costs about half a point of NDCG@10 against all matches); beyond it scores count as 0.
 */
const LEXICAL_POOL = 1000;
/**
 * How often the index looks at the database's change counter and, when it moved, applies what others committed
 * (a look costs nothing when it did not move). On PostgreSQL the counter moves on LISTEN/NOTIFY; while the
 * listening connection is lost it moves at every look, which makes this a poll of the change log.
 */
const FOLLOW_INTERVAL_MS = 200;

export async function createSearchIndex(
  db: Kysely<Database>,
  provider: EmbeddingProvider | undefined,
  options: SearchIndexOptions = {},
): Promise<SearchIndex> {
  const dialect = options.dialect;
  const stored =
    options.lexical ??
    (dialect?.name === 'postgres'
      ? createPostgresLexicalIndex({ changeCount: () => dialect.changeCount() })
      : createSqliteLexicalIndex());
  const embedder = createEmbedder(provider, {
    queryCacheSize: options.queryCacheSize ?? 2000,
    onError: options.onEmbeddingError ?? (() => undefined),
  });
  // Read before the vectors, demotions and lexical mirror: a change committed while they load is applied again,
  // never missed.
  const from = await latestChange(db);
  const mirror = await openLexicalMirror(db, stored, {
    ...(options.lexicalInMemoryFrom === undefined ? {} : { inMemoryFrom: options.lexicalInMemoryFrom }),
    ...(options.lexicalLoadPage === undefined ? {} : { loadPage: options.lexicalLoadPage }),
  });
  const lexical = mirror.lexical;
  const store = await loadVectorStore(db, provider, options.vectors);
  const follower = followChanges(db, from, (change) => {
    store.applyChange(change);
    mirror.changed(change.id);
  });
  const writes = indexWrites({
    db,
    lexical,
    lexicalMemory: mirror,
    provider,
    embedder,
    store,
    follower,
    ...(dialect === undefined ? {} : { beginWrite: (trx) => dialect.lockKey(trx, 'agentry.search-writes') }),
  });
  // On PostgreSQL the log is read when the change counter says others wrote (a round trip saved per search); on
  // SQLite, in this process, reading it costs less than asking.
  const counter = dialect?.name === 'postgres' ? dialect : undefined;
  /** The change count the change log was last read at: while the counter still says it, nobody wrote since. */
  let caughtUpAt: number | undefined;
  async function catchUp(): Promise<void> {
    await followLog();
    // Others' changes to the lexical mirror: those agents' documents read back.
    await mirror.catchUp();
  }
  async function followLog(): Promise<void> {
    if (counter === undefined) return follower.catchUp();
    const count = counter.changeCount();
    if (count === caughtUpAt) return;
    await follower.catchUp();
    caughtUpAt = Math.max(caughtUpAt ?? count, count);
  }
  // Others' writes are applied when they are heard of, not at the next search.
  const following =
    counter === undefined
      ? undefined
      : setInterval(() => {
          if (counter.changeCount() !== caughtUpAt) catchUp().catch(() => undefined);
        }, FOLLOW_INTERVAL_MS);
  following?.unref();
  const queue = createWriteQueue<SearchDocument, Awaited<ReturnType<typeof writes.prepareUpsert>>>({
    preparing: provider?.concurrency ?? 1,
    prepare: writes.prepareUpsert,
    commit: writes.commitUpsert,
  });

  /** Batch by batch, each a write of its own, so that registrations are not held until a long backlog is done. */
  async function embedPending(options: EmbedPendingOptions = {}): Promise<number> {
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    let taken = 0;
    let embedded = 0;
    while (taken < limit) {
      const batch = await queue.serialised(() =>
        writes.embedPendingBatch(Math.min(batchSize, limit - taken)),
      );
      if (batch.taken === 0) break;
      taken += batch.taken;
      embedded += batch.embedded;
    }
    return embedded;
  }

  async function search(query: string, searchOptions: SearchOptions): Promise<SearchHit[]> {
    const top = Math.max(0, Math.min(MAX_TOP, Math.floor(searchOptions.top)));
    if (top === 0 || query.trim() === '' || searchOptions.candidates?.size === 0) return [];
    await catchUp();
    const { candidates, excluded } = searchOptions;
    const scope = { candidates, excluded };
    const requested: SearchMode = searchOptions.mode ?? 'hybrid';
    // Both rankers read the query with its paths and links named for what they are (`… /root/a.md file`).
    const request = withMentionKinds(query);
    const lexicalQuery = parseLexicalQuery(request);

    const wantsSemantic = requested !== 'lexical' && store.size > 0;
    const pendingVectors = wantsSemantic
      ? embedder.queryVectors([request, ...querySegments(request)])
      : Promise.resolve(undefined);
    // The lexical ranking is read while the query is being embedded (a provider may embed off this thread).
    // Ranked lexically alone, a demoted agent may fall out of the top: read enough matches to refill it.
    const lexicalOnlyLimit = Math.min(LEXICAL_POOL, top + store.demotions.size);
    const pendingLexical =
      requested === 'semantic'
        ? undefined
        : lexical.search(db, lexicalQuery, {
            limit: wantsSemantic ? LEXICAL_POOL : lexicalOnlyLimit,
            ...scope,
          });
    pendingLexical?.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const vectors = await pendingVectors;
    // Without vectors (no provider, nothing embedded yet, provider down) every mode is lexical.
    const wanted: SearchMode = vectors ? requested : 'lexical';

    const lexicalMatches: LexicalMatch[] =
      wanted === 'semantic'
        ? []
        : await (pendingLexical ?? lexical.search(db, lexicalQuery, { limit: lexicalOnlyLimit, ...scope }));
    // Semantic mode ranks no words; its similarity floor asks whether any agent the caller may see matches them.
    const floors = provider?.similarityFloors;
    const anyWordMatched =
      wanted === 'semantic' && floors !== undefined
        ? (await lexical.search(db, lexicalQuery, { limit: 1, ...scope })).length > 0
        : undefined;

    // From the similarities to the ranking, nothing awaits: the matrix cannot change in between.
    const ranking =
      vectors && wanted !== 'lexical'
        ? store.similarities(
            vectors,
            scope,
            lexicalMatches.map((match) => match.id),
          )
        : undefined;
    const mode: SearchMode = ranking ? wanted : 'lexical';
    const hits = rank({
      mode,
      top,
      lexical: lexicalMatches,
      ...(ranking ?? {}),
      ...(floors === undefined ? {} : { floors }),
      ...(anyWordMatched === undefined ? {} : { anyWordMatched }),
      demotions: store.demotions,
    });

    return explain(
      hits,
      await matchedFields(lexicalQuery, hits, searchOptions.hitDocuments),
      mode,
      store.demotions,
    );
  }

  /** Which words of the query each hit that matched words matched, read from where `hitDocuments` says. */
  async function matchedFields(
    query: LexicalQuery,
    hits: readonly FusedHit[],
    hitDocuments: SearchOptions['hitDocuments'],
  ): Promise<ReadonlyMap<string, FieldMatches>> {
    if (hits.length === 0 || hitDocuments === false) return new Map();
    const lexicalHits = new Set(hits.filter((hit) => hit.lexical !== undefined).map((hit) => hit.id));
    if (hitDocuments === undefined) return lexical.explain(db, query, [...lexicalHits]);
    const documentOf = await hitDocuments(hits.map((hit) => hit.id));
    // The text the lexical index holds is derived from the same document (index-writes.ts), so the words match.
    const explanations = new Map<string, FieldMatches>();
    for (const id of lexicalHits) {
      const document = documentOf(id);
      if (document === undefined) continue;
      const matches = matchedWords(query, lexicalFields(document));
      if (Object.keys(matches).length > 0) explanations.set(id, matches);
    }
    return explanations;
  }

  return {
    upsert: queue.upsert,
    remove: (ids) => queue.serialised(() => writes.remove(ids)),
    embedPending,
    search,
    async stats(): Promise<SearchIndexStats> {
      await catchUp();
      return {
        documents: await lexical.count(db),
        embedded: store.size,
        provider: provider?.id,
        dimensions: store.dimensions ?? provider?.dimensions,
        ...(store.approximate ? { approximate: true as const } : {}),
        ...(mirror.loaded ? { lexicalInMemory: true as const } : {}),
        ...(store.building ? { vectorIndexBuilding: true as const } : {}),
      };
    },
    close() {
      clearInterval(following);
    },
  };
}
