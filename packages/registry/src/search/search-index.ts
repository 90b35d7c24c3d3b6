/**
 * The registry's search index: a lexical index (BM25) and a semantic one (embeddings) over what each agent says
 * about itself, fused into one ranking. The database holds both; the vectors are also kept in memory in one
 * matrix, loaded at start, for brute-force similarity.
 *
 * Writes are serialised: each upsert writes the lexical rows and the vectors in one transaction, then updates the
 * matrix, so the matrix always follows the database in order. Its agents are embedded before its turn (outside any
 * transaction), while the write before it commits, so the model and the database work side by side; upserts that
 * arrive while a batch waits to be embedded join it.
 * If embedding fails the agents are still indexed lexically and wait for `embedPending()`.
 *
 * Writes made through another connection to the same database (`agentry crawl` beside `agentry serve`) reach the
 * matrix and the demotions through the change log (change-log.ts): a search first applies what others committed.
 */
import { EmbeddingError, type EmbeddingProvider, VectorMatrix } from '@agentry/embeddings';
import type { Kysely } from 'kysely';
import { Limiter } from '../concurrency/limiter.js';
import { type ChangePosition, changesAfter, latestChange, markChanged } from './change-log.js';
import { chunks } from './chunks.js';
import { embeddingText, lexicalFields } from './document-text.js';
import { explainHit } from './explain.js';
import { type FusedHit, fuse, rankSemantic } from './fusion.js';
import { type LexicalQuery, parseLexicalQuery } from './lexical/query.js';
import { createSqliteLexicalIndex } from './lexical/sqlite.js';
import type { LexicalIndex, LexicalMatch } from './lexical/types.js';
import { QueryEmbeddingCache, queryCacheKey } from './semantic/query-cache.js';
import { querySegments } from './semantic/query-segments.js';
import { decodeVector, encodeVector, pendingRows, storedVectors } from './semantic/vector-rows.js';
import type { SearchTables } from './tables.js';
import { withMentionKinds } from './text/mentions.js';
import { readableText } from './text/words.js';
import type {
  Demotion,
  EmbedPendingOptions,
  SearchDocument,
  SearchHit,
  SearchIndex,
  SearchIndexStats,
  SearchMode,
  SearchOptions,
} from './types.js';

export interface SearchIndexOptions {
  /** The lexical engine (default: SQLite FTS5). */
  lexical?: LexicalIndex;
  /** Query embeddings kept (default 2,000; 0 turns the cache off). */
  queryCacheSize?: number;
  /** Told when embedding fails; search stays lexical for the agents concerned until `embedPending()`. */
  onEmbeddingError?: (error: unknown) => void;
}

/** Most hits one search returns. */
export const MAX_TOP = 1000;
/**
 * How deep the lexical ranking fused is. Standardising BM25 needs the scores of the agents below the top too
 * (measured: a pool of 100 costs about half a point of NDCG@10 against all matches); beyond it scores count as 0.
 */
const LEXICAL_POOL = 1000;
const LOAD_PAGE = 2000;

interface UpsertEntry {
  document: SearchDocument;
  text: string;
}

interface PreparedUpsert {
  entries: UpsertEntry[];
  /** Agents whose stored vector stands, as found before embedding. */
  unchanged: Set<string>;
  toEmbed: UpsertEntry[];
  embedded: Map<string, Float32Array>;
}

