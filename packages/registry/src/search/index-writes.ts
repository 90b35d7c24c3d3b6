/**
 * What an index writes, each in one transaction that also stamps the change log, then applies to what it holds in
 * memory (vector-store.ts) and tells its change follower: upserts (the lexical rows, demotions and vectors of a
 * batch), removals, and the vectors of agents that were waiting for one. The write queue (write-queue.ts) runs
 * them one at a time.
 */
import type { EmbeddingProvider } from '@agentry/embeddings';
import type { ChangeFollower } from './change-follower.js';
import { markChanged } from './change-log.js';
import { chunks } from './chunks.js';
import { embeddingText, lexicalFields } from './document-text.js';
import type { EmbeddedRow, Embedder } from './embedder.js';
import type { LexicalMirror } from './lexical/memory-mirror.js';
import type { Executor, LexicalIndex } from './lexical/types.js';
import { encodeVector, pendingRows } from './semantic/vector-rows.js';
import type { SearchDocument } from './types.js';
import type { VectorStore } from './vector-store.js';

interface UpsertEntry {
  document: SearchDocument;
  text: string;
}

/** An upsert batch ready for its turn to write. */
export interface PreparedUpsert {
  entries: UpsertEntry[];
  /** Agents whose stored vector stands, as found before embedding. */
  unchanged: Set<string>;
  toEmbed: UpsertEntry[];
  embedded: Map<string, Float32Array>;
}

export interface IndexWrites {
  /** The latest document of each agent with its embedding text, the agents whose vector stands, and new vectors. */
  prepareUpsert(documents: readonly SearchDocument[]): Promise<PreparedUpsert>;
  commitUpsert(prepared: PreparedUpsert): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
  /**
   * One batch of the agents waiting for a vector from this provider: how many it took up (0: none wait) and how
   * many of those it embedded (the others' texts were refused).
   */
  embedPendingBatch(batchSize: number): Promise<{ taken: number; embedded: number }>;
}

export interface IndexWritesParts {
  db: Executor;
  lexical: LexicalIndex;
  /** The lexical index's copy in memory, told of each write once it has committed. */
  lexicalMemory?: Pick<LexicalMirror, 'written' | 'removed'>;
  provider: EmbeddingProvider | undefined;
  embedder: Embedder;
  store: VectorStore;
  follower: ChangeFollower;
  /**
   * Called in every write transaction before it writes the lexical index and stamps the change log (its last
   * statements): holds off every other index's until this one commits, so that the change log's numbers follow
   * commit order and the lexical rows of words many agents share are written one write at a time (SQLite: its
   * write lock already does both). The agents' own vector and demotion rows are written before it, so replicas
   * registering at once do not wait for each other's.
   */
  beginWrite?: (trx: Executor) => Promise<void>;
}

