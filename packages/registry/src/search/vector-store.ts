/**
 * What the index holds in memory beside the database: every agent's vector in one matrix (for brute-force
 * similarity) and the standing demotions. It is loaded at start and then kept in step with the database by the
 * index's own writes and by the changes other connections commit (change-follower.ts).
 *
 * `similarities` is the one step that searches the matrix. From `approximateFrom` vectors (default 50,000) the
 * matrix gives way to the approximate nearest-neighbour index (`AnnIndex`, semantic/ann-candidates.ts), which holds
 * the same int8 rows: its lists are trained in the background, and then a search ranks a pool of candidates it finds
 * instead of every agent in scope. Below the threshold nothing of that exists.
 */
import { AnnIndex, type EmbeddingProvider, type MatrixScope, VectorMatrix } from '@agentry/embeddings';
import type { ChangedEntry } from './change-log.js';
import type { SemanticScores } from './fusion.js';
import type { Executor } from './lexical/types.js';
import { approximateRanking, HashSample, populationInScope } from './semantic/ann-candidates.js';
import { decodeVector, storedVectors } from './semantic/vector-rows.js';
import type { Demotion } from './types.js';

const LOAD_PAGE = 2000;
/** Default of `approximateFrom`: below it a pass over every vector takes about 5 ms. */
export const APPROXIMATE_FROM = 50_000;
/** An index of fewer vectors than this is trained at once rather than in the background (tests' small indexes). */
const BUILD_AT_ONCE_BELOW = 5000;

export interface VectorStoreOptions {
  /**
   * Vectors from which semantic candidates come from the approximate index (default 50,000); `Infinity`: always
   * the exact pass. A scope (filter, hidden agents) of at most this many agents with a vector is scored exactly.
   */
  approximateFrom?: number;
  /** Lists the approximate index probes per query vector (default: its own, 1.2% of the lists, at least 10). */
  probes?: number;
}

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
  similarities(
    queries: readonly Float32Array[],
    scope: MatrixScope,
    lexicalIds?: readonly string[],
  ): SemanticRanking | undefined;
  /** Whether searches take their candidates from the approximate index (it is trained and holds enough vectors). */
  readonly approximate: boolean;
  /**
   * Whether a build of the approximate index runs in the background (training, filing, then moving each list's rows
   * into one run): searches go on meanwhile, sharing the thread with it.
   */
  readonly building: boolean;
}