export async function createSearchIndex<Tables extends SearchTables>(
  database: Kysely<Tables>,
  provider: EmbeddingProvider | undefined,
  options: SearchIndexOptions = {},
): Promise<SearchIndex> {
  // Kysely<Tables> is not assignable to Kysely<SearchTables> (its type parameter is invariant); the search only
  // touches its own tables, which Tables is required to contain.
  const db = database as unknown as Kysely<SearchTables>;
  const lexical = options.lexical ?? createSqliteLexicalIndex();
  const queryCache = new QueryEmbeddingCache(options.queryCacheSize ?? 2000);
  const reportEmbeddingError = options.onEmbeddingError ?? (() => undefined);
  let matrix: VectorMatrix | undefined;
  let writes: Promise<unknown> = Promise.resolve();
  /** Agents whose text the provider refused on its own, by id: not offered again until the text changes. */
  const refused = new Map<string, string>();
  // Read before the vectors and demotions: a change committed while they load is applied again, never missed.
  let applied: ChangePosition = { seq: await latestChange(db) };
  /** This index's own writes by agent, while a read of the log that began before them may still apply it. */
  const ownWrites = new Map<string, number>();
  let catchingUp: Promise<void> | undefined;
  const demotions = new Map<string, Demotion>();
  for (const row of await db.selectFrom('search_demotions').selectAll().execute()) {
    rememberDemotion(row.agent_id, { penalty: row.penalty, reasons: JSON.parse(row.reasons) as string[] });
  }

  if (provider) {
    for await (const stored of storedVectors(db, provider.id, LOAD_PAGE)) {
      matrix ??= new VectorMatrix(stored.vector.length);
      if (stored.vector.length === matrix.dimensions) matrix.set(stored.id, stored.vector);
    }
  }

  /** Upserts waiting behind the running write, merged into one (so one model call embeds them all). */
  let waitingUpsert: { documents: SearchDocument[]; done: Promise<void> } | undefined;

  function serialised<T>(work: () => Promise<T>): Promise<T> {
    // Anything queued after a waiting upsert must not be overtaken by documents joining it.
    waitingUpsert = undefined;
    const run = writes.then(work);
    writes = run.catch(() => undefined);
    return run;
  }

  /**
   * After this index's own write stamped `ids` with `seq`. When nobody else wrote since the log was last read, the
   * log is read past it at once (nothing to read back).
   */
  function ownWriteCommitted(seq: number, ids: readonly string[]): void {
    for (const id of ids) ownWrites.set(id, seq);
    if (applied.agentId === undefined && seq === applied.seq + 1) applied = { seq };
    if (catchingUp === undefined) forgetOwnWritesUpTo(applied.seq);
  }

  function forgetOwnWritesUpTo(seq: number): void {
    for (const [id, written] of ownWrites) if (written <= seq) ownWrites.delete(id);
  }

  /** Applies the changes other connections committed since the log was last read (one reader at a time). */
  function followOtherWriters(): Promise<void> {
    catchingUp ??= applyChanges().finally(() => {
      catchingUp = undefined;
      forgetOwnWritesUpTo(applied.seq);
    });
    return catchingUp;
  }

  /**
   * Not in the write queue, so that a search never waits for an embedding of this index. A change read here may be
   * older than what this index has written since the read began: an agent's change applies only if no own write
   * of it came later.
   */
  async function applyChanges(): Promise<void> {
    const latest = await latestChange(db);
    if (latest < applied.seq || (latest === applied.seq && applied.agentId === undefined)) return;
    let position = applied;
    for (;;) {
      const changes = await changesAfter(db, position, LOAD_PAGE);
      for (const change of changes) {
        if ((ownWrites.get(change.id) ?? 0) > change.seq) continue;
        const vector =
          change.vector && change.provider === provider?.id ? decodeVector(change.vector) : undefined;
        if (vector) remember(change.id, vector);
        else matrix?.delete(change.id);
        rememberDemotion(
          change.id,
          change.demotion && {
            penalty: change.demotion.penalty,
            reasons: JSON.parse(change.demotion.reasons) as string[],
          },
        );
      }
      const last = changes[changes.length - 1];
      const done = changes.length < LOAD_PAGE;
      if (last !== undefined) position = done ? { seq: last.seq } : { seq: last.seq, agentId: last.id };
      if (isAfter(position, applied)) applied = position;
      if (done) return;
    }
  }

  /**
   * Batches being prepared (embedded) at once, each ahead of its turn to write: as many as the provider embeds at
   * once (USE-lite's worker threads), so a batch arriving while another embeds does not wait for a free worker.
   */
  const preparing = new Limiter(Math.max(1, provider?.concurrency ?? 1));

  async function prepareInTurn(batch: SearchDocument[]): Promise<PreparedUpsert> {
    // Always a tick later, so the upserts of the same tick join the batch first.
    await Promise.resolve();
    return preparing.run(() => {
      if (waitingUpsert?.documents === batch) waitingUpsert = undefined;
      return prepareUpsert(batch);
    });
  }

  /**
   * Concurrent registrations each upsert one agent; embedding them one by one would cost a model call each. While
   * every preparing slot is busy, the upserts that arrive wait as one batch and are embedded together when a slot
   * frees. Batches write in the order they were made; a batch's write waits for the writes queued before it, but
   * its embedding does not.
   */
  function coalescedUpsert(documents: readonly SearchDocument[]): Promise<void> {
    if (waitingUpsert !== undefined) {
      waitingUpsert.documents.push(...documents);
      return waitingUpsert.done;
    }
    const batch = [...documents];
    const prepared = prepareInTurn(batch);
    prepared.catch(() => undefined); // awaited by its write below
    const done = serialised(async () => commitUpsert(await prepared));
    waitingUpsert = { documents: batch, done };
    return done;
  }

  /** Embeds texts; on failure reports it and returns nothing, so the caller can index lexically regardless. */
  async function tryEmbed(
    texts: readonly string[],
    purpose: 'query' | 'document',
  ): Promise<Float32Array[] | undefined> {
    if (!provider || texts.length === 0) return undefined;
    try {
      const vectors = await provider.embed(texts, { purpose });
      if (vectors.length !== texts.length)
        throw new Error(`${provider.id} returned ${vectors.length} vectors for ${texts.length} texts`);
      return vectors;
    } catch (error) {
      reportEmbeddingError(error);
      return undefined;
    }
  }

  function rememberDemotion(id: string, demotion: Demotion | undefined): void {
    if (demotion === undefined || !(demotion.penalty > 0)) {
      demotions.delete(id);
      return;
    }
    demotions.set(id, demotion);
  }

  function remember(id: string, vector: Float32Array): void {
    matrix ??= new VectorMatrix(vector.length);
    if (vector.length === matrix.dimensions) matrix.set(id, vector);
  }

  /** The latest document of each agent with its embedding text, the agents whose vector stands, and new vectors. */
  async function prepareUpsert(documents: readonly SearchDocument[]): Promise<PreparedUpsert> {
    const latest = new Map<string, SearchDocument>();
    for (const document of documents) latest.set(document.id, document);
    const entries = [...latest.values()].map((document) => ({ document, text: embeddingText(document) }));
    const unchanged = await unchangedEntries(entries);
    const toEmbed = entries.filter((entry) => !unchanged.has(entry.document.id));
    return { entries, unchanged, toEmbed, embedded: await embedEntries(toEmbed) };
  }

  /**
   * The agents whose stored text and model are those of `entries`, with a vector in the matrix: they keep their
   * vector, so re-registering costs no embedding.
   */
  async function unchangedEntries(entries: readonly UpsertEntry[]): Promise<Set<string>> {
    const unchanged = new Set<string>();
    if (!provider) return unchanged;
    for (const chunk of chunks(entries)) {
      const rows = await db
        .selectFrom('search_vectors')
        .select(['agent_id', 'text', 'provider'])
        .where(
          'agent_id',
          'in',
          chunk.map((entry) => entry.document.id),
        )
        .execute();
      const byId = new Map(rows.map((row) => [row.agent_id, row]));
      for (const entry of chunk) {
        const row = byId.get(entry.document.id);
        if (row?.text === entry.text && row.provider === provider.id && matrix?.has(entry.document.id)) {
          unchanged.add(entry.document.id);
        }
      }
    }
    return unchanged;
  }

  async function embedEntries(entries: readonly UpsertEntry[]): Promise<Map<string, Float32Array>> {
    const vectors = await tryEmbed(
      entries.map((entry) => entry.text),
      'document',
    );
    const embedded = new Map<string, Float32Array>();
    entries.forEach((entry, i) => {
      const vector = vectors?.[i];
      if (vector) embedded.set(entry.document.id, vector);
    });
    return embedded;
  }

  async function commitUpsert(prepared: PreparedUpsert): Promise<void> {
    const { entries, embedded } = prepared;
    if (entries.length === 0) return;
    const toEmbed = [...prepared.toEmbed];
    // A write committed while this batch was being embedded may have changed an agent found unchanged then.
    if (prepared.unchanged.size > 0) {
      const kept = entries.filter((entry) => prepared.unchanged.has(entry.document.id));
      const still = await unchangedEntries(kept);
      const late = kept.filter((entry) => !still.has(entry.document.id));
      for (const [id, vector] of await embedEntries(late)) embedded.set(id, vector);
      toEmbed.push(...late);
    }

    const ids = entries.map(({ document }) => document.id);
    const seq = await db.transaction().execute(async (trx) => {
      await lexical.write(
        trx,
        entries.map(({ document }) => ({
          id: document.id,
          fields: lexicalFields(document),
          restricted: document.restricted === true,
        })),
      );
      for (const { document } of entries) {
        const demotion = document.demotion;
        if (demotion !== undefined && demotion.penalty > 0) {
          const row = { penalty: demotion.penalty, reasons: JSON.stringify(demotion.reasons) };
          await trx
            .insertInto('search_demotions')
            .values({ agent_id: document.id, ...row })
            .onConflict((conflict) => conflict.column('agent_id').doUpdateSet(row))
            .execute();
        } else if (demotions.has(document.id)) {
          await trx.deleteFrom('search_demotions').where('agent_id', '=', document.id).execute();
        }
      }
      for (const entry of toEmbed) {
        const vector = embedded.get(entry.document.id);
        const row = {
          text: entry.text,
          provider: vector && provider ? provider.id : null,
          dims: vector?.length ?? 0,
          vector: vector ? encodeVector(vector) : null,
        };
        await trx
          .insertInto('search_vectors')
          .values({ agent_id: entry.document.id, ...row })
          .onConflict((conflict) => conflict.column('agent_id').doUpdateSet(row))
          .execute();
      }
      return markChanged(trx, ids);
    });
    ownWriteCommitted(seq, ids);
    for (const entry of toEmbed) {
      const vector = embedded.get(entry.document.id);
      if (vector) remember(entry.document.id, vector);
      else matrix?.delete(entry.document.id);
    }
    for (const { document } of entries) rememberDemotion(document.id, document.demotion);
  }

  async function removeNow(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const seq = await db.transaction().execute(async (trx) => {
      await lexical.remove(trx, ids);
      for (const chunk of chunks(ids)) {
        await trx.deleteFrom('search_vectors').where('agent_id', 'in', chunk).execute();
        await trx.deleteFrom('search_demotions').where('agent_id', 'in', chunk).execute();
      }
      return markChanged(trx, ids);
    });
    ownWriteCommitted(seq, ids);
    for (const id of ids) {
      matrix?.delete(id);
      rememberDemotion(id, undefined);
      refused.delete(id);
    }
  }

  /**
   * One batch of the agents waiting for a vector from this provider: how many it took up (0: none wait) and how
   * many of those it embedded (the others' texts were refused).
   */
  async function embedPendingBatch(batchSize: number): Promise<{ taken: number; embedded: number }> {
    if (!provider) return { taken: 0, embedded: 0 };
    const waiting = await pendingRows(db, provider.id, batchSize + refused.size);
    const rows = waiting.filter((row) => refused.get(row.id) !== row.text).slice(0, batchSize);
    if (rows.length === 0) return { taken: 0, embedded: 0 };
    const embedded = await embedSettingAsideRefused(provider, rows);
    if (embedded.length === 0) return { taken: rows.length, embedded: 0 };
    await writeVectors(provider.id, embedded);
    return { taken: rows.length, embedded: embedded.length };
  }

  /**
   * Embeds the rows; when the provider refuses the batch for what it holds (a 4xx such as 400 or 413: a text too
   * long for its model, or one it will not take), halves it until the texts it refuses are alone, sets those aside
   * and embeds the rest. Without that one such text would hold back every agent waiting after it, at every try.
   * Any other failure (provider down, wrong key or URL) rejects: every text would fail alike.
   */
  async function embedSettingAsideRefused(
    embedder: EmbeddingProvider,
    rows: ReadonlyArray<{ id: string; text: string }>,
  ): Promise<Array<{ id: string; text: string; vector: Float32Array }>> {
    try {
      const vectors = await embedder.embed(
        rows.map((row) => row.text),
        { purpose: 'document' },
      );
      return rows.map((row, i) => ({ ...row, vector: vectors[i]! }));
    } catch (error) {
      if (!refusesInput(error)) throw error;
      if (rows.length === 1) {
        refused.set(rows[0]!.id, rows[0]!.text);
        reportEmbeddingError(
          new EmbeddingError(
            `${embedder.id} refused the text of agent ${rows[0]!.id}; it is searched lexically only until its text changes`,
            embedder.id,
            error.status,
            { cause: error },
          ),
        );
        return [];
      }
      const half = Math.ceil(rows.length / 2);
      return [
        ...(await embedSettingAsideRefused(embedder, rows.slice(0, half))),
        ...(await embedSettingAsideRefused(embedder, rows.slice(half))),
      ];
    }
  }

  /** Stores the vectors of waiting agents whose text is still the one embedded. */
  async function writeVectors(
    providerId: string,
    rows: ReadonlyArray<{ id: string; text: string; vector: Float32Array }>,
  ): Promise<void> {
    const seq = await db.transaction().execute(async (trx) => {
      for (const { id, text, vector } of rows) {
        await trx
          .updateTable('search_vectors')
          .set({ provider: providerId, dims: vector.length, vector: encodeVector(vector) })
          .where('agent_id', '=', id)
          .where('text', '=', text)
          .execute();
      }
      return markChanged(
        trx,
        rows.map((row) => row.id),
      );
    });
    ownWriteCommitted(
      seq,
      rows.map((row) => row.id),
    );
    for (const row of rows) remember(row.id, row.vector);
  }

  /** Batch by batch, each a write of its own, so that registrations are not held until a long backlog is done. */
  async function embedPending(options: EmbedPendingOptions = {}): Promise<number> {
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    let taken = 0;
    let embedded = 0;
    while (taken < limit) {
      const batch = await serialised(() => embedPendingBatch(Math.min(batchSize, limit - taken)));
      if (batch.taken === 0) break;
      taken += batch.taken;
      embedded += batch.embedded;
    }
    return embedded;
  }

  /** Unit vectors for the whole query and each of its clauses, from the cache where it has them. */
  async function queryVectors(texts: readonly string[]): Promise<Float32Array[] | undefined> {
    if (!provider) return undefined;
    const keys = texts.map((text) => queryCacheKey(provider.id, text));
    const vectors = keys.map((key) => queryCache.get(key));
    const missing = texts.flatMap((text, i) => (vectors[i] ? [] : [{ i, text: readableText(text) }]));
    if (missing.length > 0) {
      const embedded = await tryEmbed(
        missing.map((item) => item.text),
        'query',
      );
      if (!embedded) return undefined;
      missing.forEach((item, j) => {
        const unit = unitVector(embedded[j]!);
        queryCache.set(keys[item.i]!, unit);
        vectors[item.i] = unit;
      });
    }
    return vectors as Float32Array[];
  }

  /**
   * The similarity from which an agent without a lexical match is returned: the provider's floor for a query
   * whose words some agent the caller may see uses, or its higher one for a query whose words none uses (nonsense
   * looks about that similar to its nearest agent). Semantic mode, which ranks no words, asks whether any match.
   */
  async function floorFor(
    lexicalQuery: LexicalQuery,
    matches: readonly LexicalMatch[] | undefined,
    scope: Pick<SearchOptions, 'candidates' | 'excluded'>,
  ): Promise<number | undefined> {
    const floors = provider?.similarityFloors;
    if (floors === undefined) return undefined;
    const ranked = matches ?? (await lexical.search(db, lexicalQuery, { limit: 1, ...scope }));
    const anyMatch = ranked.length > 0;
    return anyMatch ? floors.wordsMatched : floors.noWordsMatched;
  }

  async function search(query: string, searchOptions: SearchOptions): Promise<SearchHit[]> {
    const top = Math.max(0, Math.min(MAX_TOP, Math.floor(searchOptions.top)));
    if (top === 0 || query.trim() === '' || searchOptions.candidates?.size === 0) return [];
    await followOtherWriters();
    const { candidates, excluded } = searchOptions;
    const scope = { candidates, excluded };
    const requested: SearchMode = searchOptions.mode ?? 'hybrid';
    // Both rankers read the query with its paths and links named for what they are (`… /root/a.md file`).
    const request = withMentionKinds(query);
    const lexicalQuery = parseLexicalQuery(request);

    const clauses = querySegments(request);
    const wantsSemantic = requested !== 'lexical' && matrix !== undefined && matrix.size > 0;
    const pendingVectors = wantsSemantic ? queryVectors([request, ...clauses]) : Promise.resolve(undefined);
    // The lexical ranking is read while the query is being embedded (a provider may embed off this thread).
    // Ranked lexically alone, a demoted agent may fall out of the top: read enough matches to refill it.
    const lexicalOnlyLimit = Math.min(LEXICAL_POOL, top + demotions.size);
    const pendingLexical =
      requested === 'semantic'
        ? undefined
        : lexical.search(db, lexicalQuery, {
            limit: wantsSemantic ? LEXICAL_POOL : lexicalOnlyLimit,
            ...scope,
          });
    pendingLexical?.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const vectors = await pendingVectors;
    const vectorsMatrix = matrix;
    // Without vectors (no provider, nothing embedded yet, provider down) every mode is lexical.
    const mode: SearchMode = vectors && vectorsMatrix ? requested : 'lexical';

    const lexicalMatches: LexicalMatch[] =
      mode === 'semantic'
        ? []
        : await (pendingLexical ?? lexical.search(db, lexicalQuery, { limit: lexicalOnlyLimit, ...scope }));

    let hits: FusedHit[];
    if (mode === 'lexical' || !vectors || !vectorsMatrix) {
      hits = rankLexical(lexicalMatches, top, demotions);
    } else {
      const { ids, scores, positionOf } = vectorsMatrix.similarities(vectors, scope);
      const similarityFloor = await floorFor(
        lexicalQuery,
        mode === 'semantic' ? undefined : lexicalMatches,
        scope,
      );
      const semantic = { ids, whole: scores[0]!, clauses: scores.slice(1), positionOf };
      hits =
        mode === 'semantic'
          ? rankSemantic(semantic, top, demotions, similarityFloor)
          : fuse({
              lexical: lexicalMatches,
              semantic,
              top,
              demotions,
              ...(similarityFloor === undefined ? {} : { similarityFloor }),
              similarToCentroid: (leaders) => {
                const centroid = vectorsMatrix.centroid(leaders);
                return centroid ? vectorsMatrix.similarities([centroid], scope).scores[0] : undefined;
              },
            });
    }

    const lexicalIds = hits.filter((hit) => hit.lexical !== undefined).map((hit) => hit.id);
    const fieldMatches = await lexical.explain(db, lexicalQuery, lexicalIds);
    return hits.map((hit) => ({
      ...hit,
      why: explainHit(
        fieldMatches.get(hit.id),
        mode === 'lexical' ? undefined : hit.semantic,
        demotions.get(hit.id)?.reasons,
      ),
    }));
  }

  return {
    upsert: coalescedUpsert,
    remove: (ids) => serialised(() => removeNow(ids)),
    embedPending,
    search,
    async stats(): Promise<SearchIndexStats> {
      await followOtherWriters();
      return {
        documents: await lexical.count(db),
        embedded: matrix?.size ?? 0,
        provider: provider?.id,
        dimensions: matrix?.dimensions ?? provider?.dimensions,
      };
    },
  };
}