export function indexWrites({
  db,
  lexical,
  lexicalMemory,
  provider,
  embedder,
  store,
  follower,
  beginWrite = async () => {},
}: IndexWritesParts): IndexWrites {
  async function prepareUpsert(documents: readonly SearchDocument[]): Promise<PreparedUpsert> {
    const latest = new Map<string, SearchDocument>();
    for (const document of documents) latest.set(document.id, document);
    const entries = [...latest.values()].map((document) => ({ document, text: embeddingText(document) }));
    const unchanged = await unchangedEntries(entries);
    const toEmbed = entries.filter((entry) => !unchanged.has(entry.document.id));
    return { entries, unchanged, toEmbed, embedded: await embedEntries(toEmbed) };
  }

  /**
   * The agents whose stored text and model are those of `entries`, with a vector in memory: they keep their
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
        if (row?.text === entry.text && row.provider === provider.id && store.has(entry.document.id)) {
          unchanged.add(entry.document.id);
        }
      }
    }
    return unchanged;
  }

  async function embedEntries(entries: readonly UpsertEntry[]): Promise<Map<string, Float32Array>> {
    const vectors = await embedder.documentVectors(entries.map((entry) => entry.text));
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
    const lexicalDocuments = entries.map(({ document }) => ({
      id: document.id,
      fields: lexicalFields(document),
      restricted: document.restricted === true,
    }));
    const seq = await db.transaction().execute(async (trx) => {
      // The rows of these agents first (vectors, then demotions, each in id order: two writes of the same agents
      // on two replicas wait for each other rather than each holding a row the other needs), then, under the write
      // lock, the lexical index (its rows of words every agent shares are written one write at a time) and the
      // change log: every write takes its locks in this order. The lexical rows go in the order written, as one
      // at a time would (ties rank so). Many rows to a statement: a bulk load writes thousands.
      for (const chunk of chunks([...toEmbed].sort(byAgentId))) {
        await trx
          .insertInto('search_vectors')
          .values(
            chunk.map((entry) => {
              const vector = embedded.get(entry.document.id);
              return {
                agent_id: entry.document.id,
                text: entry.text,
                provider: vector && provider ? provider.id : null,
                dims: vector?.length ?? 0,
                vector: vector ? encodeVector(vector) : null,
              };
            }),
          )
          .onConflict((conflict) =>
            conflict.column('agent_id').doUpdateSet((eb) => ({
              text: eb.ref('excluded.text'),
              provider: eb.ref('excluded.provider'),
              dims: eb.ref('excluded.dims'),
              vector: eb.ref('excluded.vector'),
            })),
          )
          .execute();
      }
      for (const { document } of [...entries].sort(byAgentId)) {
        const demotion = document.demotion;
        if (demotion !== undefined && demotion.penalty > 0) {
          const row = { penalty: demotion.penalty, reasons: JSON.stringify(demotion.reasons) };
          await trx
            .insertInto('search_demotions')
            .values({ agent_id: document.id, ...row })
            .onConflict((conflict) => conflict.column('agent_id').doUpdateSet(row))
            .execute();
        } else if (store.demotions.has(document.id)) {
          await trx.deleteFrom('search_demotions').where('agent_id', '=', document.id).execute();
        }
      }
      await beginWrite(trx);
      await lexical.write(trx, lexicalDocuments);
      return markChanged(trx, ids);
    });
    follower.ownWriteCommitted(seq, ids);
    lexicalMemory?.written(lexicalDocuments);
    for (const entry of toEmbed) {
      const vector = embedded.get(entry.document.id);
      if (vector) store.setVector(entry.document.id, vector);
      else store.deleteVector(entry.document.id);
    }
    for (const { document } of entries) store.setDemotion(document.id, document.demotion);
  }

  async function remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const seq = await db.transaction().execute(async (trx) => {
      // In the order every write takes its locks (commitUpsert): the agents' rows, the lexical index, the log.
      for (const chunk of chunks([...ids].sort())) {
        await trx.deleteFrom('search_vectors').where('agent_id', 'in', chunk).execute();
        await trx.deleteFrom('search_demotions').where('agent_id', 'in', chunk).execute();
      }
      await beginWrite(trx);
      await lexical.remove(trx, ids);
      return markChanged(trx, ids);
    });
    follower.ownWriteCommitted(seq, ids);
    lexicalMemory?.removed(ids);
    for (const id of ids) {
      store.deleteVector(id);
      store.setDemotion(id, undefined);
      embedder.forget(id);
    }
  }

  async function embedPendingBatch(batchSize: number): Promise<{ taken: number; embedded: number }> {
    if (!provider) return { taken: 0, embedded: 0 };
    const waiting = await pendingRows(db, provider.id, batchSize + embedder.refusedCount);
    const rows = waiting.filter((row) => !embedder.refuses(row.id, row.text)).slice(0, batchSize);
    if (rows.length === 0) return { taken: 0, embedded: 0 };
    const embedded = await embedder.pendingVectors(provider, rows);
    if (embedded.length === 0) return { taken: rows.length, embedded: 0 };
    await writeVectors(provider.id, embedded);
    return { taken: rows.length, embedded: embedded.length };
  }

  /** Stores the vectors of waiting agents whose text is still the one embedded. */
  async function writeVectors(providerId: string, rows: readonly EmbeddedRow[]): Promise<void> {
    const ids = rows.map((row) => row.id);
    const seq = await db.transaction().execute(async (trx) => {
      // In id order, then the log under the write lock, as every write takes its locks (commitUpsert).
      for (const { id, text, vector } of [...rows].sort((a, b) => compareIds(a.id, b.id))) {
        await trx
          .updateTable('search_vectors')
          .set({ provider: providerId, dims: vector.length, vector: encodeVector(vector) })
          .where('agent_id', '=', id)
          .where('text', '=', text)
          .execute();
      }
      await beginWrite(trx);
      return markChanged(trx, ids);
    });
    follower.ownWriteCommitted(seq, ids);
    for (const row of rows) store.setVector(row.id, row.vector);
  }

  return { prepareUpsert, commitUpsert, remove, embedPendingBatch };
}

/** One order of agents for every write (code units, as `Array.prototype.sort` orders strings). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byAgentId(a: UpsertEntry, b: UpsertEntry): number {
  return compareIds(a.document.id, b.document.id);
}
