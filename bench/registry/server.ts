/**
 * The registry under test, in its own process so the load generator does not share its event loop: opens a
 * registry on the given SQLite file, preloads generated agents in batches with `loadAgents` (the store and the search
 * index, as `reindex` does), serves it on loopback and prints one `READY {json}` line. It stops when its stdin closes.
 *
 *   node --import tsx bench/registry/server.ts --db <file> --preload <n> --embeddings use-lite|hash|none [--hold-model]
 *     [--embedding-cache <file>] [--answer-cache on|off] [--embedding-threads <n>]
 */
import { parseArgs } from 'node:util';
import { createEmbeddingProvider, type EmbeddingProvider } from '@agentry/embeddings';
import {
  createRegistry,
  loadAgents,
  type RegistryOptions,
  serveRegistry,
  tuneHeapForServing,
} from '@agentry/registry';
import pino from 'pino';
import { generateAgent, readGeneratedAgent } from './agents.js';
import { type CachingProvider, cachingProvider } from './embedding-cache.js';
import { BENCH_ADMIN_TOKEN, UNLIMITED_RATE_LIMITS } from './measuring-registry.js';

const BATCH = 500;

/**
 * Stand-in vectors for preloading 100,000 agents in minutes rather than the half hour USE-lite takes: 512
 * dimensions like USE-lite, so the index holds the same bytes; words hashed into buckets. Only for `--rss`.
 */
function hashEmbeddings(): EmbeddingProvider {
  return {
    id: 'bench-hash-512',
    dimensions: 512,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(512);
        for (const word of text.toLowerCase().split(/\W+/)) {
          if (word === '') continue;
          let hash = 2166136261;
          for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
          vector[(hash >>> 0) % 512]! += 1;
        }
        return vector;
      });
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      preload: { type: 'string', default: '0' },
      embeddings: { type: 'string', default: 'use-lite' },
      'embedding-cache': { type: 'string' },
      'answer-cache': { type: 'string', default: 'on' },
      'embedding-threads': { type: 'string' },
      'hold-model': { type: 'boolean', default: false },
    },
  });
  if (values.db === undefined) throw new Error('--db is required');
  const options: RegistryOptions = {
    databasePath: values.db,
    adminToken: BENCH_ADMIN_TOKEN,
    logger: pino({ level: 'warn' }, pino.destination({ dest: 2, sync: true })),
    quotaPerPublisher: null,
    answerCache: values['answer-cache'] !== 'off',
    rateLimits: UNLIMITED_RATE_LIMITS,
  };
  const useLite =
    values['embedding-threads'] === undefined ? {} : { threads: Number(values['embedding-threads']) };
  let cache: CachingProvider | undefined;
  if (values.embeddings === 'hash') options.embeddingProvider = hashEmbeddings();
  else if (values.embeddings === 'none') options.embeddings = 'none';
  else if (values['embedding-cache'] !== undefined && values['embedding-cache'] !== '') {
    cache = cachingProvider(createEmbeddingProvider('use-lite', useLite), values['embedding-cache']);
    options.embeddingProvider = cache;
  } else {
    options.embeddings = 'use-lite';
    options.embeddingOptions = useLite;
  }
  tuneHeapForServing(); // as `agentry serve` runs
  const registry = await createRegistry(options);
  // With stand-in vectors, the model the registry would run is loaded anyway (both workers, as under load), so
  // that the resident memory measured includes it.
  const heldModel = values['hold-model'] ? createEmbeddingProvider('use-lite', useLite) : undefined;
  await heldModel?.embed(
    Array.from({ length: 8 }, (_, i) => generateAgent(i).document['description'] as string),
    { purpose: 'document' },
  );

  const preload = Number(values.preload);
  const started = performance.now();
  for (let from = 0; from < preload; from += BATCH) {
    const agents = [];
    for (let i = from; i < Math.min(preload, from + BATCH); i++) {
      agents.push(readGeneratedAgent(i));
    }
    await loadAgents(registry, agents, { owner: 'bench' });
    cache?.save();
  }
  const preloadMs = performance.now() - started;
  cache?.passThrough();

  const served = await serveRegistry(registry);
  process.stdout.write(
    `READY ${JSON.stringify({ url: served.url, preloadMs, rss: process.memoryUsage().rss })}\n`,
  );
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await served.close();
    await registry.close();
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