/**
 * BM25 alone. Its scores are not standardised, so a demotion divides instead of subtracting: a penalty of 1 halves
 * the score.
 */
function rankLexical(
  matches: readonly LexicalMatch[],
  top: number,
  demotions: ReadonlyMap<string, Demotion>,
): FusedHit[] {
  const hits = matches.map((match) => {
    const penalty = demotions.get(match.id)?.penalty ?? 0;
    return { id: match.id, score: match.score / (1 + penalty), lexical: match.score };
  });
  if (demotions.size > 0) hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, top);
}

/** True when log position `a` comes after `b` (a position without an agent covers its whole write). */
function isAfter(a: ChangePosition, b: ChangePosition): boolean {
  if (a.seq !== b.seq) return a.seq > b.seq;
  if (a.agentId === undefined) return b.agentId !== undefined;
  return b.agentId !== undefined && a.agentId > b.agentId;
}

function unitVector(vector: Float32Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.sqrt(squares) || 1;
  return vector.map((value) => value / norm);
}

/**
 * Whether the provider refused an embedding call for the texts it was given (the request was understood and
 * refused: 400, 413, 422 …) rather than failing whatever the texts (unreachable, 5xx, 429, a wrong key or URL).
 */
function refusesInput(error: unknown): error is EmbeddingError & { status: number } {
  if (!(error instanceof EmbeddingError) || error.status === undefined) return false;
  return error.status >= 400 && error.status < 500 && ![401, 403, 404, 408, 429].includes(error.status);
}