/** Loads the demotions and this provider's vectors (none without a provider). */
export async function loadVectorStore(
  db: Executor,
  provider: EmbeddingProvider | undefined,
  options: VectorStoreOptions = {},
): Promise<VectorStore> {
  let matrix: VectorMatrix | undefined;
  /** Takes the matrix's place from `approximateFrom` vectors on, for good (the rows move over once). */
  let ann: AnnIndex | undefined;
  const approximateFrom = Math.max(1, options.approximateFrom ?? APPROXIMATE_FROM);
  const sample = new HashSample();
  /**
   * The sample's slots in slot order (`sample.draw` looked up), kept between searches: every search but a filter's
   * standardises by it, and it changes only when a vector is set or deleted.
   */
  let drawnSlots: Int32Array | undefined;
  /** Vectors set or deleted since the index's lists were last trained. */
  let changedSinceBuild = 0;
  let building: Promise<void> | undefined;
  const demotions = new Map<string, Demotion>();

  function setVector(id: string, vector: Float32Array): void {
    if (ann) {
      if (vector.length !== ann.dimensions) return;
      drawnSlots = undefined;
      ann.set(id, vector);
      sample.add(id, ann.size);
      changedSinceBuild++;
      return;
    }
    matrix ??= new VectorMatrix(vector.length);
    if (vector.length !== matrix.dimensions) return;
    matrix.set(id, vector);
    if (matrix.size >= approximateFrom) moveToIndex(matrix);
  }

  function deleteVector(id: string): void {
    if (ann?.has(id)) {
      drawnSlots = undefined;
      ann.delete(id);
      sample.delete(id);
      changedSinceBuild++;
    }
    matrix?.delete(id);
  }

  /** The matrix's rows into an index, as they are held (same int8 rows and scales, so the same similarities). */
  function moveToIndex(from: VectorMatrix): void {
    const index = new AnnIndex(from.dimensions, {
      minSize: approximateFrom,
      initialCapacity: Math.ceil(from.size * 1.5),
      ...(options.probes === undefined ? {} : { probes: options.probes }),
    });
    for (const { id, row, scale } of from.quantizedRows()) {
      index.setQuantized(id, row, scale);
      sample.add(id, index.size);
    }
    ann = index;
    matrix = undefined;
    drawnSlots = undefined;
  }

  /**
   * Trains the index's lists when it has none yet, has doubled or halved since (`stale`), or has had as many vectors
   * set or deleted since as it held then (replaced vectors move away from the centroids they were filed by).
   */
  function maintain(): void {
    if (!ann || building || ann.size < approximateFrom) return;
    const built = ann.stats().builtSize;
    if (!ann.stale && changedSinceBuild < Math.max(built, approximateFrom)) return;
    changedSinceBuild = 0;
    if (ann.size < BUILD_AT_ONCE_BELOW) {
      ann.build();
      return;
    }
    building = ann
      .buildInBackground()
      .catch(() => undefined)
      .finally(() => {
        building = undefined;
        maintain();
      });
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
  maintain();

  return {
    demotions,
    get size() {
      return ann?.size ?? matrix?.size ?? 0;
    },
    get dimensions() {
      return ann?.dimensions ?? matrix?.dimensions;
    },
    has: (id) => ann?.has(id) === true || matrix?.has(id) === true,
    setVector(id, vector) {
      setVector(id, vector);
      maintain();
    },
    deleteVector(id) {
      deleteVector(id);
      maintain();
    },
    setDemotion,
    applyChange(change) {
      const vector =
        change.vector && change.provider === provider?.id ? decodeVector(change.vector) : undefined;
      if (vector) setVector(change.id, vector);
      else deleteVector(change.id);
      maintain();
      setDemotion(
        change.id,
        change.demotion && {
          penalty: change.demotion.penalty,
          reasons: JSON.parse(change.demotion.reasons) as string[],
        },
      );
    },
    similarities(queries, scope, lexicalIds = []) {
      if (ann === undefined)
        return matrix === undefined ? undefined : matrixSimilarities(matrix, queries, scope);
      if (ann.size === 0) return undefined;
      if (!ann.approximate) return matrixSimilarities(ann, queries, scope);
      // The scope's ids are looked up once; the probes and passes below read slots.
      const resolved = ann.resolveScope(scope);
      // A scope of few agents is scored outright, exactly as below the threshold: a filter finds all it matches.
      if (resolved.size <= approximateFrom) return slotSimilarities(ann, queries, ann.slotsIn(resolved));
      drawnSlots ??= slotsOf(ann, sample.draw(ann.size));
      const population = populationInScope(resolved, drawnSlots);
      return approximateRanking(ann, queries, resolved, lexicalIds, population, {
        ...(options.probes === undefined ? {} : { probes: options.probes }),
      });
    },
    get approximate() {
      return ann?.approximate === true;
    },
    get building() {
      return building !== undefined;
    },
  };
}

/** Brute force: every agent in scope, one pass over the rows per query vector. */
function matrixSimilarities(
  matrix: Pick<VectorMatrix | AnnIndex, 'similarities' | 'centroid'>,
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

/** The similarities of the agents in these slots of the index (a scope's, in slot order), outright. */
function slotSimilarities(
  ann: AnnIndex,
  queries: readonly Float32Array[],
  slots: Int32Array,
): SemanticRanking {
  const { ids, scores, positionOf } = ann.similaritiesAt(queries, slots);
  return {
    semantic: { ids, whole: scores[0]!, clauses: scores.slice(1), positionOf },
    similarToCentroid: (leaders) => {
      const centroid = ann.centroid(leaders);
      return centroid ? ann.similaritiesAt([centroid], slots).scores[0] : undefined;
    },
  };
}

/** The slots of these ids' vectors in the index, in slot order (ids it does not hold left out). */
function slotsOf(ann: AnnIndex, ids: readonly string[]): Int32Array {
  const slots = new Int32Array(ids.length);
  let n = 0;
  for (const id of ids) {
    const slot = ann.slotOfId(id);
    if (slot !== undefined) slots[n++] = slot;
  }
  return slots.subarray(0, n).sort();
}
