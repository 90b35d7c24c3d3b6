/**
 * The worker thread that runs USE-lite for the provider (use-lite.ts): the model's calls are synchronous WASM
 * that would otherwise hold the registry's event loop for tens of milliseconds a text. One job at a time.
 */
import { parentPort } from 'node:worker_threads';
import { embedWithModel, loadUseLiteModel, type UseLiteModel } from './use-lite-model.js';

export interface EmbedJob {
  id: number;
  texts: string[];
  batchSize: number;
  maxCharacters: number;
}

export type EmbedReply = { id: number; vectors: Float32Array[] } | { id: number; error: string };

let model: Promise<UseLiteModel> | undefined;

parentPort?.on('message', async (job: EmbedJob) => {
  try {
    model ??= loadUseLiteModel().catch((error: unknown) => {
      model = undefined; // the next job may try again
      throw error;
    });
    const vectors = await embedWithModel(await model, job.texts, job.batchSize, job.maxCharacters);
    const reply: EmbedReply = { id: job.id, vectors };
    parentPort?.postMessage(
      reply,
      vectors.map((vector) => vector.buffer as ArrayBuffer),
    );
  } catch (error) {
    const reply: EmbedReply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
    parentPort?.postMessage(reply);
  }
});
