/**
 * What the index holds in memory beside the database: every agent's vector in one matrix (for brute-force
 * similarity) and the standing demotions. It is loaded at start and then kept in step with the database by the
 * index's own writes and by the changes other connections commit (change-follower.ts).
 *
 * `similarities` is the one step that searches the matrix, so that an approximate index can take its place.
 */
import { type EmbeddingProvider, type MatrixScope, VectorMatrix } from '@agentry/embeddings';
import type { ChangedEntry } from './change-log.js';
import type { SemanticScores } from './fusion.js';
import type { Executor } from './lexical/types.js';
import { decodeVector, storedVectors } from './semantic/vector-rows.js';
import type { Demotion } from './types.js';

const LOAD_PAGE = 2000;

/** The candidates' similarities to a query's vectors, and feedback's similarities to a centroid of some of them. */
export interface SemanticRanking {
  semantic: SemanticScores;
  similarToCentroid: (ids: readonly string[]) => ArrayLike<number> | undefined;
}

export interface VectorStore {
  /** Standing demotions by agent id. */
  readonly demotions: ReadonlyMap<string, Demotion>;
  /** Agents with a vector. */
  readonly size: number;
  /** The vectors' length; undefined until one is held. */
  readonly dimensions: number | undefined;
  has(id: string): boolean;
  /** Holds the agent's vector (one of another length than those held is ignored). */
  setVector(id: string, vector: Float32Array): void;
  deleteVector(id: string): void;
  /** Holds the agent's demotion; none, or a penalty that is not positive, lifts it. */
  setDemotion(id: string, demotion: Demotion | undefined): void;
  /** Takes a change another connection committed: the agent's vector (if of this provider) and demotion now. */
  applyChange(change: ChangedEntry): void;
  /**
   * Unit query vectors (the whole query, then each clause) against the agents in `scope`; undefined while no vector
   * is held.
   */
  similarities(queries: readonly Float32Array[], scope: MatrixScope): SemanticRanking | undefined;
}

/** Loads the demotions and this provider's vectors (none without a provider). */
export async function loadVectorStore(
  db: Executor,
  provider: EmbeddingProvider | undefined,
): Promise<VectorStore> {
  let matrix: VectorMatrix | undefined;
  const demotions = new Map<string, Demotion>();

  function setVector(id: string, vector: Float32Array): void {
    matrix ??= new VectorMatrix(vector.length);
    if (vector.length === matrix.dimensions) matrix.set(id, vector);
  }

  function setDemotion(id: string, demotion: Demotion | undefined): void {
    if (demotion === undefined || !(demotion.penalty > 0)) demotions.delete(id);
    else demotions.set(id, demotion);
  }

  for (const row of await db.selectFrom('search_demotions').selectAll().execute()) {
    setDemotion(row.agent_id, { penalty: row.penalty, reasons: JSON.parse(row.reasons) as string[] });
  }
  if (provider) {
    for await (const stored of storedVectors(db, provider.id, LOAD_PAGE)) setVector(stored.id, stored.vector);
  }

  return {
    demotions,
    get size() {
      return matrix?.size ?? 0;
    },
    get dimensions() {
      return matrix?.dimensions;
    },
    has: (id) => matrix?.has(id) === true,
    setVector,
    deleteVector(id) {
      matrix?.delete(id);
    },
    setDemotion,
    applyChange(change) {
      const vector =
        change.vector && change.provider === provider?.id ? decodeVector(change.vector) : undefined;
      if (vector) setVector(change.id, vector);
      else matrix?.delete(change.id);
      setDemotion(
        change.id,
        change.demotion && {
          penalty: change.demotion.penalty,
          reasons: JSON.parse(change.demotion.reasons) as string[],
        },
      );
    },
    similarities(queries, scope) {
      return matrix === undefined ? undefined : matrixSimilarities(matrix, queries, scope);
    },
  };
}

/** Brute force: every agent in scope, one pass over the matrix per query vector. */
function matrixSimilarities(
  matrix: VectorMatrix,
  queries: readonly Float32Array[],
  scope: MatrixScope,
): SemanticRanking {
  const { ids, scores, positionOf } = matrix.similarities(queries, scope);
  return {
    semantic: { ids, whole: scores[0]!, clauses: scores.slice(1), positionOf },
    similarToCentroid: (leaders) => {
      const centroid = matrix.centroid(leaders);
      return centroid ? matrix.similarities([centroid], scope).scores[0] : undefined;
    },
  };
}
